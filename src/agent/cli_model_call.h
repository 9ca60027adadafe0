// CLI backends: one model call made by running the backend's CLI (issue 17 item 5).
//
// The child is started through tools::ManagedProcess (the exec tool's spawner: its own process
// group, killed with Pincer, SIGTERM then SIGKILL when stopped) as `exec <argv>`, stdin from a
// temporary file holding the prompt when it goes on stdin (else /dev/null), stderr into a
// temporary file (kept apart from stdout, which is parsed). Its environment is `base_env` without
// the backend's clearEnv names, plus its `env`.
//
// - Output is read on the loop when the process's pump thread reports some (SpawnOptions::
//   on_output posts one wake-up at a time to the loop; no polling); jsonl text deltas are
//   reported as they come.
// - Watchdog (a loop timer set for the end of the silence allowed, moved on by output): no stdout
//   for `watchdog_ms` → the child is stopped and the call fails as a timeout
//   (retryable, so the run retries or fails over, PV-4/PV-5). `timeout_ms` bounds the whole call.
// - Exit status ≠ 0, or a failure the CLI reported in its output (Claude's is_error, codex's
//   turn.failed): an llm::ProviderFailure classified from stderr / that message with the
//   providers' text heuristics (llm/failover.h), so "rate limit", "invalid api key", "overloaded"
//   printed by a CLI mean what they mean from an API. Exit 126/127 (command missing) is
//   model_not_found ("the CLI `claude` was not found"), so a fallback model takes over.
// - serialize: calls of a serialized backend run one at a time, gateway-wide, in start order.
//
// Loop affinity: created, started and cancelled on the event-loop thread; callbacks arrive there.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agent/cli_backend_config.h"
#include "agent/cli_backend_invocation.h"
#include "agent/cli_backend_output.h"
#include "core/event_loop.h"
#include "llm/failover.h"
#include "llm/messages.h"

namespace pincer::tools {
class ManagedProcess;
}

namespace pincer::agent {

struct CliCallOptions {
  std::filesystem::path cwd;                    ///< the agent's workspace ("/" when missing)
  std::map<std::string, std::string> base_env;  ///< the gateway's environment
  int64_t watchdog_ms = 180'000;                ///< CliWatchdog::limit_ms
  int64_t timeout_ms = 600'000;                 ///< whole call
};

/// The end of a call: `reply` on success, else `failure`.
struct CliOutcome {
  std::optional<CliReply> reply;
  llm::ProviderFailure failure;
};

class CliModelCall : public std::enable_shared_from_this<CliModelCall> {
 public:
  using DeltaFn = std::function<void(const std::string& delta, const std::string& text)>;
  using DoneFn = std::function<void(CliOutcome)>;

  CliModelCall(EventLoop& loop, CliBackendSettings backend, CliInvocation invocation, CliCallOptions options,
               llm::ModelSpec model, DeltaFn on_delta, DoneFn on_done);
  ~CliModelCall();

  /// Queues (serialize) or spawns the child. `on_done` follows exactly once unless cancel() comes first.
  void start();
  /// Stops the child (or leaves the queue); no callback follows.
  void cancel();

  /// The environment given to the child: `base` minus `clear`, plus `set` ("NAME=value" each).
  static std::vector<std::string> child_environment(const std::map<std::string, std::string>& base,
                                                    const std::vector<std::string>& clear,
                                                    const std::map<std::string, std::string>& set);

 private:
  void launch();
  /// Reads the output captured so far; completes the call once the process has finished.
  void drain();
  /// The watchdog timer fired: stops a silent child, else waits for the rest of the silence allowed.
  void check_watchdog();
  void arm_watchdog(int64_t delay_ms);
  void complete();
  void done(CliOutcome outcome);
  llm::ProviderFailure failure(const std::string& text, const std::string& cause) const;
  void cleanup();

  EventLoop& loop_;
  CliBackendSettings backend_;
  CliInvocation inv_;
  CliCallOptions opt_;
  llm::ModelSpec model_;
  DeltaFn on_delta_;
  DoneFn on_done_;
  CliOutputParser parser_;
  std::shared_ptr<tools::ManagedProcess> proc_;
  std::filesystem::path tmp_dir_;
  uint64_t offset_ = 0;
  int64_t last_output_ms_ = 0;
  bool watchdog_fired_ = false;
  bool finished_ = false;
  bool holds_slot_ = false;  ///< this call is the backend's running call (serialize)
  std::optional<EventLoop::TimerId> timer_;  ///< the watchdog
  /// Set while a wake-up from the pump thread is posted and not yet handled (one at a time).
  std::shared_ptr<std::atomic<bool>> wake_posted_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace pincer::agent
