#include "store/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
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
    pid = pid.substr(0, pid.find('\n'));  // the first line (the second is the address)
    while (!pid.empty() && pid.back() == ' ') pid.pop_back();
    if (pid.empty()) pid = "unknown";
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
  if (fd_ < 0) return;
  // An empty file says "no gateway" to read_lock_holder (a crash leaves the PID, checked there).
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::close(fd_);  // closing releases the flock
}

void InstanceLock::write(const std::string& status) {
  if (fd_ < 0) return;
  const std::string address = port_ > 0 ? host_ + " " + std::to_string(port_) : "- 0";
  std::string text = std::to_string(::getpid()) + "\n" + address + "\n";
  if (!status.empty()) text += status + "\n";  // the third line, where earlier readers look for it
  if (!auth_mode_.empty()) text += "auth " + auth_mode_ + (auth_source_.empty() ? "" : " " + auth_source_) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) < 0) {
    // Only for messages and the CLI's checks.
  }
}

void InstanceLock::record_listening(const std::string& host, int port) {
  host_ = host;
  port_ = port;
  write("");
}

void InstanceLock::record_stopping(bool restarting) { write(restarting ? "restarting" : "stopping"); }

void InstanceLock::record_auth(const std::string& mode, const std::string& source) {
  auth_mode_ = mode;
  auth_source_ = source;
  write("");
}

std::optional<LockHolder> read_lock_holder(const std::filesystem::path& lock_file) {
  std::ifstream in(lock_file);
  if (!in) return std::nullopt;
  LockHolder h;
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  try {
    std::size_t used = 0;
    h.pid = std::stol(line, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (h.pid <= 0) return std::nullopt;
  // A crashed gateway leaves its PID: only a living process counts.
  if (::kill(static_cast<pid_t>(h.pid), 0) != 0 && errno != EPERM) return std::nullopt;
  if (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string host;
    int port = 0;
    if (fields >> host >> port && port > 0 && port <= 65535) {
      h.host = host;
      h.port = port;
    }
    while (std::getline(in, line)) {
      if (line == "stopping") h.stopping = true;
      else if (line == "restarting") h.restarting = true;
      else if (line.rfind("auth ", 0) == 0) {  // "auth <mode> [<source>]"
        const std::string rest = line.substr(5);
        const std::size_t space = rest.find(' ');
        h.auth_mode = rest.substr(0, space);
        h.auth_source = space == std::string::npos ? "" : rest.substr(space + 1);
      }
    }
  }
  return h;
}

}  // namespace pincer::store
