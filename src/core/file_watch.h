// Change stamps of files and directories from inotify(7), for caches that would otherwise stat every
// file they depend on before each use (issue 17: a turn's set-up — bootstrap files, skills — cost ≈ 25
// stats per turn). A cache asks for the stamp of the paths it read, before reading them; while the
// stamp stays the same, nothing at those paths changed and the cached result stands. Checking costs
// one read(2) of the inotify descriptor (EAGAIN when nothing happened), not a stat per path.
//
// No thread, no polling: events queue in the kernel until the next check drains them. inotify
// reports a write when the writing call returns, so a change made before the check is always seen.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

namespace pincer {

/// Watches paths on demand and gives each a version that changes whenever it may have changed.
/// Thread-safe (one mutex). Costs nothing until first used: the inotify descriptor is opened then.
class FileWatch {
 public:
  FileWatch();
  ~FileWatch();
  FileWatch(const FileWatch&) = delete;
  FileWatch& operator=(const FileWatch&) = delete;

  /// The process-wide instance the gateway's caches share.
  static FileWatch& instance();

  /// A stamp over `paths` (absolute; files or directories, existing or not): a number that grows
  /// whenever any of them is created, removed, renamed, written, truncated or has its attributes
  /// changed, or — for a directory — an entry directly inside it does (not deeper), or any
  /// directory above it is renamed, removed or replaced (each is watched by name in its parent).
  /// Paths are registered on first use; a stamp taken before a change is never equal to one
  /// taken after it.
  /// Returns 0 when any path cannot be watched: a symlink on the way (what it resolves to depends
  /// on entries elsewhere; such a path stays unwatched for the life of the process), a relative
  /// path, no inotify, the watch limit reached. The caller must then not cache on it (validate by
  /// other means, e.g. stat).
  uint64_t stamp(std::span<const std::filesystem::path> paths);
  uint64_t stamp(const std::filesystem::path& path) { return stamp(std::span(&path, 1)); }

  /// Paths registered so far, with the directories above them (tests, diagnostics).
  std::size_t watched_paths() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pincer
