// Notices edits of the config file (SPEC CF-2): polls its metadata (size, mtime, inode — an
// editor's save-by-rename changes the inode) every `poll_ms`, and calls `on_change` once the file
// has been quiet for `debounce_ms` after a change (OpenClaw: gateway.reload.debounceMs, 300 ms), so
// a save written in several steps is read once. A file that disappears and comes back is a change.
// Files pulled in by "$include" are not watched (a known limit; edit the top-level file, or
// restart).
//
// Loop affinity: event-loop thread only; `on_change` runs on it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "core/event_loop.h"

namespace pincer::gateway {

class ConfigWatcher {
 public:
  ConfigWatcher(EventLoop& loop, std::filesystem::path file, int64_t poll_ms, int64_t debounce_ms,
                std::function<void()> on_change);
  ~ConfigWatcher();

  /// Takes the file's current state as the baseline and starts polling.
  void start();
  void stop();

 private:
  struct Stamp {
    bool exists = false;
    std::uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp read() const;
  void schedule();

  EventLoop& loop_;
  std::filesystem::path file_;
  int64_t poll_ms_, debounce_ms_;
  std::function<void()> on_change_;
  Stamp seen_;
  std::optional<int64_t> quiet_since_;  ///< poll count of the last change not yet reported
  int64_t polls_ = 0;
  std::optional<EventLoop::TimerId> timer_;
};

}  // namespace pincer::gateway
