#include "store/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace pincer::store {

Result<InstanceLock> InstanceLock::acquire(const std::filesystem::path& lock_file) {
  std::error_code ec;
  std::filesystem::create_directories(lock_file.parent_path(), ec);
  int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"IO_ERROR", "cannot open lock file " + lock_file.string() + ": " + std::strerror(errno)};
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    ::close(fd);
    return Error{"GATEWAY_ALREADY_RUNNING", "another Pincer gateway (pid " + pid + ") is already running on state dir " +
                                               lock_file.parent_path().string()};
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock itself is held; the PID is only for messages.
  }
  return InstanceLock(fd);
}

InstanceLock::~InstanceLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace pincer::store
