#include "llm/auth/auth_profile_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/atomic_file.h"
#include "store/file_util.h"

namespace pincer::llm::auth {

using json = nlohmann::json;

std::filesystem::path auth_profiles_path(const std::filesystem::path& state_dir, std::string_view agent_id) {
  return state_dir / "agents" / std::string(agent_id) / "agent" / "auth-profiles.json";
}

namespace detail_auth_profile_file {

/// Holds an exclusive flock on `<file>.lock` for its lifetime (creating the directory).
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& file) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    const std::string lock = file.string() + ".lock";
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = store::io_error(lock, "open");
      return;
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        error_ = store::io_error(lock, "lock");
        return;
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  const std::optional<Error>& error() const { return error_; }

 private:
  int fd_ = -1;
  std::optional<Error> error_;
};

}  // namespace detail_auth_profile_file

AuthProfileFile::AuthProfileFile(std::filesystem::path path) : path_(std::move(path)) {}

Result<AuthProfiles> AuthProfileFile::read_locked() {
  struct stat st {};
  Stamp now;
  if (::stat(path_.c_str(), &st) == 0) {
    now.exists = true;
    now.size = static_cast<uintmax_t>(st.st_size);
    now.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    now.inode = st.st_ino;
  } else if (errno != ENOENT) {
    return store::io_error(path_, "stat");
  }
  if (cached_ && now == stamp_) return *cached_;
  json doc = json::object();
  if (now.exists) {
    auto text = store::read_file(path_, 16u << 20);
    if (!text) {
      if (text.error().code != "NOT_FOUND") return text.error();
    } else {
      try {
        doc = json::parse(*text);
      } catch (const json::parse_error& e) {
        return Error{"AUTH_PROFILES_INVALID", path_.string() + ":" + store::parse_error_line_col(*text, e.byte) +
                                                  ": not valid JSON: " + store::short_parse_error(e.what())};
      } catch (const json::exception& e) {
        return Error{"AUTH_PROFILES_INVALID", path_.string() + ": not valid JSON: " + store::short_parse_error(e.what())};
      }
    }
  }
  auto parsed = AuthProfiles::from_json(doc);
  if (!parsed) return Error{parsed.error().code, path_.string() + ": " + parsed.error().message};
  cached_ = std::make_unique<AuthProfiles>(*parsed);
  stamp_ = now;
  return *parsed;
}

Result<AuthProfiles> AuthProfileFile::load() {
  std::lock_guard lock(mu_);
  auto doc = read_locked();
  if (!doc) return doc;
  for (const auto& [id, ms] : last_used_) {
    if (doc->find(id) && doc->stats(id).last_used < ms) {
      // Only the time: mark_good() already cleared what needed a write.
      AuthProfiles& d = *doc;
      const UsageStats s = d.stats(id);
      if (s.error_count == 0 && s.unusable_until() == 0) d.mark_good(id, ms);
    }
  }
  return doc;
}

Status AuthProfileFile::update(const std::function<void(AuthProfiles&)>& change) {
  std::lock_guard lock(mu_);
  detail_auth_profile_file::FileLock file_lock(path_);
  if (file_lock.error()) return *file_lock.error();
  cached_.reset();  // another process may have written it a moment ago with the same stamp
  auto doc = read_locked();
  if (!doc) return doc.error();
  for (const auto& [id, ms] : last_used_) {
    if (doc->find(id) && doc->stats(id).last_used < ms && doc->stats(id).error_count == 0) doc->mark_good(id, ms);
  }
  last_used_.clear();
  change(*doc);
  const std::string text = doc->to_json().dump(2) + "\n";
  if (auto st = store::write_file_atomic(path_, text, 0600); !st) return st;
  cached_.reset();
  stamp_ = {};
  return Ok{};
}

Status AuthProfileFile::mark_failure(std::string_view id, FailoverReason reason, int64_t now_ms, std::string_view model_id) {
  std::string key(id);
  return update([&](AuthProfiles& doc) {
    if (doc.find(key)) doc.mark_failure(key, reason, now_ms, model_id);
  });
}

Status AuthProfileFile::mark_good(std::string_view id, int64_t now_ms, std::string_view model_id) {
  std::string key(id);
  bool needs_write = false;
  {
    std::lock_guard lock(mu_);
    auto doc = read_locked();
    if (!doc) return doc.error();
    const Credential* c = doc->find(key);
    if (!c) return Ok{};
    const UsageStats s = doc->stats(key);
    const json all = doc->to_json();
    const bool last_good = all.contains("lastGood") && all["lastGood"].is_object() &&
                           all["lastGood"].value(c->provider, "") == key;
    needs_write = s.error_count > 0 || s.unusable_until() > 0 || !s.failure_counts.empty() || !last_good;
    if (!needs_write) last_used_[key] = now_ms;
  }
  if (!needs_write) return Ok{};
  return update([&](AuthProfiles& d) { d.mark_good(key, now_ms, model_id); });
}

}  // namespace pincer::llm::auth
