// The cross-process OAuth refresh lock (see oauth_refresh_lock.h).
#include "llm/auth/oauth_refresh_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace pincer::llm::auth {

namespace {

Error lock_io_error(const std::filesystem::path& file, const char* what) {
  return Error{"IO_ERROR", std::string("cannot ") + what + " the OAuth refresh lock " + file.string() + ": " +
                               std::strerror(errno)};
}

}  // namespace

std::filesystem::path OAuthRefreshLock::path_for(const std::filesystem::path& lock_dir, std::string_view provider,
                                                 std::string_view profile_id) {
  std::string name;
  for (char c : provider) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
    name += plain ? c : '_';
  }
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64: a file name, not a secret
  for (unsigned char c : profile_id) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return lock_dir / (name + "-" + hex + ".lock");
}

Result<std::variant<OAuthRefreshLock, OAuthRefreshLock::Busy>> OAuthRefreshLock::try_acquire(
    const std::filesystem::path& lock_file) {
  std::error_code ec;
  if (std::filesystem::create_directories(lock_file.parent_path(), ec)) {
    std::filesystem::permissions(lock_file.parent_path(), std::filesystem::perms::owner_all, ec);
  }
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return lock_io_error(lock_file, "create");
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return std::variant<OAuthRefreshLock, Busy>(Busy{});
    errno = err;
    return lock_io_error(lock_file, "lock");
  }
  return std::variant<OAuthRefreshLock, Busy>(OAuthRefreshLock(fd));
}

OAuthRefreshLock& OAuthRefreshLock::operator=(OAuthRefreshLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

OAuthRefreshLock::~OAuthRefreshLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace pincer::llm::auth
