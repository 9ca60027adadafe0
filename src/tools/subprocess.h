// One shell command running as a child process in its own process group, with its combined
// stdout+stderr captured into a bounded OutputBuffer by a small pump thread.
//
// - Started by the pump thread (fork + execve): `/bin/sh -c <command>`, stdin /dev/null, cwd and
//   environment as given, no inherited descriptors beyond 0-2, default signal dispositions and an
//   empty mask, no CAP_SYS_PTRACE.
// - Tied to this process's life: the shell gets PR_SET_PDEATHSIG(SIGKILL) (the pump thread forks
//   it and outlives it), and its process group is registered with the process guard
//   (process_guard.h), which SIGKILLs the group — grandchildren included — when this process
//   dies, even by kill -9.
// - Stopping (timeout, cancel, kill) signals the whole group: SIGTERM, then SIGKILL after
//   `kill_grace` (or as soon as the shell itself has exited).
// - When the shell exits but a grandchild still holds the output pipe (`sleep 100 &`), the
//   capture stops after a short drain period instead of waiting for the grandchild.
// - Logged at info level: the start (pid, cwd, command) and the end (exit code or signal, how it
//   was stopped, duration, background session), the command redacted (redact::apply).
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
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "tools/cancel_signal.h"
#include "tools/output_buffer.h"

namespace pincer::tools {

struct SpawnOptions {
  std::string command;                   ///< run as `/bin/sh -c command`
  /// When non-empty: the shell runs inside this wrapper, i.e. `wrapper... /bin/sh -c command` is
  /// executed, wrapper[0] being an absolute path (the sandbox, tools/sandbox/sandbox.h).
  std::vector<std::string> wrapper;
  std::filesystem::path cwd;             ///< must exist
  int cwd_fd = -1;  ///< when >= 0: the same directory as a descriptor (O_PATH is fine), entered with
                    ///< fchdir instead of by path; the caller keeps it open until spawn() returns
  std::vector<std::string> env;          ///< complete environment, "NAME=value" each
  std::chrono::milliseconds timeout{0};  ///< total lifetime; 0 = unlimited
  std::chrono::milliseconds kill_grace{2000};
  std::size_t head_bytes = 32 * 1024;  ///< output kept from the start
  std::size_t tail_bytes = 32 * 1024;  ///< output kept from the end
  bool log = true;  ///< false: no start/end log lines (internal probes, e.g. the sandbox check)
  /// Called on the pump thread after new output is captured and once more when the process has
  /// finished (status().finished is true by then, all output captured): a wake-up for a reader on
  /// an event loop (EventLoop::post), so it never has to poll. Must be quick and thread-safe; it
  /// must not call back into this ManagedProcess. Empty = none (the exec tool waits instead).
  std::function<void()> on_output;
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
  /// Starts the command; returns once the shell has exec'd. Error "SPAWN_FAILED" (e.g. missing
  /// cwd: "cannot start /bin/sh in /x: chdir: No such file or directory").
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
  /// Blocks up to `d` until output beyond `offset` exists, the process has ended or `cancel` (may
  /// be null) is set — whoever sets it must call wake_waiters() after.
  void wait_for_output(uint64_t offset, std::chrono::milliseconds d, const CancelSignal* cancel = nullptr);
  /// Wakes the threads blocked in wait_for / wait_for_output to look at their conditions again.
  void wake_waiters();

  ProcessStatus status() const;
  /// Names the background session (process tool) this process belongs to, for the log.
  void set_background_session(std::string id);
  /// Everything kept: head, omitted marker, tail.
  std::string output() const;
  /// Output from absolute byte `offset` on (see OutputBuffer::read_from).
  OutputBuffer::Slice output_from(uint64_t offset, std::size_t max_bytes) const;
  uint64_t output_total() const;
  /// Bytes of output no longer held (between the kept head and tail).
  uint64_t output_dropped() const;

 private:
  ManagedProcess(SpawnOptions options, int out_fd, int child_out_fd);
  /// The pump thread: forks the shell, reports through spawned_, pumps, logs the end.
  void run(int child_out_fd);
  Result<pid_t> fork_child(int child_out_fd);
  void pump();
  void record_exit(int wait_status);
  void log_end() const;
  std::string background_session() const;

  const SpawnOptions options_;
  pid_t pid_ = 0;  // written once by the pump thread before spawned_ is set
  const int out_fd_;
  const std::chrono::steady_clock::time_point started_steady_;
  const std::chrono::system_clock::time_point started_wall_;
  std::atomic<StopReason> stop_request_{StopReason::kNone};
  /// eventfd stop() writes to: the pump sleeps in poll() until output, the child's exit, a stop
  /// request or its next deadline, instead of waking on a tick.
  const int wake_fd_;
  std::promise<Status> spawned_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  OutputBuffer out_;      // guarded by mu_
  ProcessStatus status_;  // guarded by mu_
  std::string background_session_;  // guarded by mu_
  std::thread pump_;      // last: starts after everything above is initialised
};

}  // namespace pincer::tools
