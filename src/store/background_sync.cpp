#include "store/background_sync.h"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace pincer::store {
namespace {

struct SyncRequest {
  int fd = -1;  // our own dup, closed after the sync
  std::string what;
  dev_t dev = 0;  // the file, to merge a later request for it while this one waits
  ino_t ino = 0;
};

bool sync_logged(int fd, const std::string& what) {
  if (::fdatasync(fd) == 0) return true;
  spdlog::error("cannot sync {}: {}", what, std::strerror(errno));
  return false;
}

void sync_and_close(SyncRequest& r) {
  sync_logged(r.fd, r.what);
  ::close(r.fd);
}

// One queue for the process, served by up to kSyncWorkers threads. Concurrent fdatasyncs are
// what a file system batches into one commit; one thread taking them in turn makes each wait for
// the commits of the ones before it (with other programs writing, a commit took ≈ 3.5 ms on this
// machine's ext4). Never destroyed (a static's destructor could run after spdlog's):
// the threads, blocked on the condition variable, end with the process; the gateway drains the
// queue before it exits (wait_for_background_syncs).
class BackgroundSyncQueue {
 public:
  static constexpr int kSyncWorkers = 3;

  /// Queues a sync of `fd`'s file — or, when one of that file is queued and not started yet,
  /// merges into it (one fdatasync covers every write made before it starts): the queue holds
  /// at most one request per file, however slow the disk.
  void push(int fd, std::string what) {
    struct stat st {};
    const bool known = ::fstat(fd, &st) == 0;
    std::unique_lock lock(mutex_);
    for (auto& queued : queue_) {
      if (known && queued.dev == st.st_dev && queued.ino == st.st_ino) return;
    }
    SyncRequest r{::fcntl(fd, F_DUPFD_CLOEXEC, 0), std::move(what), known ? st.st_dev : 0, known ? st.st_ino : 0};
    if (r.fd < 0) {  // out of descriptors: sync here rather than not at all
      lock.unlock();
      sync_logged(fd, r.what);
      return;
    }
    queue_.push_back(std::move(r));
    if (idle_ == 0 && workers_ < kSyncWorkers) start();
    wake_.notify_one();
  }

  /// Until nothing is queued or running (the callers stop queueing before they wait).
  void wait_idle() {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
  }

 private:
  void start() {
    // The threads take no signals: the gateway's handlers run on the event loop's thread.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread([this] { run(); }).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ++workers_;
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      wake_.wait(lock, [&] { return !queue_.empty(); });
      --idle_;
      SyncRequest r = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
      lock.unlock();
      sync_and_close(r);
      lock.lock();
      --running_;
      done_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_cv_;
  std::deque<SyncRequest> queue_;
  int workers_ = 0, idle_ = 0, running_ = 0;
};

BackgroundSyncQueue& queue() {
  static auto* q = new BackgroundSyncQueue();  // never destroyed: see the class
  return *q;
}

}  // namespace

void sync_in_background(int fd, std::string what) {
  if (fd < 0) return;
  queue().push(fd, std::move(what));
}

void wait_for_background_syncs() { queue().wait_idle(); }

bool sync_needed(const std::filesystem::path& file) {
  constexpr long kTmpfsMagic = 0x01021994, kRamfsMagic = static_cast<long>(0x858458f6);  // linux/magic.h
  static std::mutex mutex;
  static std::map<std::string, bool> by_dir;
  const std::string dir = file.parent_path().string();
  std::lock_guard lock(mutex);
  if (auto it = by_dir.find(dir); it != by_dir.end()) return it->second;
  struct statfs st {};
  const bool needed = ::statfs(dir.empty() ? "." : dir.c_str(), &st) != 0 ||
                      (static_cast<long>(st.f_type) != kTmpfsMagic && static_cast<long>(st.f_type) != kRamfsMagic);
  if (by_dir.size() < 1024) by_dir.emplace(dir, needed);
  return needed;
}

}  // namespace pincer::store
