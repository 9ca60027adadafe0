#include "tools/workspace_path.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
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

/// Where the walk ended: the resolved path, and how many trailing components of it do not exist.
struct Walk {
  fs::path real;
  int missing = 0;
  bool kept_link = false;  ///< the final component is a symlink kept under FinalSymlink::kKeep
};

/// Walks `start` component by component like realpath(3). From the first component that does not
/// exist on, components are appended as given (nothing below a missing directory can be a
/// symlink), but a `..` pops them again, and once it is back at an existing directory every later
/// component is resolved again. See the header for `final_symlink`.
Result<Walk> resolve_like_realpath(const fs::path& start, FinalSymlink final_symlink, std::string_view shown) {
  std::deque<std::string> pending;
  prepend_components(pending, start);
  Walk w;
  w.real = "/";
  int hops = 0;
  while (!pending.empty()) {
    std::string comp = std::move(pending.front());
    pending.pop_front();
    if (comp.empty() || comp == ".") continue;
    w.kept_link = false;
    if (comp == "..") {
      if (w.missing > 0) --w.missing;
      w.real = w.real.parent_path();
      continue;
    }
    fs::path next = w.real / comp;
    struct stat st {};
    if (w.missing > 0 || ::lstat(next.c_str(), &st) != 0) {
      ++w.missing;  // ENOENT/ENOTDIR/EACCES: nothing below can be a symlink yet
      w.real = std::move(next);
      continue;
    }
    const bool is_final = pending.empty();
    if (S_ISLNK(st.st_mode)) {
      if (is_final && final_symlink == FinalSymlink::kKeep) {
        w.kept_link = true;
        w.real = std::move(next);
        continue;
      }
      if (++hops > kMaxSymlinkHops) {
        return Error{"PATH_SYMLINK_LOOP", "path " + in_quotes(shown) + " has too many levels of symbolic links"};
      }
      auto target = read_link(next);
      if (!target) return target.error();
      fs::path t(*target);
      if (t.is_absolute()) w.real = "/";
      prepend_components(pending, t);
      continue;
    }
    w.real = std::move(next);
  }
  return w;
}

long openat2_raw(int dirfd, const char* path, int flags, mode_t mode, uint64_t resolve) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
  how.resolve = resolve;
  return ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

constexpr uint64_t kBeneathNoLinks = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

/// The kernel's view of `rel` (relative to `root`, lexically normal, not climbing): its longest
/// prefix that exists (found by lstat, independently of the walk's own bookkeeping) must be
/// reachable from the root without a symlink and without leaving it — a trailing symlink only
/// under `keep_final_link`. False on ELOOP/EXDEV; true when the kernel cannot tell (ENOSYS: no
/// openat2; ENOENT: the part vanished meanwhile; …).
bool kernel_confirms_beneath(const fs::path& root, const fs::path& rel, bool keep_final_link) {
  fs::path existing;
  for (const auto& c : rel) {
    if (c.empty() || c == ".") continue;
    struct stat st {};
    if (::lstat((root / existing / c).c_str(), &st) != 0) break;
    existing /= c;
  }
  const int nofollow = keep_final_link && existing == rel ? O_NOFOLLOW : 0;
  const int fd = detail::open_beneath(root, existing, O_PATH | nofollow, 0);
  if (fd >= 0) {
    ::close(fd);
    return true;
  }
  return errno != ELOOP && errno != EXDEV;
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
  auto walk = resolve_like_realpath(start, final_symlink, user_path);
  if (!walk) return walk.error();
  const Error outside{"PATH_OUTSIDE_WORKSPACE", "path " + in_quotes(user_path) + " is outside the workspace"};
  auto rel = relative_inside(walk->real, root);
  if (!rel) return outside;
  if (!kernel_confirms_beneath(root, *rel, walk->kept_link)) return outside;
  return WorkspacePath{std::move(walk->real), std::move(*rel), root};
}

namespace shared_folder_detail {  // named: the unity build joins several files into one unit

/// The components of `p` as written, "." and empty ones skipped.
std::vector<std::string> written_components(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p.relative_path()) {
    const std::string part = c.string();
    if (!part.empty() && part != ".") out.push_back(part);
  }
  return out;
}

/// The rest of `path` after `prefix` ("" for the prefix itself), or nullopt when `prefix` is not a
/// whole-component prefix of `path`.
std::optional<std::string> rest_after(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
  if (prefix.size() > path.size() || !std::equal(prefix.begin(), prefix.end(), path.begin())) return std::nullopt;
  std::string rest;
  for (size_t i = prefix.size(); i < path.size(); ++i) rest += (rest.empty() ? "" : "/") + path[i];
  return rest;
}

}  // namespace shared_folder_detail

std::optional<Result<WorkspacePath>> resolve_shared_folder_path(const std::vector<SharedFolder>& folders,
                                                                std::string_view user_path) {
  if (user_path.empty() || user_path.front() != '/' || user_path.find('\0') != std::string_view::npos) return std::nullopt;
  using shared_folder_detail::rest_after;
  using shared_folder_detail::written_components;
  const auto parts = written_components(fs::path(std::string(user_path)));
  for (const auto& folder : folders) {
    // The mount point first (what the model sees inside the sandbox), then the host path.
    auto rest = rest_after(parts, written_components(folder.target));
    if (!rest) rest = rest_after(parts, written_components(folder.source));
    if (!rest) continue;
    auto p = resolve_workspace_path(folder.source, rest->empty() ? std::string_view(".") : std::string_view(*rest));
    if (!p && p.error().code == "PATH_OUTSIDE_WORKSPACE") {
      return Result<WorkspacePath>(Error{"PATH_OUTSIDE_WORKSPACE", "path " + in_quotes(user_path) + " leaves the shared folder " +
                                                                         folder.source.string() + " (" + folder.config_path + ")"});
    }
    if (!p && p.error().code == "WORKSPACE_MISSING") {
      return Result<WorkspacePath>(Error{"WORKSPACE_MISSING", "the shared folder " + folder.source.string() + " (" +
                                                                  folder.config_path + ") is not accessible"});
    }
    return p;
  }
  return std::nullopt;
}

int open_in_workspace(const WorkspacePath& p, int flags, mode_t mode) {
  return detail::open_beneath(p.root, p.relative, flags, mode);
}

namespace detail {

int open_beneath(const fs::path& root, const fs::path& rel, int flags, mode_t mode) {
  const int root_fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return -1;
  const std::string path = rel.empty() ? "." : rel.string();
  const long fd = openat2_raw(root_fd, path.c_str(), flags | O_CLOEXEC, mode, kBeneathNoLinks);
  int err = errno;
  ::close(root_fd);
  if (fd >= 0 || (err != ENOSYS && err != EPERM)) {  // EPERM: a seccomp filter that denies openat2
    errno = err;
    return static_cast<int>(fd);
  }
  return open_beneath_by_walk(root, rel, flags, mode);
}

int open_beneath_by_walk(const fs::path& root, const fs::path& rel, int flags, mode_t mode) {
  std::vector<std::string> parts;
  for (const auto& c : rel) {
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      errno = EXDEV;  // resolved paths never climb; refuse rather than track the depth
      return -1;
    }
    parts.push_back(c.string());
  }
  int fd = ::open(root.c_str(), parts.empty() ? (flags | O_CLOEXEC | O_DIRECTORY) : (O_PATH | O_DIRECTORY | O_CLOEXEC),
                  mode);
  for (size_t i = 0; fd >= 0 && i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    // O_NOFOLLOW on every step: a directory that is a symlink fails (ENOTDIR with O_DIRECTORY,
    // ELOOP otherwise); the final one follows nothing either.
    const int next = last ? ::openat(fd, parts[i].c_str(), flags | O_CLOEXEC | O_NOFOLLOW, mode)
                          : ::openat(fd, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    ::close(fd);
    fd = next;
    if (fd < 0) errno = err == ENOTDIR && !last ? ELOOP : err;
  }
  return fd;
}

}  // namespace detail

}  // namespace pincer::tools
