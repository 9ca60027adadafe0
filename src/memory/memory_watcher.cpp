#include "memory/memory_watcher.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "memory/memory_index.h"

namespace pincer::memory {
namespace fs = std::filesystem;

namespace {
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
bool relevant_top(const std::string& name) {
  return name == "MEMORY.md" || name == "memory.md" || name == "USER.md" || name == "memory";
}
}  // namespace

struct MemoryWatcher::Impl {
  int ino = -1;
  int wake = -1;
  std::thread thread;
  std::mutex mu;
  bool stopping = false;
  std::vector<std::shared_ptr<MemoryIndex>> pending_add;
  std::vector<const MemoryIndex*> pending_remove;
  std::set<const MemoryIndex*> pending_embed;
  // Thread-owned:
  struct Watch {
    MemoryIndex* index;
    bool top;  // the workspace itself: only memory names matter
  };
  std::map<int, Watch> watches;
  std::map<MemoryIndex*, int64_t> due;  // debounce deadline per index
  std::map<const MemoryIndex*, std::shared_ptr<MemoryIndex>> indexes;  // the watched ones, owned

  /// Forgets `idx`: its watches, its debounce, our reference (the last one frees it).
  void drop(const MemoryIndex* idx) {
    for (auto it = watches.begin(); it != watches.end();) {
      if (it->second.index == idx) {
        (void)inotify_rm_watch(ino, it->first);
        it = watches.erase(it);
      } else {
        ++it;
      }
    }
    due.erase(const_cast<MemoryIndex*>(idx));
    indexes.erase(idx);
  }

  void add_dir(MemoryIndex* idx, const fs::path& dir, bool top) {
    const uint32_t mask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
                          IN_ONLYDIR | (top ? 0u : IN_MODIFY);
    int wd = inotify_add_watch(ino, dir.c_str(), mask);
    if (wd >= 0) watches[wd] = Watch{idx, top};
  }

  void add_tree(MemoryIndex* idx) {
    const fs::path& ws = idx->workspace();
    add_dir(idx, ws, true);
    std::vector<fs::path> roots = {ws / "memory"};
    for (const auto& p : idx->settings().extra_paths) {
      std::error_code ec;
      roots.push_back(fs::is_directory(p, ec) ? p : p.parent_path());
    }
    for (const auto& root : roots) {
      std::error_code ec;
      if (!fs::is_directory(root, ec)) continue;
      add_dir(idx, root, false);
      for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end; it.increment(ec)) {
        if (it->is_directory(ec) && !it->is_symlink(ec)) add_dir(idx, it->path(), false);
      }
    }
  }

  void run() {
    char buf[16 * 1024] __attribute__((aligned(alignof(struct inotify_event))));
    for (;;) {
      {
        std::lock_guard lock(mu);
        if (stopping) return;
        for (auto& idx : pending_add) {
          MemoryIndex* raw = idx.get();
          if (indexes.emplace(raw, std::move(idx)).second) {
            add_tree(raw);
            pending_embed.insert(raw);
            // A file changed between the index's last sync and these watches gives no event:
            // one sync after the debounce catches it.
            raw->mark_dirty();
            due[raw] = steady_ms() + raw->settings().watch_debounce_ms;
          }
        }
        pending_add.clear();
        for (const MemoryIndex* idx : pending_remove) {
          pending_embed.erase(idx);
          drop(idx);
        }
        pending_remove.clear();
      }
      // Embeddings of indexes that asked (outside the lock: network). Each is held while it runs.
      std::vector<std::shared_ptr<MemoryIndex>> embed;
      {
        std::lock_guard lock(mu);
        for (const MemoryIndex* raw : pending_embed) {
          if (auto it = indexes.find(raw); it != indexes.end()) embed.push_back(it->second);
        }
        pending_embed.clear();
      }
      for (const auto& idx : embed) {
        if (!idx->settings().has_embeddings()) continue;
        if (auto s = idx->sync(false); !s) spdlog::warn("memory index of agent {}: {}", idx->agent_id(), s.error().message);
        if (auto e = idx->embed_pending(); !e) {
          spdlog::warn("memory embeddings of agent {}: {}", idx->agent_id(), e.error().message);
        }
      }
      int timeout = -1;
      const int64_t now = steady_ms();
      for (const auto& [idx, at] : due) {
        const int64_t left = std::max<int64_t>(0, at - now);
        timeout = timeout < 0 ? static_cast<int>(left) : std::min(timeout, static_cast<int>(left));
      }
      pollfd fds[2] = {{ino, POLLIN, 0}, {wake, POLLIN, 0}};
      int n = ::poll(fds, 2, timeout);
      if (n < 0 && errno != EINTR) return;
      if (fds[1].revents & POLLIN) {
        uint64_t v;
        (void)!::read(wake, &v, sizeof v);
      }
      if (fds[0].revents & POLLIN) {
        ssize_t len = ::read(ino, buf, sizeof buf);
        for (ssize_t off = 0; len > 0 && off < len;) {
          auto* ev = reinterpret_cast<inotify_event*>(buf + off);
          off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
          auto w = watches.find(ev->wd);
          if (w == watches.end()) continue;
          const std::string name = ev->len ? std::string(ev->name) : std::string();
          if (ev->mask & IN_IGNORED) {
            watches.erase(w);
            continue;
          }
          if (w->second.top && !relevant_top(name)) continue;
          MemoryIndex* idx = w->second.index;
          idx->mark_dirty();
          if (!due.count(idx)) due[idx] = steady_ms() + idx->settings().watch_debounce_ms;
          if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && (ev->mask & IN_ISDIR)) add_tree(idx);
        }
      }
      const int64_t t = steady_ms();
      for (auto it = due.begin(); it != due.end();) {
        if (it->second > t) {
          ++it;
          continue;
        }
        MemoryIndex* idx = it->first;
        it = due.erase(it);
        if (auto s = idx->sync(false); !s) spdlog::warn("memory index of agent {}: {}", idx->agent_id(), s.error().message);
        if (idx->settings().has_embeddings()) {
          if (auto e = idx->embed_pending(); !e) spdlog::warn("memory embeddings of agent {}: {}", idx->agent_id(), e.error().message);
        }
      }
    }
  }

  void poke() {
    uint64_t one = 1;
    (void)!::write(wake, &one, sizeof one);
  }
};

MemoryWatcher::MemoryWatcher() : impl_(std::make_unique<Impl>()) {}

MemoryWatcher::~MemoryWatcher() {
  if (impl_->thread.joinable()) {
    {
      std::lock_guard lock(impl_->mu);
      impl_->stopping = true;
    }
    impl_->poke();
    impl_->thread.join();
  }
  if (impl_->ino >= 0) ::close(impl_->ino);
  if (impl_->wake >= 0) ::close(impl_->wake);
}

void MemoryWatcher::watch(std::shared_ptr<MemoryIndex> index) {
  std::lock_guard lock(impl_->mu);
  if (!impl_->thread.joinable()) {
    impl_->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    impl_->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (impl_->ino < 0 || impl_->wake < 0) {
      spdlog::warn("memory: cannot watch files (inotify: {}); indexes refresh on each search", std::strerror(errno));
      return;
    }
    impl_->thread = std::thread([this] { impl_->run(); });
  }
  impl_->pending_add.push_back(std::move(index));
  impl_->poke();
}

void MemoryWatcher::unwatch(const MemoryIndex* index) {
  std::lock_guard lock(impl_->mu);
  if (!impl_->thread.joinable()) return;
  impl_->pending_remove.push_back(index);
  impl_->poke();
}

void MemoryWatcher::nudge(const MemoryIndex* index) {
  std::lock_guard lock(impl_->mu);
  if (!impl_->thread.joinable()) return;
  impl_->pending_embed.insert(index);
  impl_->poke();
}

}  // namespace pincer::memory
