// Keeps memory indexes fresh while the gateway runs (SPEC MM-4): inotify on each agent's memory
// files, a debounce (memory.search.sync.watchDebounceMs, 1.5 s), then sync + embeddings on this
// watcher's own thread. No polling: the thread sleeps in poll() until a file event arrives or a
// debounce expires. Nothing starts until the first index is watched.
//
// Threading: watch() and the destructor from any thread; the callbacks run on the watcher thread.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pincer::memory {

class MemoryIndex;

class MemoryWatcher {
 public:
  MemoryWatcher();
  ~MemoryWatcher();  ///< stops and joins the thread
  MemoryWatcher(const MemoryWatcher&) = delete;
  MemoryWatcher& operator=(const MemoryWatcher&) = delete;

  /// Watches `index`'s workspace memory files and extra paths; re-syncs it after changes, and
  /// embeds pending chunks (once now, then after each change). The watcher shares ownership of
  /// `index` until unwatch().
  void watch(std::shared_ptr<MemoryIndex> index);

  /// Stops watching `index` (its inotify watches are removed, pending work dropped) and lets go of
  /// it: the index is freed once no search holds it either. Returns at once; the watcher thread
  /// drops its reference on its next wake-up (it is woken now).
  void unwatch(const MemoryIndex* index);

  /// Asks the thread to embed pending chunks of `index` soon (after a sync done elsewhere). Ignored
  /// for an index that is not watched.
  void nudge(const MemoryIndex* index);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pincer::memory
