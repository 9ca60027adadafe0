#include "store/background_sync.h"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace pincer::store {
namespace {

struct SyncRequest {
  int fd = -1;  // our own dup, closed after the sync
  std::string what;
};

void sync_and_close(SyncRequest& r) {
  if (::fdatasync(r.fd) != 0) spdlog::error("cannot sync {}: {}", r.what, std::strerror(errno));
  ::close(r.fd);
}

// One queue for the process. Never destroyed (a static's destructor could run after spdlog's):
// the thread, blocked on the condition variable, ends with the process; the gateway drains the
// queue before it exits (wait_for_background_syncs).
class BackgroundSyncQueue {
 public:
  void push(SyncRequest r) {
    std::lock_guard lock(mutex_);
    if (!started_) start();
    queue_.push_back(std::move(r));
    ++asked_;
    wake_.notify_all();
  }

  void wait_for(uint64_t count) {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return done_ >= count; });
  }

  uint64_t asked() {
    std::lock_guard lock(mutex_);
    return asked_;
  }

 private:
  void start() {
    // The thread takes no signals: the gateway's handlers run on the event loop's thread.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread([this] { run(); }).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    started_ = true;
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      SyncRequest r = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      sync_and_close(r);
      lock.lock();
      ++done_;
      done_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_cv_;
  std::deque<SyncRequest> queue_;
  uint64_t asked_ = 0, done_ = 0;
  bool started_ = false;
};

BackgroundSyncQueue& queue() {
  static auto* q = new BackgroundSyncQueue();  // never destroyed: see the class
  return *q;
}

}  // namespace

void sync_in_background(int fd, std::string what) {
  if (fd < 0) return;
  SyncRequest r{::fcntl(fd, F_DUPFD_CLOEXEC, 0), std::move(what)};
  if (r.fd < 0) {  // out of descriptors: sync here rather than not at all
    if (::fdatasync(fd) != 0) spdlog::error("cannot sync {}: {}", r.what, std::strerror(errno));
    return;
  }
  queue().push(std::move(r));
}

void wait_for_background_syncs() { queue().wait_for(queue().asked()); }

}  // namespace pincer::store
