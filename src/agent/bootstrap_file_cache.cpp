#include "agent/bootstrap_file_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>

#include "store/atomic_file.h"

namespace pincer::agent {
namespace {

constexpr std::size_t kMaxCachedFiles = 64;
// File systems with sub-second timestamps (ext4, xfs, btrfs, tmpfs) stamp them from the kernel's
// coarse clock, one tick (≤ 10 ms) apart; whole-second ones (FAT, ext3, some network mounts) are
// given git's 2 s.
constexpr std::chrono::milliseconds kRacyWindowFine{50};
constexpr std::chrono::seconds kRacyWindowCoarse{2};

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  timespec ctime{};
  bool operator==(const Identity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec && ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
  }
};

struct Cached {
  Identity id;
  std::string content;
};

std::mutex g_mutex;
std::map<std::string, Cached>& cache() {
  static std::map<std::string, Cached> c;
  return c;
}

bool racy(const Identity& id) {
  using namespace std::chrono;
  const timespec& t = id.ctime.tv_sec > id.mtime.tv_sec ||
                              (id.ctime.tv_sec == id.mtime.tv_sec && id.ctime.tv_nsec > id.mtime.tv_nsec)
                          ? id.ctime
                          : id.mtime;
  const system_clock::time_point changed{duration_cast<system_clock::duration>(seconds{t.tv_sec} + nanoseconds{t.tv_nsec})};
  const bool whole_seconds = id.mtime.tv_nsec == 0 && id.ctime.tv_nsec == 0;
  const auto window = whole_seconds ? duration_cast<system_clock::duration>(kRacyWindowCoarse)
                                    : duration_cast<system_clock::duration>(kRacyWindowFine);
  return system_clock::now() - changed < window;
}

}  // namespace

Result<std::string> read_bootstrap_file(const std::filesystem::path& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return store::read_file(path, max_bytes);  // its errors (absent, a directory …), uncached
  }
  const Identity id{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
  const std::string key = path.string();
  {
    std::lock_guard lock(g_mutex);
    auto it = cache().find(key);
    if (it != cache().end() && it->second.id == id && it->second.content.size() <= max_bytes) return it->second.content;
  }
  auto data = store::read_file(path, max_bytes);
  if (!data || racy(id) || data->size() != static_cast<std::size_t>(st.st_size)) return data;  // changed while read
  std::lock_guard lock(g_mutex);
  if (cache().size() >= kMaxCachedFiles && !cache().contains(key)) cache().clear();
  cache()[key] = Cached{id, *data};
  return data;
}

}  // namespace pincer::agent
