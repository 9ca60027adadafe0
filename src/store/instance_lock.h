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

  InstanceLock(InstanceLock&& other) noexcept
      : fd_(other.fd_),
        host_(std::move(other.host_)),
        port_(other.port_),
        auth_mode_(std::move(other.auth_mode_)),
        auth_source_(std::move(other.auth_source_)) {
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
  /// Adds the auth mode the gateway runs with and where its secret comes from, as a line
  /// "auth <mode> <source>" (e.g. "auth token --token", "auth token PINCER_GATEWAY_TOKEN", "auth
  /// token gateway.auth.token"; never the secret itself), kept by the later records: `config
  /// set/unset` tells from it whether the file's secret is the one the gateway checks
  /// (cli/config_auth_guard.h).
  void record_auth(const std::string& mode, const std::string& source);

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  /// Rewrites the file: pid, address ("- 0" before it listens), `status` (when not empty), auth.
  void write(const std::string& status);
  int fd_ = -1;
  std::string host_;  ///< as recorded by record_listening
  int port_ = 0;
  std::string auth_mode_, auth_source_;  ///< as recorded by record_auth
};

/// What the lock file of a state dir says about its running gateway: its PID and, once it listens,
/// its address. nullopt when no gateway holds the lock (no file, an empty one, or the PID is gone).
struct LockHolder {
  long pid = 0;
  std::string host;  ///< empty until the gateway listens
  int port = 0;      ///< 0 until the gateway listens
  bool stopping = false;    ///< it is shutting down (draining its turns), accepting no connection
  bool restarting = false;  ///< it is restarting in place (SIGUSR1)
  std::string auth_mode;    ///< none | token | password | trusted-proxy; "" when not recorded (an older gateway)
  std::string auth_source;  ///< where its secret comes from (InstanceLock::record_auth); "" when none or not recorded
};
std::optional<LockHolder> read_lock_holder(const std::filesystem::path& lock_file);

}  // namespace pincer::store
