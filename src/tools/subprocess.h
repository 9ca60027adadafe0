// One shell command running as a child process in its own process group, with its combined
// stdout+stderr captured into a bounded OutputBuffer by a small pump thread.
//
// - Started with posix_spawn: `/bin/sh -c <command>`, stdin /dev/null, cwd and environment as
//   given, no inherited descriptors beyond 0-2, default signal dispositions and an empty mask.
// - Stopping (timeout, cancel, kill) signals the whole group: SIGTERM, then SIGKILL after
//   `kill_grace` (or as soon as the shell itself has exited).
// - When the shell exits but a grandchild still holds the output pipe (`sleep 100 &`), the
//   capture stops after a short drain period instead of waiting for the grandchild.
//
// Threading: every public member is thread-safe. The pump thread is joined by the destructor,
// which first stops a still-running group; destroying a running process can therefore block for
// up to `kill_grace`.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "tools/output_buffer.h"

namespace pincer::tools {

struct SpawnOptions {
  std::string command;                   ///< run as `/bin/sh -c command`
  std::filesystem::path cwd;             ///< must exist
  std::vector<std::string> env;          ///< complete environment, "NAME=value" each
  std::chrono::milliseconds timeout{0};  ///< total lifetime; 0 = unlimited
  std::chrono::milliseconds kill_grace{2000};
  std::size_t head_bytes = 32 * 1024;  ///< output kept from the start
  std::size_t tail_bytes = 32 * 1024;  ///< output kept from the end
};

/// Why we stopped a process ourselves.
enum class StopReason { kNone, kTimeout, kCancelled, kKilled };

struct ProcessStatus {
  pid_t pid = 0;
  bool finished = false;
  std::optional<int> exit_code;  ///< set when it exited normally
  std::optional<int> signal;     ///< set when a signal ended it
  StopReason stopped_by = StopReason::kNone;
  std::chrono::milliseconds runtime{0};
  std::chrono::milliseconds timeout{0};  ///< the configured lifetime limit (0 = none)
};

class ManagedProcess {
 public:
  /// Starts the command. Error "SPAWN_FAILED" (e.g. missing cwd) with strerror.
  static Result<std::shared_ptr<ManagedProcess>> spawn(SpawnOptions options);

  ~ManagedProcess();
  ManagedProcess(const ManagedProcess&) = delete;
  ManagedProcess& operator=(const ManagedProcess&) = delete;

  const std::string& command() const { return options_.command; }
  std::chrono::system_clock::time_point started_at() const { return started_wall_; }

  /// Stops the group (SIGTERM, later SIGKILL). The first reason given is kept. Non-blocking.
  void stop(StopReason reason);
  /// Blocks up to `d` until the process has ended and its output is captured. True when it has.
  bool wait_for(std::chrono::milliseconds d);
  /// Blocks up to `d` until output beyond `offset` exists or the process has ended.
  void wait_for_output(uint64_t offset, std::chrono::milliseconds d);

  ProcessStatus status() const;
  /// Everything kept: head, omitted marker, tail.
  std::string output() const;
  /// Output from absolute byte `offset` on (see OutputBuffer::read_from).
  OutputBuffer::Slice output_from(uint64_t offset, std::size_t max_bytes) const;
  uint64_t output_total() const;
  /// Bytes of output no longer held (between the kept head and tail).
  uint64_t output_dropped() const;

 private:
  ManagedProcess(SpawnOptions options, pid_t pid, int out_fd);
  void pump();
  void record_exit(int wait_status);

  const SpawnOptions options_;
  const pid_t pid_;
  const int out_fd_;
  const std::chrono::steady_clock::time_point started_;
  const std::chrono::system_clock::time_point started_wall_;
  std::atomic<StopReason> stop_request_{StopReason::kNone};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  OutputBuffer out_;      // guarded by mu_
  ProcessStatus status_;  // guarded by mu_
  std::thread pump_;      // last: starts after everything above is initialised
};

}  // namespace pincer::tools
