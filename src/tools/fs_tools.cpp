#include "tools/fs_tools.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/apply_patch.h"
#include "skills/snapshot.h"
#include "tools/file_io.h"
#include "tools/sandbox/sandbox.h"  // MA-4 shared folders
#include "tools/workspace_path.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

ToolOutput fail(std::string_view tool, const Error& e) { return ToolOutput::failure(tool, e.message, e.code); }

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// ---------------------------------------------------------------------------------------------
// read

/// One page of a text file, found by streaming it once: memory is bounded by `max_bytes`.
struct ReadPage {
  std::string text;
  size_t total_lines = 0;
  size_t last_line = 0;         ///< last line included (0: none)
  bool byte_capped = false;     ///< stopped before `max_lines` because of `max_bytes`
  bool line_truncated = false;  ///< the first line alone exceeded `max_bytes` and was cut
};

class PageReader {
 public:
  PageReader(size_t first_line, size_t max_lines, size_t max_bytes)
      : first_(first_line), last_wanted_(first_line + max_lines - 1), max_bytes_(max_bytes) {}

  void feed(std::string_view data) {
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      const std::string_view seg = data.substr(0, nl);
      take(seg);
      if (!seg.empty()) in_line_ = true;
      if (nl == std::string_view::npos) return;
      end_line();
      data.remove_prefix(nl + 1);
    }
  }

  ReadPage finish() {
    if (in_line_) end_line();
    page_.total_lines = line_ - 1;
    if (!page_.text.empty() && page_.text.back() == '\n') page_.text.pop_back();
    return std::move(page_);
  }

 private:
  bool selected() const { return collecting_ && line_ >= first_ && line_ <= last_wanted_; }

  void take(std::string_view seg) {
    if (!selected() || seg.empty()) return;
    const size_t room = max_bytes_ > page_.text.size() ? max_bytes_ - page_.text.size() : 0;
    if (seg.size() <= room) {
      page_.text.append(seg);
    } else if (line_ == first_) {  // a single huge first line: show its beginning
      page_.text.append(seg.substr(0, room));
      page_.line_truncated = true;
      page_.last_line = line_;
      collecting_ = false;
    } else {  // drop the partial line; the next page starts with it
      page_.text.resize(line_start_);
      page_.byte_capped = true;
      collecting_ = false;
    }
  }

  void end_line() {
    if (selected()) {
      page_.text += '\n';
      page_.last_line = line_;
      line_start_ = page_.text.size();
      if (line_ == last_wanted_) collecting_ = false;
    }
    ++line_;
    in_line_ = false;
  }

  size_t first_, last_wanted_, max_bytes_;
  size_t line_ = 1;        // line being read, 1-based
  size_t line_start_ = 0;  // where the current line starts in page_.text
  bool in_line_ = false;   // bytes seen since the last newline
  bool collecting_ = true;
  ReadPage page_;
};

std::string format_size(size_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + "KB" : std::to_string(bytes) + " bytes";
}

std::string continuation_note(const ReadPage& page, size_t first, size_t max_bytes) {
  const size_t next = page.last_line + 1;
  if (page.line_truncated) {
    std::string note = "\n\n[Line " + std::to_string(first) + " is longer than " + format_size(max_bytes) +
                       "; showing its beginning only. Use exec (e.g. cut -c) to see the rest.";
    if (next <= page.total_lines) note += " Use offset=" + std::to_string(next) + " for the following lines.";
    return note + "]";
  }
  if (page.byte_capped) {
    return "\n\n[Showing lines " + std::to_string(first) + "-" + std::to_string(page.last_line) + " of " +
           std::to_string(page.total_lines) + " (" + format_size(max_bytes) +
           " limit). Use offset=" + std::to_string(next) + " to continue.]";
  }
  if (page.last_line < page.total_lines) {
    const size_t more = page.total_lines - page.last_line;
    return "\n\n[" + plural(more, "more line") + " in file. Use offset=" + std::to_string(next) + " to continue.]";
  }
  return {};
}

/// SK-3: `read` (only `read`) may also open an absolute path beneath a skill location outside the
/// workspace (user, bundled, extra: skills::readable_skill_roots()), confined there the same way.
/// Anything else keeps `outside`, the workspace's refusal.
Result<WorkspacePath> resolve_in_skill_folder(const std::string& path, Result<WorkspacePath> outside) {
  if (path.empty() || path.front() != '/') return outside;
  for (const auto& root : skills::readable_skill_roots()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) continue;
    if (auto p = resolve_workspace_path(root, path); p) return p;
  }
  return outside;
}

// MA-4 (agents.*.binds): the agent's read-only shared folders, from the run's config. `read` may
// open files beneath them; write and edit refuse there with the reason (a config error leaves
// none: `pincer config validate` reports it).
std::vector<SharedFolder> shared_folders(const ToolContext& ctx) {
  if (!ctx.config) return {};
  auto folders = sandbox::shared_folders_for_agent(*ctx.config, ctx.agent_id);
  return folders ? std::move(*folders) : std::vector<SharedFolder>{};
}

/// A write or edit outside the workspace that lands in a shared folder: refused as read-only.
std::optional<ToolOutput> refuse_shared_write(std::string_view tool, const std::string& path, const Error& outside,
                                              const ToolContext& ctx) {
  if (outside.code != "PATH_OUTSIDE_WORKSPACE") return std::nullopt;
  for (const auto& folder : shared_folders(ctx)) {
    if (resolve_shared_folder_path({folder}, path)) {
      return ToolOutput::failure(tool, "path \"" + path + "\" is in the read-only shared folder " + folder.source.string() +
                                           " (" + folder.config_path + "): it can be read, not changed", "READ_ONLY");
    }
  }
  return std::nullopt;
}
// (end MA-4)

class ReadTool final : public Tool {
 public:
  std::string_view name() const override { return "read"; }
  std::string_view group() const override { return "fs"; }
  std::string_view description() const override {
    return "Read a text file in the workspace. Returns up to 2000 lines or 50KB per call; use offset "
           "(1-based line) and limit (lines) to page through larger files. Binary files are refused.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}, {"description", "File path, relative to the workspace."}}},
          {"offset", {{"type", "integer"}, {"minimum", 1}, {"description", "First line to read (1-based)."}}},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"description", "Maximum number of lines to read."}}}}},
        {"required", {"path"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    const auto path = args["path"].get<std::string>();
    const auto offset = arg_or<int64_t>(args, "offset", 1);
    const auto limit = arg_or<int64_t>(args, "limit", static_cast<int64_t>(kReadDefaultLineLimit));
    if (offset < 1) return ToolOutput::failure(name(), "offset must be 1 or more (lines are numbered from 1)");
    if (limit < 1) return ToolOutput::failure(name(), "limit must be 1 or more");
    auto p = resolve_workspace_path(ctx.workspace, path);
    if (!p && p.error().code == "PATH_OUTSIDE_WORKSPACE") p = resolve_in_skill_folder(path, std::move(p));  // SK-3
    if (!p && p.error().code == "PATH_OUTSIDE_WORKSPACE") {  // MA-4: a read-only shared folder
      if (auto shared = resolve_shared_folder_path(shared_folders(ctx), path)) p = std::move(*shared);
    }
    if (!p) return fail(name(), p.error());

    const size_t max_bytes = std::max<size_t>(1024, std::min(kReadMaxBytes, ctx.max_output_chars));
    auto page = read_page(*p, static_cast<size_t>(offset), static_cast<size_t>(limit), max_bytes, ctx);
    if (!page) return fail(name(), page.error());
    if (page->total_lines == 0) return ToolOutput::ok("(empty file)", {{"path", p->relative}, {"totalLines", 0}});
    if (static_cast<size_t>(offset) > page->total_lines) {
      return ToolOutput::failure(name(), "offset " + std::to_string(offset) + " is beyond the end of " + p->relative + " (" +
                              plural(page->total_lines, "line") + ")");
    }
    json details = {{"path", p->relative},
                    {"firstLine", offset},
                    {"lastLine", page->last_line},
                    {"totalLines", page->total_lines},
                    {"truncated", page->byte_capped || page->line_truncated}};
    return ToolOutput::ok(page->text + continuation_note(*page, static_cast<size_t>(offset), max_bytes),
                          std::move(details));
  }

 private:
  static Result<ReadPage> read_page(const WorkspacePath& p, size_t first, size_t limit, size_t max_bytes,
                                    const ToolContext& ctx) {
    int fd = open_in_workspace(p, O_RDONLY);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return Error{"NOT_FOUND", p.relative + ": file not found"};
      if (errno == ELOOP || errno == EXDEV) {
        return Error{"PATH_OUTSIDE_WORKSPACE", p.relative + ": changed into a symbolic link while being opened"};
      }
      return Error{"IO_ERROR", p.relative + ": cannot open: " + std::strerror(errno)};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      bool dir = S_ISDIR(st.st_mode);
      ::close(fd);
      return Error{"NOT_A_FILE", p.relative + (dir ? " is a directory" : " is not a regular file")};
    }
    PageReader reader(first, limit, max_bytes);
    std::string buf(64 * 1024, '\0');
    bool first_block = true;
    for (;;) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || ctx.is_cancelled()) {
        ::close(fd);
        return Error{n < 0 ? "IO_ERROR" : "CANCELLED", p.relative + (n < 0 ? ": read failed" : ": cancelled")};
      }
      if (n == 0) break;
      std::string_view block(buf.data(), static_cast<size_t>(n));
      if (first_block && looks_binary(block.substr(0, 8192))) {
        ::close(fd);
        return Error{"BINARY_FILE",
                     p.relative + " is a binary file (" + std::to_string(st.st_size) + " bytes); read only shows text"};
      }
      first_block = false;
      reader.feed(block);
    }
    ::close(fd);
    return reader.finish();
  }
};

// ---------------------------------------------------------------------------------------------
// write

class WriteTool final : public Tool {
 public:
  std::string_view name() const override { return "write"; }
  std::string_view group() const override { return "fs"; }
  std::string_view description() const override {
    return "Create or overwrite a file in the workspace with the given content. Parent directories are "
           "created. Prefer edit or apply_patch to change part of an existing file.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}, {"description", "File path, relative to the workspace."}}},
          {"content", {{"type", "string"}, {"description", "The complete new file content."}}}}},
        {"required", {"path", "content"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    const auto& content = args["content"].get_ref<const std::string&>();
    auto p = resolve_workspace_path(ctx.workspace, args["path"].get<std::string>());
    if (!p) return refuse_shared_write(name(), args["path"].get<std::string>(), p.error(), ctx).value_or(fail(name(), p.error()));
    std::error_code ec;
    if (std::filesystem::is_directory(p->real, ec)) return ToolOutput::failure(name(), p->relative + " is a directory", "NOT_A_FILE");
    if (auto st = write_file_atomic(*p, content); !st)
      return ToolOutput::failure(name(), p->relative + ": " + st.error().message);
    return ToolOutput::ok("Wrote " + plural(content.size(), "byte") + " to " + p->relative,
                          {{"path", p->relative}, {"bytes", content.size()}});
  }
};

// ---------------------------------------------------------------------------------------------
// edit

struct Replace {
  std::string old_text;
  std::string new_text;
};

size_t count_occurrences(std::string_view hay, std::string_view needle, size_t& first_at) {
  size_t count = 0;
  first_at = std::string_view::npos;
  for (size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + needle.size())) {
    if (count++ == 0) first_at = at;
  }
  return count;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

struct Span {
  size_t at;
  size_t len;
  size_t index;  // which edit
};

class EditTool final : public Tool {
 public:
  std::string_view name() const override { return "edit"; }
  std::string_view group() const override { return "fs"; }
  std::string_view description() const override {
    return "Replace text in a workspace file. oldText must match the file exactly (including whitespace and "
           "line breaks) and occur exactly once; add surrounding lines to make it unique. Several "
           "non-overlapping replacements can be given as edits: [{oldText, newText}].";
  }
  const json& parameters() const override {
    static const json replacement = {
        {"type", "object"},
        {"properties", {{"oldText", {{"type", "string"}}}, {"newText", {{"type", "string"}}}}},
        {"required", {"oldText", "newText"}}};
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}, {"description", "File path, relative to the workspace."}}},
          {"oldText", {{"type", "string"}, {"description", "Exact text to replace; must be unique in the file."}}},
          {"newText", {{"type", "string"}, {"description", "Replacement text."}}},
          {"edits",
           {{"type", "array"},
            {"items", replacement},
            {"description", "Several replacements against the original file (instead of oldText/newText)."}}}}},
        {"required", {"path"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    auto edits = collect_edits(args);
    if (!edits) return fail(name(), edits.error());
    auto p = resolve_workspace_path(ctx.workspace, args["path"].get<std::string>());
    if (!p) return refuse_shared_write(name(), args["path"].get<std::string>(), p.error(), ctx).value_or(fail(name(), p.error()));
    auto original = read_file_bounded(*p, kMaxEditableFileBytes);
    if (!original) return ToolOutput::failure(name(), p->relative + ": " + original.error().message, original.error().code);
    if (looks_binary(std::string_view(*original).substr(0, 8192))) {
      return ToolOutput::failure(name(), p->relative + " is a binary file", "BINARY_FILE");
    }

    // Exact match first; a CRLF file also matches LF-only text (and stays CRLF).
    auto updated = apply_edits(*original, *edits, p->relative);
    if (!updated && updated.error().code == "EDIT_NOT_FOUND" && original->find("\r\n") != std::string::npos) {
      auto lf = [](const std::string& s) { return replace_all(s, "\r\n", "\n"); };
      std::vector<Replace> lf_edits;
      for (const auto& e : *edits) lf_edits.push_back({lf(e.old_text), lf(e.new_text)});
      auto retry = apply_edits(lf(*original), lf_edits, p->relative);
      if (retry) updated = replace_all(std::move(*retry), "\n", "\r\n");
    }
    if (!updated) return fail(name(), updated.error());
    if (auto st = write_file_atomic(*p, *updated); !st)
      return ToolOutput::failure(name(), p->relative + ": " + st.error().message);
    return ToolOutput::ok("Edited " + p->relative + ": " + plural(edits->size(), "replacement") + " applied.",
                          {{"path", p->relative}, {"replacements", edits->size()}});
  }

 private:
  static Result<std::vector<Replace>> collect_edits(const json& args) {
    std::vector<Replace> edits;
    if (has_arg(args, "edits")) {
      for (const auto& e : args["edits"]) {
        if (!e.is_object() || !e.contains("oldText") || !e["oldText"].is_string() || !e.contains("newText") ||
            !e["newText"].is_string()) {
          return Error{"TOOL_ARGS_INVALID", "every entry of edits needs string oldText and newText"};
        }
        edits.push_back({e["oldText"].get<std::string>(), e["newText"].get<std::string>()});
      }
    }
    if (has_arg(args, "oldText") || has_arg(args, "newText")) {
      if (!has_arg(args, "oldText") || !has_arg(args, "newText")) {
        return Error{"TOOL_ARGS_INVALID", "oldText and newText must be given together"};
      }
      edits.push_back({args["oldText"].get<std::string>(), args["newText"].get<std::string>()});
    }
    if (edits.empty()) return Error{"TOOL_ARGS_INVALID", "missing required argument \"oldText\" (or \"edits\")"};
    return edits;
  }

  static std::string label(size_t index, size_t total) {
    return total == 1 ? "oldText" : "edits[" + std::to_string(index) + "].oldText";
  }

  /// Finds every edit's unique span in `content`, then replaces them back to front.
  static Result<std::string> apply_edits(std::string content, const std::vector<Replace>& edits,
                                         const std::string& shown) {
    std::vector<Span> spans;
    for (size_t i = 0; i < edits.size(); ++i) {
      const auto& e = edits[i];
      const std::string what = label(i, edits.size());
      if (e.old_text.empty()) return Error{"EDIT_INVALID", what + " must not be empty"};
      if (e.old_text == e.new_text)
        return Error{"EDIT_INVALID", what + " and newText are identical; nothing to change"};
      size_t at = 0;
      const size_t n = count_occurrences(content, e.old_text, at);
      if (n == 0) {
        return Error{"EDIT_NOT_FOUND", what + " not found in " + shown +
                                           "; it must match the file exactly, including whitespace and line breaks"};
      }
      if (n > 1) {
        return Error{"EDIT_AMBIGUOUS", what + " matches " + std::to_string(n) + " times in " + shown +
                                           "; include more surrounding lines to make it unique"};
      }
      spans.push_back({at, e.old_text.size(), i});
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.at < b.at; });
    for (size_t k = 1; k < spans.size(); ++k) {
      if (spans[k].at < spans[k - 1].at + spans[k - 1].len) {
        return Error{"EDIT_INVALID", "edits[" + std::to_string(spans[k - 1].index) + "] and edits[" +
                                         std::to_string(spans[k].index) + "] overlap; merge them into one edit"};
      }
    }
    for (auto it = spans.rbegin(); it != spans.rend(); ++it)
      content.replace(it->at, it->len, edits[it->index].new_text);
    return content;
  }
};

// ---------------------------------------------------------------------------------------------
// apply_patch

class ApplyPatchTool final : public Tool {
 public:
  std::string_view name() const override { return "apply_patch"; }
  std::string_view group() const override { return "fs"; }
  std::string_view description() const override {
    return "Apply a patch to workspace files. Format: '*** Begin Patch', then per file '*** Add File: <path>' "
           "(content lines prefixed with +), '*** Delete File: <path>', or '*** Update File: <path>' "
           "(optionally '*** Move to: <path>') followed by '@@' hunks of ' ' context, '-' removed and '+' "
           "added lines; end with '*** End Patch'. Every change is checked before any file is written.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"input",
           {{"type", "string"}, {"description", "The full patch text, from *** Begin Patch to *** End Patch."}}}}},
        {"required", {"input"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    auto parsed = patch::parse_patch(args["input"].get_ref<const std::string&>());
    if (!parsed) return ToolOutput::failure(name(), "invalid patch: " + parsed.error().message, parsed.error().code);
    auto changes = patch::apply_patch_in_workspace(ctx.workspace, *parsed);
    if (!changes) return fail(name(), changes.error());
    std::string text = "Success. Updated the following files:";
    json files = json::array();
    for (const auto& c : *changes) {
      text += "\n" + std::string(1, c.kind) + " " + c.path;
      if (!c.moved_from.empty()) text += " (moved from " + c.moved_from + ")";
      files.push_back({{"kind", std::string(1, c.kind)}, {"path", c.path}});
    }
    return ToolOutput::ok(std::move(text), {{"files", std::move(files)}});
  }
};

}  // namespace

std::vector<std::unique_ptr<Tool>> make_fs_tools() {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(std::make_unique<ReadTool>());
  tools.push_back(std::make_unique<WriteTool>());
  tools.push_back(std::make_unique<EditTool>());
  tools.push_back(std::make_unique<ApplyPatchTool>());
  return tools;
}

}  // namespace pincer::tools
