#include "tools/workspace_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <optional>
#include <vector>

namespace pincer::tools {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxSymlinkHops = 40;  // Linux's MAXSYMLINKS

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// Pushes the components of `p` (after any root) to the front of `pending`, keeping their order.
void prepend_components(std::deque<std::string>& pending, const fs::path& p) {
  std::vector<std::string> parts;
  for (const auto& c : p.relative_path()) parts.push_back(c.string());
  pending.insert(pending.begin(), parts.begin(), parts.end());
}

Result<std::string> read_link(const fs::path& link) {
  std::string buf(256, '\0');
  for (;;) {
    ssize_t n = ::readlink(link.c_str(), buf.data(), buf.size());
    if (n < 0) return Error{"PATH_INVALID", "cannot read symlink " + link.string()};
    if (static_cast<size_t>(n) < buf.size()) return buf.substr(0, static_cast<size_t>(n));
    buf.resize(buf.size() * 2);
  }
}

/// Walks `start` component by component like realpath(3); components from the first missing one
/// on are appended lexically (`..` still pops). See the header for `final_symlink`.
Result<fs::path> resolve_like_realpath(const fs::path& start, FinalSymlink final_symlink, std::string_view shown) {
  std::deque<std::string> pending;
  prepend_components(pending, start);
  fs::path cur = "/";
  bool missing = false;
  int hops = 0;
  while (!pending.empty()) {
    std::string comp = std::move(pending.front());
    pending.pop_front();
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      cur = cur.parent_path();
      continue;
    }
    fs::path next = cur / comp;
    struct stat st {};
    if (missing || ::lstat(next.c_str(), &st) != 0) {
      missing = true;  // ENOENT/ENOTDIR: nothing below can be a symlink yet
      cur = std::move(next);
      continue;
    }
    const bool is_final = pending.empty();
    if (S_ISLNK(st.st_mode) && !(is_final && final_symlink == FinalSymlink::kKeep)) {
      if (++hops > kMaxSymlinkHops) {
        return Error{"PATH_SYMLINK_LOOP", "path " + in_quotes(shown) + " has too many levels of symbolic links"};
      }
      auto target = read_link(next);
      if (!target) return target.error();
      fs::path t(*target);
      if (t.is_absolute()) cur = "/";
      prepend_components(pending, t);
      continue;
    }
    cur = std::move(next);
  }
  return cur;
}

/// `p` relative to `root` when `p` is `root` or below it.
std::optional<std::string> relative_inside(const fs::path& p, const fs::path& root) {
  fs::path rel = p.lexically_relative(root);
  if (rel.empty()) return std::nullopt;
  auto first = rel.begin();
  if (first != rel.end() && *first == "..") return std::nullopt;
  return rel.string();
}

}  // namespace

Result<WorkspacePath> resolve_workspace_path(const fs::path& workspace, std::string_view user_path,
                                             FinalSymlink final_symlink) {
  if (user_path.empty()) return Error{"PATH_INVALID", "path must not be empty"};
  if (user_path.find('\0') != std::string_view::npos) {
    return Error{"PATH_INVALID", "path must not contain a NUL byte"};
  }
  std::error_code ec;
  const fs::path root = fs::canonical(workspace, ec);
  if (ec) return Error{"WORKSPACE_MISSING", "workspace " + workspace.string() + " is not accessible: " + ec.message()};

  const fs::path given{std::string(user_path)};
  const fs::path start = given.is_absolute() ? given : root / given;
  auto real = resolve_like_realpath(start, final_symlink, user_path);
  if (!real) return real.error();
  auto rel = relative_inside(*real, root);
  if (!rel) return Error{"PATH_OUTSIDE_WORKSPACE", "path " + in_quotes(user_path) + " is outside the workspace"};
  return WorkspacePath{std::move(*real), std::move(*rel)};
}

}  // namespace pincer::tools
