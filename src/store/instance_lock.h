// Single-instance lock on the state directory (GW-1): one gateway per state dir. Uses flock(2) on
// <state>/gateway.lock, so a crashed gateway never leaves a stale lock; the file holds the owner's PID
// for the error message.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/result.h"

namespace pincer::store {

/// Holds the lock until destroyed (or the process exits).
class InstanceLock {
 public:
  /// Takes the lock. Error code "GATEWAY_ALREADY_RUNNING" with message
  /// "another Pincer gateway (pid N) is already running on state dir <dir>" when held elsewhere;
  /// "IO_ERROR" when the file cannot be created.
  static Result<InstanceLock> acquire(const std::filesystem::path& lock_file);

  InstanceLock(InstanceLock&& other) noexcept : fd_(other.fd_), host_(std::move(other.host_)), port_(other.port_) {
    other.fd_ = -1;
  }
  InstanceLock& operator=(InstanceLock&&) = delete;
  InstanceLock(const InstanceLock&) = delete;
  ~InstanceLock();

  /// Adds where the gateway listens to the lock file (second line "<host> <port>"), so that a
  /// client that cannot reach the configured port can say where this state dir's gateway is.
  void record_listening(const std::string& host, int port);
  /// Adds a third line, "stopping" (a SIGTERM/SIGINT drain) or "restarting" (SIGUSR1), while the
  /// gateway no longer accepts connections but has not exited: a client that cannot connect says
  /// that instead of "start it". The next record_listening (after a restart) drops it.
  void record_stopping(bool restarting);

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::string host_;  ///< as recorded by record_listening
  int port_ = 0;
};

/// What the lock file of a state dir says about its running gateway: its PID and, once it listens,
/// its address. nullopt when no gateway holds the lock (no file, an empty one, or the PID is gone).
struct LockHolder {
  long pid = 0;
  std::string host;  ///< empty until the gateway listens
  int port = 0;      ///< 0 until the gateway listens
  bool stopping = false;    ///< it is shutting down (draining its turns), accepting no connection
  bool restarting = false;  ///< it is restarting in place (SIGUSR1)
};
std::optional<LockHolder> read_lock_holder(const std::filesystem::path& lock_file);

}  // namespace pincer::store
