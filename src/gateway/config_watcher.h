// Notices edits of the config file (SPEC CF-2) and of other small files the gateway re-reads
// (cron's jobs.json): inotify on the file's directory wakes the event loop when an entry of that
// name is written, created, renamed over (an editor's save-by-rename) or removed, and `on_change`
// runs once the file has been quiet for `debounce_ms` (OpenClaw: gateway.reload.debounceMs,
// 300 ms) and its metadata (size, mtime, inode) differs from the last report, so a save written
// in several steps is read once. No polling and no CPU while nothing changes. While the directory
// does not exist yet, its parent is watched for it. Only where inotify is unavailable (no
// instances left) it falls back to comparing the metadata every `poll_ms`. A file that
// disappears and comes back is a change. Files pulled in by "$include" are not watched (a known
// limit; edit the top-level file, or restart).
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
  /// `poll_ms`: the metadata check interval of the fallback only (ms, at least 10);
  /// `debounce_ms`: how long the file must be quiet before `on_change` (ms).
  ConfigWatcher(EventLoop& loop, std::filesystem::path file, int64_t poll_ms, int64_t debounce_ms,
                std::function<void()> on_change);
  ~ConfigWatcher();
  ConfigWatcher(const ConfigWatcher&) = delete;
  ConfigWatcher& operator=(const ConfigWatcher&) = delete;

  /// Takes the file's current state as the baseline and starts watching.
  void start();
  void stop();
  /// True when the inotify path is in use (false: the polling fallback, or not started).
  bool uses_inotify() const { return ino_ >= 0; }

 private:
  struct Stamp {
    bool exists = false;
    std::uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp read() const;
  bool start_inotify();
  bool watch_directory();  ///< (re)adds the watch on the file's directory, or on its parent
  void drain_events();
  void debounce();
  void report_if_changed();
  void schedule_poll();  ///< the fallback

  EventLoop& loop_;
  std::filesystem::path file_;
  int64_t poll_ms_, debounce_ms_;
  std::function<void()> on_change_;
  Stamp seen_;
  int ino_ = -1;
  int dir_wd_ = -1;     ///< the watch on file_'s directory
  int parent_wd_ = -1;  ///< the watch on its parent while the directory does not exist
  std::optional<EventLoop::WatchId> fd_watch_;
  std::optional<EventLoop::TimerId> debounce_timer_;
  // The fallback: poll count of the last change not yet reported.
  std::optional<int64_t> quiet_since_;
  int64_t polls_ = 0;
  std::optional<EventLoop::TimerId> poll_timer_;
};

}  // namespace pincer::gateway
