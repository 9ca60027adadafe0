// inotify-backed change stamps. See the header.
#include "core/file_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace pincer {
namespace fs = std::filesystem;

namespace {
// Everything that can change what a read of the path returns. The same mask for every watch:
// inotify_add_watch on an inode already watched replaces that watch's mask.
constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB |
                           IN_DELETE_SELF | IN_MOVE_SELF;
// Far below the kernel's per-user watch limit (fs.inotify.max_user_watches, 8192 at the least);
// past it, stamp() answers 0 and callers revalidate as they would without inotify.
constexpr std::size_t kMaxPaths = 2048;
}  // namespace

struct FileWatch::State {
  struct Entry {
    fs::path path;
    std::string name;       // the last component, as the parent's events name it
    int parent_wd = -1;     // the directory holding it (events carry `name`)
    int self_wd = -1;       // the path itself (followed if a symlink); -1 while it does not exist
    bool registered = false;
    bool tried = false;         // registration was attempted once directly
    bool recheck_self = false;  // its parent saw it created/replaced: watch the new inode
    uint64_t version = 0;
    uint64_t parent_seen = 0;   // while the parent is missing: the parent's version when last tried
  };

  mutable std::mutex mutex;
  int fd = -1;
  bool unavailable = false;
  uint64_t counter = 0;
  std::unordered_map<std::string, Entry> entries;           // by path (node-based: pointers stay valid)
  std::unordered_map<int, std::vector<Entry*>> as_parent;   // wd → entries inside that directory
  std::unordered_map<int, std::vector<Entry*>> as_self;     // wd → entries watched themselves

  ~State() {
    if (fd >= 0) ::close(fd);
  }

  bool open() {
    if (fd >= 0) return true;
    if (unavailable) return false;
    fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    unavailable = fd < 0;
    return fd >= 0;
  }

  void bump(Entry& e) { e.version = ++counter; }

  static void forget(std::unordered_map<int, std::vector<Entry*>>& map, int wd, const Entry* e) {
    auto it = map.find(wd);
    if (it == map.end()) return;
    std::erase(it->second, e);
    if (it->second.empty()) map.erase(it);
  }

  // Drops the kernel watch once no entry uses it.
  void release(int wd) {
    if (wd >= 0 && !as_parent.contains(wd) && !as_self.contains(wd)) ::inotify_rm_watch(fd, wd);
  }

  void watch_self(Entry& e) {
    const int old = e.self_wd;
    const int wd = ::inotify_add_watch(fd, e.path.c_str(), kMask);
    if (wd == old) return;
    if (old >= 0) {
      forget(as_self, old, &e);
      release(old);
    }
    e.self_wd = wd;  // -1: absent now; its parent's events say when it appears
    if (wd >= 0) as_self[wd].push_back(&e);
  }

  // False when the path cannot be watched (its parent is missing, or the watch limit).
  bool register_entry(Entry& e) {
    const fs::path parent = e.path.has_parent_path() ? e.path.parent_path() : fs::path(".");
    const int pwd = ::inotify_add_watch(fd, parent.c_str(), kMask | IN_ONLYDIR);
    if (pwd < 0) return false;
    e.parent_wd = pwd;
    as_parent[pwd].push_back(&e);
    watch_self(e);
    e.registered = true;
    bump(e);
    return true;
  }

  void on_event(const inotify_event& ev) {
    if (ev.mask & IN_Q_OVERFLOW) {  // events were lost: anything may have changed
      for (auto& [_, e] : entries) {
        bump(e);
        e.recheck_self = true;
      }
      return;
    }
    const bool gone = (ev.mask & IN_IGNORED) != 0;  // the watch was removed (its inode deleted, or unmounted)
    if (auto it = as_self.find(ev.wd); it != as_self.end()) {
      for (Entry* e : std::vector<Entry*>(it->second)) {
        bump(*e);
        if (gone) {
          forget(as_self, ev.wd, e);
          e->self_wd = -1;
          e->recheck_self = true;
        }
      }
    }
    if (auto it = as_parent.find(ev.wd); it != as_parent.end()) {
      const std::string_view name = ev.len > 0 ? std::string_view(ev.name) : std::string_view();
      for (Entry* e : std::vector<Entry*>(it->second)) {
        if (gone || (ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF))) {  // the directory itself went
          bump(*e);
          if (gone) {
            forget(as_parent, ev.wd, e);
            e->parent_wd = -1;
            e->registered = false;
          }
        } else if (name == e->name) {
          bump(*e);
          e->recheck_self = true;  // created, replaced, renamed: a different inode may be there now
        }
      }
    }
  }

  void drain() {
    alignas(inotify_event) char buf[8192];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) return;  // EAGAIN: nothing (more) happened
      for (ssize_t off = 0; off + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
        const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
        on_event(*ev);
        off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      }
    }
  }

  // The version of one path (registering it), or 0 when it cannot be watched.
  uint64_t version_of(const fs::path& path, int depth = 0) {
    auto it = entries.find(path.native());  // as spelled: another spelling is another entry
    if (it == entries.end()) {
      if (entries.size() >= kMaxPaths) return 0;
      it = entries.emplace(path.native(), Entry{}).first;
      it->second.path = path.lexically_normal();  // "dir/" and "dir/." name the directory itself
      if (!it->second.path.has_filename() && it->second.path.has_parent_path()) it->second.path = it->second.path.parent_path();
      it->second.name = it->second.path.filename().native();
    }
    Entry& e = it->second;
    if (!e.registered && !e.tried) {
      e.tried = true;
      if (register_entry(e)) return e.version;
    }
    if (!e.registered) {
      // Its directory is missing: the stamp follows the directory's (its creation changes it), and
      // registration is tried again only when that changed.
      const fs::path parent = e.path.parent_path();
      if (depth > 64 || parent.empty() || parent == e.path) return 0;
      const uint64_t pv = version_of(parent, depth + 1);
      if (pv == 0) return 0;
      if (pv != e.parent_seen) {
        e.parent_seen = pv;
        if (register_entry(e)) return std::max(e.version, pv);
      }
      if (e.version == 0) bump(e);
      return std::max(e.version, pv);
    }
    if (e.recheck_self) {
      e.recheck_self = false;
      watch_self(e);
    }
    return e.version;
  }
};

FileWatch::FileWatch() : state_(std::make_unique<State>()) {}
FileWatch::~FileWatch() = default;

FileWatch& FileWatch::instance() {
  static FileWatch watch;
  return watch;
}

uint64_t FileWatch::stamp(std::span<const fs::path> paths) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (!s.open()) return 0;
  s.drain();
  uint64_t stamp = 0;
  for (const auto& p : paths) {
    const uint64_t v = s.version_of(p);
    if (v == 0) return 0;
    stamp = std::max(stamp, v);
  }
  return stamp;
}

std::size_t FileWatch::watched_paths() const {
  std::lock_guard lock(state_->mutex);
  return state_->entries.size();
}

}  // namespace pincer
