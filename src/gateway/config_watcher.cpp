#include "gateway/config_watcher.h"

#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pincer::gateway {

ConfigWatcher::ConfigWatcher(EventLoop& loop, std::filesystem::path file, int64_t poll_ms, int64_t debounce_ms,
                             std::function<void()> on_change)
    : loop_(loop),
      file_(std::move(file)),
      poll_ms_(std::max<int64_t>(10, poll_ms)),
      debounce_ms_(std::max<int64_t>(0, debounce_ms)),
      on_change_(std::move(on_change)) {}

ConfigWatcher::~ConfigWatcher() { stop(); }

ConfigWatcher::Stamp ConfigWatcher::read() const {
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) return {};
  return {true, static_cast<std::uintmax_t>(st.st_size), int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
          static_cast<uint64_t>(st.st_ino)};
}

void ConfigWatcher::start() {
  stop();
  seen_ = read();
  if (start_inotify()) return;
  quiet_since_.reset();
  schedule_poll();
}

void ConfigWatcher::stop() {
  if (fd_watch_) loop_.unwatch(*fd_watch_);
  fd_watch_.reset();
  if (ino_ >= 0) ::close(ino_);
  ino_ = dir_wd_ = parent_wd_ = -1;
  if (debounce_timer_) loop_.cancel(*debounce_timer_);
  debounce_timer_.reset();
  if (poll_timer_) loop_.cancel(*poll_timer_);
  poll_timer_.reset();
}

bool ConfigWatcher::start_inotify() {
  ino_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (ino_ < 0) {
    spdlog::warn("cannot watch {} (inotify: {}); checking it every {} ms instead", file_.string(), std::strerror(errno),
                 poll_ms_);
    return false;
  }
  if (!watch_directory()) {
    ::close(ino_);
    ino_ = -1;
    return false;
  }
  fd_watch_ = loop_.watch_readable(ino_, [this] { drain_events(); });
  return true;
}

bool ConfigWatcher::watch_directory() {
  if (dir_wd_ >= 0) (void)inotify_rm_watch(ino_, dir_wd_);
  if (parent_wd_ >= 0) (void)inotify_rm_watch(ino_, parent_wd_);
  dir_wd_ = parent_wd_ = -1;
  const std::filesystem::path dir = file_.parent_path().empty() ? "." : file_.parent_path();
  // No IN_MODIFY: it fires on every write(2) to any file of the directory (the state dir holds
  // other files, and a user's log there woke the loop per line); a config edit is complete at
  // its close (IN_CLOSE_WRITE) or rename (IN_MOVED_TO) anyway.
  constexpr uint32_t kEntry = IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
  dir_wd_ = inotify_add_watch(ino_, dir.c_str(), kEntry);
  if (dir_wd_ >= 0) return true;
  if (errno == ENOENT) {
    parent_wd_ = inotify_add_watch(ino_, dir.parent_path().c_str(), IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    if (parent_wd_ >= 0) return true;
  }
  spdlog::warn("cannot watch {} (inotify on {}: {}); checking it every {} ms instead", file_.string(), dir.string(),
               std::strerror(errno), poll_ms_);
  return false;
}

void ConfigWatcher::drain_events() {
  alignas(inotify_event) char buf[4096];
  const std::string name = file_.filename().string();
  const std::string dir_name = file_.parent_path().filename().string();
  bool touched = false, rewatch = false;
  for (;;) {
    const ssize_t len = ::read(ino_, buf, sizeof buf);
    if (len <= 0) break;  // EAGAIN: drained
    for (ssize_t off = 0; off < len;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      const std::string entry = ev->len ? std::string(ev->name) : std::string();
      if (ev->wd == dir_wd_) {
        if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
          rewatch = touched = true;  // the directory itself went away
        } else if (entry == name) {
          touched = true;
        }
      } else if (ev->wd == parent_wd_ && entry == dir_name) {
        rewatch = touched = true;  // the directory appeared (perhaps with the file in it)
      }
    }
  }
  if (rewatch && !watch_directory()) {
    stop();
    quiet_since_.reset();
    schedule_poll();
  }
  if (touched) debounce();
}

void ConfigWatcher::debounce() {
  if (debounce_timer_) loop_.cancel(*debounce_timer_);
  debounce_timer_ = loop_.after(debounce_ms_, [this] {
    debounce_timer_.reset();
    report_if_changed();
  });
}

void ConfigWatcher::report_if_changed() {
  if (Stamp now = read(); !(now == seen_)) {
    seen_ = now;
    on_change_();  // may stop() us
  }
}

void ConfigWatcher::schedule_poll() {
  poll_timer_ = loop_.after(poll_ms_, [this] {
    poll_timer_.reset();
    ++polls_;
    if (Stamp now = read(); !(now == seen_)) {
      seen_ = now;
      quiet_since_ = polls_;  // changed again: wait for quiet from here
    } else if (quiet_since_ && (polls_ - *quiet_since_) * poll_ms_ >= debounce_ms_) {
      quiet_since_.reset();
      schedule_poll();
      on_change_();  // may stop() us; the next poll is already scheduled and cancellable
      return;
    }
    schedule_poll();
  });
}

}  // namespace pincer::gateway
