// Single-instance lock on the state directory (GW-1): one gateway per state dir. Uses flock(2) on
// <state>/gateway.lock, so a crashed gateway never leaves a stale lock; the file holds the owner's PID
// for the error message.
#pragma once

#include <filesystem>

#include "core/result.h"

namespace pincer::store {

/// Holds the lock until destroyed (or the process exits).
class InstanceLock {
 public:
  /// Takes the lock. Error code "GATEWAY_ALREADY_RUNNING" with message
  /// "another Pincer gateway (pid N) is already running on state dir <dir>" when held elsewhere;
  /// "IO_ERROR" when the file cannot be created.
  static Result<InstanceLock> acquire(const std::filesystem::path& lock_file);

  InstanceLock(InstanceLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  InstanceLock& operator=(InstanceLock&&) = delete;
  InstanceLock(const InstanceLock&) = delete;
  ~InstanceLock();

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace pincer::store
