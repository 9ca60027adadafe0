// libFuzzer target for workspace confinement (src/tools/workspace_path.h, resolve_workspace_path)
// against a real directory tree with symlinks that stay inside, escape (relative, absolute, via
// `..`), loop, dangle inside and outside, and pass through files (issue 22 §2).
//
// Input: byte 0 picks the final-symlink mode; byte 1 picks how the rest is read — as a path built
// from the tree's names, `..`, `.`, missing names and "" (so that the interesting components meet
// often), optionally absolute, or as raw bytes. Checked on every input:
// - nothing crashes or throws; a path with a NUL byte or an empty one is refused;
// - an accepted path is inside the root: `relative` is `real` relative to the root and does not
//   climb, `real` is absolute and lexically normal;
// - the part of `real` that exists has no symlink left (realpath(3) of it is itself — for a kept
//   final link, of its directory) and so is inside the root as the kernel sees it;
// - when the kernel can resolve the whole path (realpath of root/path succeeds), the resolver
//   accepts it exactly when the kernel's answer is inside the root, and (following final links)
//   gives that same answer;
// - an accepted path that exists can be opened from the root one component at a time with
//   O_NOFOLLOW (detail::open_beneath_by_walk).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "tools/workspace_path.h"

namespace {

namespace fs = std::filesystem;
using pincer::tools::FinalSymlink;
using pincer::tools::resolve_workspace_path;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

struct Tree {
  fs::path base, root;
};

/// Built once per process under $TMPDIR; removed at exit.
const Tree& tree() {
  static const Tree t = [] {
    std::string tmpl = (fs::temp_directory_path() / "pincer-wsfuzz-XXXXXX").string();
    check(::mkdtemp(tmpl.data()) != nullptr);
    Tree t{fs::canonical(tmpl), {}};
    t.root = t.base / "ws";
    const fs::path& b = t.base;
    const fs::path& w = t.root;
    fs::create_directories(b / "outside" / "dir");
    fs::create_directories(w / "a" / "b");
    for (const fs::path& f : {b / "outside" / "secret", w / "file", w / "a" / "f"}) {
      FILE* out = std::fopen(f.c_str(), "w");
      check(out != nullptr);
      std::fclose(out);
    }
    const std::pair<const char*, fs::path> links[] = {
        {"in", "a"},                        // relative, inside
        {"in_abs", w / "a" / "b"},          // absolute, inside
        {"up", ".."},                       // the workspace's parent
        {"out", "../outside"},              // relative escape
        {"out_abs", b / "outside"},         // absolute escape
        {"a/back", "../.."},                // escape from a subdirectory
        {"a/self", "."},                    //
        {"a/parent", ".."},                 // back to the root
        {"loop1", "loop2"},                 // a loop
        {"loop2", "loop1"},                 //
        {"dang_in", "a/missing/new"},       // dangling, inside
        {"dang_out", "../outside/new"},     // dangling, outside
        {"chain", "in_abs/../.."},          // through a link, then up: the root
        {"f_link", "file"},                 //
        {"through_file", "file/x"},         // ENOTDIR on the way
        {"ws_alias", "../ws"},              // out and straight back in
        {"a/b/deep_out", "../../../outside/dir"},
    };
    for (const auto& [name, target] : links) fs::create_symlink(target, w / name);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(tree().base, ec);
    });
    return t;
  }();
  return t;
}

constexpr const char* kTokens[] = {"a",   "b",       "f",      "file",    "in",           "in_abs",   "up",
                                   "out", "out_abs", "back",   "self",    "parent",       "loop1",    "dang_in",
                                   "dang_out", "chain", "f_link", "through_file", "ws_alias", "deep_out",
                                   "..",  ".",       "",       "nope",    "secret",       "outside",  "ws",
                                   "dir", "new",     "..",     "nope2",   "~"};
constexpr size_t kTokenCount = sizeof kTokens / sizeof kTokens[0];

/// The longest prefix of absolute, normal `p` that exists (lstat).
fs::path existing_prefix(const fs::path& p) {
  fs::path cur = "/";
  for (const auto& c : p.relative_path()) {
    struct stat st {};
    if (::lstat((cur / c).c_str(), &st) != 0) break;
    cur /= c;
  }
  return cur;
}

std::optional<fs::path> kernel_realpath(const fs::path& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  if (r == nullptr) return std::nullopt;
  fs::path out(r);
  std::free(r);
  return out;
}

bool inside(const fs::path& p, const fs::path& root) {
  const std::string s = p.string(), r = root.string();
  return s == r || (s.size() > r.size() && s.compare(0, r.size(), r) == 0 && s[r.size()] == '/');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > 512) return 0;
  const Tree& t = tree();
  const FinalSymlink mode = (data[0] & 1) != 0 ? FinalSymlink::kKeep : FinalSymlink::kFollow;
  std::string path;
  if ((data[1] & 1) != 0) {
    path.assign(reinterpret_cast<const char*>(data + 2), size - 2);
  } else {
    if ((data[1] & 2) != 0) path = t.root.string() + "/";
    for (size_t i = 2; i < size; ++i) {
      if (i > 2) path += '/';
      path += kTokens[data[i] % kTokenCount];
    }
  }

  auto r = resolve_workspace_path(t.root, path, mode);
  if (path.empty() || path.find('\0') != std::string::npos) {
    check(!r.ok() && r.error().code == "PATH_INVALID");
    return 0;
  }
  std::optional<fs::path> whole;  // the kernel's resolution of the whole path, when it has one
  const fs::path joined = fs::path(path).is_absolute() ? fs::path(path) : t.root / path;
  if (mode == FinalSymlink::kFollow) whole = kernel_realpath(joined);

  if (!r.ok()) {
    check(!r.error().code.empty() && !r.error().message.empty());
    // The kernel agrees it leads out (or cannot tell). Hop limits are counted slightly
    // differently by glibc's realpath, so a loop verdict is not compared.
    check(!whole || !inside(*whole, t.root) || r.error().code == "PATH_SYMLINK_LOOP");
    return 0;
  }
  const fs::path& real = r->real;
  check(real.is_absolute() && real == real.lexically_normal());
  check(inside(real, t.root));
  check(r->relative == real.lexically_relative(t.root).string() || (real == t.root && r->relative == "."));
  check(*fs::path(r->relative).begin() != "..");

  // No symlink left in the part that exists (a kept final link: in its directory).
  struct stat st {};
  fs::path settled = existing_prefix(real);
  if (mode == FinalSymlink::kKeep && settled == real && ::lstat(real.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    settled = real.parent_path();
  }
  if (auto k = kernel_realpath(settled)) {
    check(*k == settled);
    check(inside(*k, t.root));
  }
  if (whole) check(*whole == real);
  // When it exists, the no-symlink walk (the fallback without openat2) reaches it too.
  if (::lstat(real.c_str(), &st) == 0) {
    const int fd = pincer::tools::detail::open_beneath_by_walk(t.root, r->relative, O_PATH | O_NOFOLLOW, 0);
    check(fd >= 0);
    ::close(fd);
  }
  return 0;
}
