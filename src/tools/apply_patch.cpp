#include "tools/apply_patch.h"

#include <sys/stat.h>

#include <functional>
#include <map>

#include "tools/file_io.h"
#include "tools/workspace_path.h"

namespace pincer::tools::patch {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kBegin = "*** Begin Patch";
constexpr std::string_view kEnd = "*** End Patch";
constexpr std::string_view kAdd = "*** Add File:";
constexpr std::string_view kDelete = "*** Delete File:";
constexpr std::string_view kUpdate = "*** Update File:";
constexpr std::string_view kMoveTo = "*** Move to:";
constexpr std::string_view kEndOfFile = "*** End of File";

std::string_view trim(std::string_view s) {
  const auto ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string_view rtrim(std::string_view s) {
  auto e = s.find_last_not_of(" \t\r\n");
  return e == std::string_view::npos ? std::string_view{} : s.substr(0, e + 1);
}

std::string shown_text(std::string_view s) {
  constexpr size_t kShown = 80;
  return "\"" + std::string(s.substr(0, kShown)) + (s.size() > kShown ? "…\"" : "\"");
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = nl + 1;
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Parser

class Parser {
 public:
  explicit Parser(std::vector<std::string> lines) : lines_(std::move(lines)) {}

  Result<Patch> parse() {
    strip_wrappers();
    if (first_ >= last_ || trim(lines_[first_]) != kBegin) {
      return error(first_, "a patch must start with \"*** Begin Patch\"");
    }
    if (trim(lines_[last_ - 1]) != kEnd) return error(last_ - 1, "a patch must end with \"*** End Patch\"");
    Patch patch;
    size_t i = first_ + 1;
    const size_t end = last_ - 1;
    while (i < end) {
      if (trim(lines_[i]).empty()) {
        ++i;
        continue;
      }
      auto op = parse_op(i, end);
      if (!op) return op.error();
      patch.ops.push_back(std::move(*op));
    }
    if (patch.ops.empty()) return error(first_, "the patch contains no file operations");
    return patch;
  }

 private:
  /// Drops blank lines around the patch and a heredoc wrapper such as `<<'EOF'` … `EOF`.
  void strip_wrappers() {
    first_ = 0;
    last_ = lines_.size();
    while (first_ < last_ && trim(lines_[first_]).empty()) ++first_;
    while (last_ > first_ && trim(lines_[last_ - 1]).empty()) --last_;
    if (last_ - first_ >= 2 && trim(lines_[first_]).substr(0, 2) == "<<" && trim(lines_[first_ + 1]) == kBegin) {
      ++first_;
      if (trim(lines_[last_ - 1]) != kEnd) --last_;
    }
  }

  Error error(size_t index, const std::string& message) const {
    return Error{"PATCH_INVALID", "line " + std::to_string(index + 1) + ": " + message};
  }

  static bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

  Result<std::string> header_path(size_t i, std::string_view prefix) const {
    std::string path(trim(trim(lines_[i]).substr(prefix.size())));
    if (path.empty()) return error(i, "missing file path after " + shown_text(prefix));
    return path;
  }

  Result<FileOp> parse_op(size_t& i, size_t end) {
    const std::string_view line = trim(lines_[i]);
    FileOp op;
    if (starts_with(line, kAdd)) {
      op.kind = OpKind::kAdd;
      auto path = header_path(i, kAdd);
      if (!path) return path.error();
      op.path = std::move(*path);
      for (++i; i < end && starts_with(lines_[i], "+"); ++i) op.content += lines_[i].substr(1) + "\n";
      return op;
    }
    if (starts_with(line, kDelete)) {
      op.kind = OpKind::kDelete;
      auto path = header_path(i, kDelete);
      if (!path) return path.error();
      op.path = std::move(*path);
      ++i;
      return op;
    }
    if (starts_with(line, kUpdate)) return parse_update(i, end);
    return error(i,
                 "expected \"*** Add File:\", \"*** Delete File:\" or \"*** Update File:\", got " + shown_text(line));
  }

  Result<FileOp> parse_update(size_t& i, size_t end) {
    FileOp op;
    op.kind = OpKind::kUpdate;
    const size_t header = i;
    auto path = header_path(i, kUpdate);
    if (!path) return path.error();
    op.path = std::move(*path);
    ++i;
    if (i < end && starts_with(trim(lines_[i]), kMoveTo)) {
      auto dest = header_path(i, kMoveTo);
      if (!dest) return dest.error();
      op.move_to = std::move(*dest);
      ++i;
    }
    while (i < end) {
      if (trim(lines_[i]).empty()) {  // blank lines may separate hunks
        ++i;
        continue;
      }
      if (starts_with(lines_[i], "***")) break;
      auto hunk = parse_hunk(i, end, op.hunks.empty());
      if (!hunk) return hunk.error();
      op.hunks.push_back(std::move(*hunk));
    }
    if (op.hunks.empty()) return error(header, "\"*** Update File: " + op.path + "\" has no hunks");
    return op;
  }

  Result<Hunk> parse_hunk(size_t& i, size_t end, bool first_hunk) {
    Hunk hunk;
    const std::string_view head = rtrim(lines_[i]);
    if (head == "@@") {
      ++i;
    } else if (starts_with(head, "@@ ")) {
      hunk.context = std::string(head.substr(3));
      ++i;
    } else if (!first_hunk) {
      return error(i, "expected a \"@@\" hunk header, got " + shown_text(head));
    }
    const size_t body = i;
    for (; i < end; ++i) {
      const std::string& line = lines_[i];
      if (trim(line) == kEndOfFile) {
        hunk.end_of_file = true;
        ++i;
        break;
      }
      const char tag = line.empty() ? ' ' : line[0];
      const std::string text = line.empty() ? std::string() : line.substr(1);
      if (tag == ' ') {
        hunk.new_from_old.push_back(static_cast<int>(hunk.old_lines.size()));
        hunk.old_lines.push_back(text);
        hunk.new_lines.push_back(text);
      } else if (tag == '-') {
        hunk.old_lines.push_back(text);
      } else if (tag == '+') {
        hunk.new_from_old.push_back(-1);
        hunk.new_lines.push_back(text);
      } else if (i == body) {
        return error(i, "unexpected line in hunk " + shown_text(line) + " (hunk lines start with ' ', '-' or '+')");
      } else {
        break;  // next hunk header or file operation
      }
    }
    if (i == body || (hunk.old_lines.empty() && hunk.new_lines.empty())) return error(body, "empty hunk");
    return hunk;
  }

  std::vector<std::string> lines_;
  size_t first_ = 0;
  size_t last_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Locating and applying hunks

/// Maps typographic punctuation to ASCII so "smart quotes" in a model's patch still match.
std::string normalize_punctuation(std::string_view s) {
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"\u2010", "-"},  {"\u2011", "-"},  {"\u2012", "-"},  {"\u2013", "-"}, {"\u2014", "-"}, {"\u2015", "-"},
      {"\u2212", "-"},  {"\u2018", "'"},  {"\u2019", "'"},  {"\u201A", "'"}, {"\u201B", "'"}, {"\u201C", "\""},
      {"\u201D", "\""}, {"\u201E", "\""}, {"\u201F", "\""}, {"\u00A0", " "}, {"\u2002", " "}, {"\u2003", " "},
      {"\u2009", " "},  {"\u202F", " "},  {"\u3000", " "}};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    bool mapped = false;
    if (static_cast<unsigned char>(s[i]) >= 0x80) {
      for (const auto& [from, to] : kMap) {
        if (s.substr(i, from.size()) == from) {
          out += to;
          i += from.size();
          mapped = true;
          break;
        }
      }
    }
    if (!mapped) out += s[i++];
  }
  return std::string(trim(out));
}

using LineEq = std::function<bool(const std::string&, const std::string&)>;

const std::vector<LineEq>& match_passes() {
  static const std::vector<LineEq> passes = {
      [](const std::string& a, const std::string& b) { return a == b; },
      [](const std::string& a, const std::string& b) { return rtrim(a) == rtrim(b); },
      [](const std::string& a, const std::string& b) { return trim(a) == trim(b); },
      [](const std::string& a, const std::string& b) { return normalize_punctuation(a) == normalize_punctuation(b); },
  };
  return passes;
}

/// First index >= start where `pattern` matches `lines`, trying ever looser passes; with `eof`
/// only the position that ends at the last line is tried.
std::optional<size_t> seek(const std::vector<std::string>& lines, const std::vector<std::string>& pattern, size_t start,
                           bool eof) {
  if (pattern.empty()) return start;
  if (pattern.size() > lines.size()) return std::nullopt;
  const size_t last = lines.size() - pattern.size();
  const size_t from = eof ? last : start;
  for (const auto& eq : match_passes()) {
    for (size_t i = from; i <= last; ++i) {
      bool all = true;
      for (size_t k = 0; all && k < pattern.size(); ++k) all = eq(lines[i + k], pattern[k]);
      if (all) return i;
    }
  }
  return std::nullopt;
}

struct Replacement {
  size_t start;
  size_t old_len;
  std::vector<std::string> new_lines;
};

Error mismatch(std::string_view shown_path, const std::vector<std::string>& expected) {
  constexpr size_t kShownLines = 20;
  std::string msg = "could not find the expected lines in " + std::string(shown_path) + ":";
  for (size_t k = 0; k < expected.size() && k < kShownLines; ++k) msg += "\n" + expected[k];
  if (expected.size() > kShownLines) msg += "\n… (" + std::to_string(expected.size() - kShownLines) + " more lines)";
  return Error{"PATCH_MISMATCH", msg};
}

Result<std::vector<Replacement>> locate(const std::vector<std::string>& lines, const std::vector<Hunk>& hunks,
                                        std::string_view shown_path) {
  std::vector<Replacement> out;
  size_t cursor = 0;
  for (const Hunk& h : hunks) {
    if (h.context) {
      auto at = seek(lines, {*h.context}, cursor, false);
      if (!at) {
        return Error{"PATCH_MISMATCH",
                     "could not find the context " + shown_text("@@ " + *h.context) + " in " + std::string(shown_path)};
      }
      cursor = *at + 1;
    }
    if (h.old_lines.empty()) {  // pure addition: append at the end of the file
      out.push_back({lines.size(), 0, h.new_lines});
      continue;
    }
    std::vector<std::string> pattern = h.old_lines;
    std::vector<std::string> replacement = h.new_lines;
    auto at = seek(lines, pattern, cursor, h.end_of_file);
    if (!at && pattern.back().empty()) {  // a trailing blank context line the file does not have
      pattern.pop_back();
      if (!replacement.empty() && replacement.back().empty()) replacement.pop_back();
      at = seek(lines, pattern, cursor, h.end_of_file);
    }
    if (!at) return mismatch(shown_path, h.old_lines);
    // Context lines keep the file's own text (a loose match must not rewrite their whitespace).
    for (size_t k = 0; k < replacement.size() && k < h.new_from_old.size(); ++k) {
      const int from = h.new_from_old[k];
      if (from >= 0 && static_cast<size_t>(from) < pattern.size())
        replacement[k] = lines[*at + static_cast<size_t>(from)];
    }
    out.push_back({*at, pattern.size(), std::move(replacement)});
    cursor = *at + pattern.size();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Workspace application: stage every change in memory, then write.

class Stage {
 public:
  explicit Stage(fs::path workspace) : workspace_(std::move(workspace)) {}

  Result<WorkspacePath> resolve(const std::string& path, FinalSymlink mode) const {
    return resolve_workspace_path(workspace_, path, mode);
  }

  bool exists(const fs::path& real) const {
    if (auto it = staged_.find(real); it != staged_.end()) return it->second.has_value();
    struct stat st {};
    return ::lstat(real.c_str(), &st) == 0;
  }

  Result<std::string> read(const WorkspacePath& p) const {
    if (auto it = staged_.find(p.real); it != staged_.end()) {
      if (!it->second) return Error{"NOT_FOUND", p.relative + ": file not found (deleted earlier in this patch)"};
      return *it->second;
    }
    auto data = read_file_bounded(p, kMaxEditableFileBytes);
    if (!data) return Error{data.error().code, p.relative + ": " + data.error().message};
    return data;
  }

  void put(const WorkspacePath& p, std::optional<std::string> content) {
    if (!staged_.count(p.real)) order_.push_back(p);
    staged_[p.real] = std::move(content);
  }

  /// Writes (or deletes) every staged path in first-touched order.
  Status commit() const {
    std::vector<std::string> done;
    for (const auto& p : order_) {
      const fs::path& real = p.real;
      const auto& content = staged_.at(real);
      Status st = content ? write_file_atomic(p, *content) : remove_file(p);
      if (!st && !(content == std::nullopt && st.error().code == "NOT_FOUND")) {
        std::string msg = real.string() + ": " + st.error().message;
        if (!done.empty()) {
          msg += " (already applied:";
          for (const auto& d : done) msg += " " + d;
          msg += ")";
        }
        return Error{st.error().code, msg};
      }
      done.push_back(real.lexically_relative(workspace_).string());
    }
    return Ok{};
  }

 private:
  fs::path workspace_;
  std::map<fs::path, std::optional<std::string>> staged_;
  std::vector<WorkspacePath> order_;
};

Result<Change> stage_add(Stage& stage, const FileOp& op) {
  auto p = stage.resolve(op.path, FinalSymlink::kFollow);
  if (!p) return p.error();
  if (stage.exists(p->real)) {
    return Error{"PATCH_CONFLICT", "cannot add " + p->relative +
                                       ": the file already exists (delete it first or use \"*** Update File:\")"};
  }
  stage.put(*p, op.content);
  return Change{'A', p->relative, {}};
}

Result<Change> stage_delete(Stage& stage, const FileOp& op) {
  auto p = stage.resolve(op.path, FinalSymlink::kKeep);
  if (!p) return p.error();
  if (!stage.exists(p->real)) return Error{"NOT_FOUND", "cannot delete " + p->relative + ": file not found"};
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(p->real, ec))) {
    return Error{"NOT_A_FILE", "cannot delete " + p->relative + ": is a directory"};
  }
  stage.put(*p, std::nullopt);
  return Change{'D', p->relative, {}};
}

Result<Change> stage_update(Stage& stage, const FileOp& op) {
  auto src = stage.resolve(op.path, FinalSymlink::kFollow);
  if (!src) return src.error();
  auto original = stage.read(*src);
  if (!original) return original.error();
  auto updated = apply_hunks(*original, op.hunks, src->relative);
  if (!updated) return updated.error();
  if (!op.move_to) {
    stage.put(*src, std::move(*updated));
    return Change{'M', src->relative, {}};
  }
  auto dest = stage.resolve(*op.move_to, FinalSymlink::kFollow);
  if (!dest) return dest.error();
  if (dest->real != src->real && stage.exists(dest->real)) {
    return Error{"PATCH_CONFLICT",
                 "cannot move " + src->relative + " to " + dest->relative + ": the destination already exists"};
  }
  if (dest->real != src->real) stage.put(*src, std::nullopt);
  stage.put(*dest, std::move(*updated));
  return Change{'M', dest->relative, dest->real != src->real ? src->relative : std::string()};
}

}  // namespace

Result<Patch> parse_patch(std::string_view input) { return Parser(split_lines(input)).parse(); }

Result<std::string> apply_hunks(std::string_view original, const std::vector<Hunk>& hunks,
                                std::string_view shown_path) {
  const bool crlf = original.find("\r\n") != std::string_view::npos;
  std::vector<std::string> lines = split_lines(original);
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final newline

  auto replacements = locate(lines, hunks, shown_path);
  if (!replacements) return replacements.error();
  // Apply from the bottom so earlier indices stay valid.
  for (auto it = replacements->rbegin(); it != replacements->rend(); ++it) {
    auto first = lines.begin() + static_cast<std::ptrdiff_t>(it->start);
    lines.erase(first, first + static_cast<std::ptrdiff_t>(it->old_len));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(it->start), it->new_lines.begin(), it->new_lines.end());
  }
  const std::string_view eol = crlf ? "\r\n" : "\n";
  std::string out;
  for (const auto& line : lines) {
    out += line;
    out += eol;
  }
  return out;
}

Result<std::vector<Change>> apply_patch_in_workspace(const fs::path& workspace, const Patch& patch) {
  Stage stage(workspace);
  std::vector<Change> changes;
  for (const FileOp& op : patch.ops) {
    Result<Change> change = op.kind == OpKind::kAdd      ? stage_add(stage, op)
                            : op.kind == OpKind::kDelete ? stage_delete(stage, op)
                                                         : stage_update(stage, op);
    if (!change) return change.error();
    changes.push_back(std::move(*change));
  }
  if (auto st = stage.commit(); !st) return st.error();
  return changes;
}

}  // namespace pincer::tools::patch
