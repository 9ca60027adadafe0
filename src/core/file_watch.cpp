// inotify-backed change stamps. See the header.
#include "core/file_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>
#include <utility>
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
  // One watched path. A path's own entry watches its directory for events naming it and the path
  // itself; each directory above it has an "ancestor" entry that watches its own parent for events
  // naming it (a rename or replacement anywhere up the chain changes what the path resolves to).
  struct Entry {
    fs::path path;
    std::string name;         // the last component, as the parent's events name it
    bool ancestor = false;    // watched by name only (no watch on the directory itself)
    bool unwatchable = false; // a symlink on the way, or no watch possible: stamps are 0
    bool registered = false;  // watches placed as of the last (re-)registration
    int parent_wd = -1;       // the directory holding it; -1 while that does not exist
    int self_wd = -1;         // the path itself; -1 while it does not exist
    uint64_t version = 0;
    std::vector<Entry*> dependents;  // entries below this ancestor
  };

  mutable std::mutex mutex;
  int fd = -1;
  bool unavailable = false;
  uint64_t counter = 0;
  std::unordered_map<std::string, Entry> entries;           // by path ('\1' + path: ancestors); node-based
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

  // A change at e: e and everything below it get new versions and are registered again on their
  // next stamp (a directory on their way may be another inode now).
  void bump(Entry& e) {
    e.version = ++counter;
    e.registered = false;
    for (Entry* d : e.dependents) bump(*d);
  }

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

  void unwatch(Entry& e) {
    if (e.parent_wd >= 0) forget(as_parent, e.parent_wd, &e), release(std::exchange(e.parent_wd, -1));
    if (e.self_wd >= 0) forget(as_self, e.self_wd, &e), release(std::exchange(e.self_wd, -1));
  }

  Entry& entry_for(const fs::path& path, bool ancestor) {
    const std::string key = ancestor ? '\1' + path.native() : path.native();
    auto it = entries.find(key);
    if (it != entries.end()) return it->second;
    Entry& e = entries.emplace(key, Entry{}).first->second;
    e.path = path;
    e.name = path.filename().native();
    e.ancestor = ancestor;
    e.version = ++counter;
    return e;
  }

  // (Re-)places e's watches. False when it cannot be watched.
  bool register_entry(Entry& e) {
    unwatch(e);
    e.registered = true;
    const fs::path parent = e.path.parent_path();
    if (parent.empty() || parent == e.path) return true;  // the root: never renamed
    // A symlink anywhere on the way: what it resolves to depends on entries not watched here.
    if (struct stat st {}; ::lstat(e.path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return !(e.unwatchable = true);
    Entry& up = entry_for(parent, true);
    if (std::find(up.dependents.begin(), up.dependents.end(), &e) == up.dependents.end()) up.dependents.push_back(&e);
    if (!up.registered && !register_entry(up)) return !(e.unwatchable = true);
    if (up.unwatchable) return !(e.unwatchable = true);
    e.parent_wd = ::inotify_add_watch(fd, parent.c_str(), kMask | IN_ONLYDIR | IN_DONT_FOLLOW);
    if (e.parent_wd < 0) {
      if (errno != ENOENT && errno != ENOTDIR) return !(e.unwatchable = true);  // the watch limit, EACCES
      return true;  // its directory does not exist: the ancestor entry says when it appears
    }
    as_parent[e.parent_wd].push_back(&e);
    if (!e.ancestor) {
      e.self_wd = ::inotify_add_watch(fd, e.path.c_str(), kMask | IN_DONT_FOLLOW);
      if (e.self_wd >= 0) as_self[e.self_wd].push_back(&e);  // -1: absent now; its parent names it when it appears
    }
    return true;
  }

  void on_event(const inotify_event& ev) {
    if (ev.mask & IN_Q_OVERFLOW) {  // events were lost: anything may have changed
      for (auto& [_, e] : entries) bump(e);
      return;
    }
    if (auto it = as_self.find(ev.wd); it != as_self.end()) {
      for (Entry* e : std::vector<Entry*>(it->second)) bump(*e);
    }
    if (auto it = as_parent.find(ev.wd); it != as_parent.end()) {
      const std::string_view name = ev.len > 0 ? std::string_view(ev.name) : std::string_view();
      const bool dir_itself = (ev.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) != 0;
      for (Entry* e : std::vector<Entry*>(it->second)) {
        if (dir_itself || name == e->name) bump(*e);
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
  uint64_t version_of(const fs::path& path) {
    auto it = entries.find(path.native());  // callers' paths are normally absolute and normal already
    if (it == entries.end()) {
      fs::path normal = path.lexically_normal();  // "dir/" and "dir/." name the directory itself
      if (!normal.has_filename() && normal.has_parent_path()) normal = normal.parent_path();
      if (!normal.is_absolute()) return 0;
      it = entries.find(normal.native());
      if (it == entries.end()) {
        if (entries.size() >= kMaxPaths) return 0;
        entry_for(normal, false);
        it = entries.find(normal.native());
      }
    }
    Entry& e = it->second;
    if (e.unwatchable) return 0;
    if (!e.registered && !register_entry(e)) return 0;
    return e.unwatchable ? 0 : e.version;
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
