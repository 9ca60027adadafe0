#include "gateway/config_watcher.h"

#include <sys/stat.h>

#include <algorithm>

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
  seen_ = read();
  quiet_since_.reset();
  schedule();
}

void ConfigWatcher::stop() {
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
}

void ConfigWatcher::schedule() {
  timer_ = loop_.after(poll_ms_, [this] {
    timer_.reset();
    ++polls_;
    if (Stamp now = read(); !(now == seen_)) {
      seen_ = now;
      quiet_since_ = polls_;  // changed again: wait for quiet from here
    } else if (quiet_since_ && (polls_ - *quiet_since_) * poll_ms_ >= debounce_ms_) {
      quiet_since_.reset();
      schedule();
      on_change_();  // may stop() us; the next poll is already scheduled and cancellable
      return;
    }
    schedule();
  });
}

}  // namespace pincer::gateway
