// The heartbeat's timer (AT-1): one timer on the gateway loop, like the cron scheduler's
// (scheduler.h), that sleeps until the next agent's beat is due — at most kCronMaxSleepMs at a
// time — and is not armed at all while no agent has heartbeats on (no polling, no cost).
//
// A beat, in this order, each gate decided here before any model call:
//   1. outside `activeHours` (in the user's zone)         → skipped, reason "quiet-hours";
//   2. busy(agent): runs in flight or queued              → skipped, "requests-in-flight"
//      (skipped, not queued: the next beat comes one interval later, never a pile);
//   3. HEARTBEAT.md exists and is effectively empty       → skipped, "empty-heartbeat-file";
//   4. else the runner runs the turn and reports the outcome (sent | ok-token | ok-empty |
//      skipped with a reason | failed).
// A wake (wake(): hooks `mode: now`, OpenClaw's requestHeartbeatNow) beats at once: gate 3 does
// not apply (the pending system events are the work), gate 2 retries it every kWakeRetryMs
// instead of skipping it (the timer runs only while a wake waits), and it leaves the next timed
// beat where it was.
// The next beat is due `every` after this one started, whatever its outcome. Each outcome is
// logged, kept as the agent's last status (health, `pincer status`) and sent to the event sink
// in OpenClaw's `heartbeat` event shape.
//
// Clock seam: `now_ms` is the wall time in Unix ms (tests use a manual clock and call tick()).
// Loop affinity: event-loop thread only; the runner's `done` must be called on the loop.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "automation/heartbeat.h"
#include "core/event_loop.h"

namespace pincer::automation {

/// How soon a wake that found the agent busy is tried again, ms.
inline constexpr int64_t kHeartbeatWakeRetryMs = 1000;

/// How one beat ended.
struct HeartbeatOutcome {
  std::string status = "ok-empty";  ///< "sent" | "ok-empty" | "ok-token" | "skipped" | "failed"
  std::string reason;               ///< why skipped/failed ("quiet-hours", "no-route", an error …)
  std::string preview;              ///< the start of what was delivered
  std::string channel, to, account_id;  ///< where it was delivered
};

/// Runs one beat's turn; calls `done` once, on the loop.
using HeartbeatRunner = std::function<void(const HeartbeatSettings& settings, const std::string& run_id,
                                           std::function<void(HeartbeatOutcome)> done)>;

class HeartbeatScheduler {
 public:
  HeartbeatScheduler(EventLoop& loop, std::function<int64_t()> now_ms);
  ~HeartbeatScheduler();
  HeartbeatScheduler(const HeartbeatScheduler&) = delete;
  HeartbeatScheduler& operator=(const HeartbeatScheduler&) = delete;

  void set_runner(HeartbeatRunner runner) { runner_ = std::move(runner); }
  /// True while the agent has runs going on or waiting (gate 2).
  void set_busy(std::function<bool(const std::string& agent_id)> busy) { busy_ = std::move(busy); }
  /// Receives each beat's `heartbeat` event: {ts, agentId, status, reason?, preview?, durationMs,
  /// channel?, to?, accountId?, indicatorType?}.
  void set_event_sink(std::function<void(const nlohmann::json&)> sink) { events_ = std::move(sink); }

  /// The agents and their settings (start, and every hot reload). An agent whose interval did not
  /// change keeps its next beat; a new or changed one beats `every` from now. Re-arms.
  void configure(std::vector<HeartbeatSettings> agents);
  /// Asks for a beat of `agent_id` now (see the header): `reason` is logged ("hook:wake" …).
  /// False when that agent has no heartbeat (off or unknown): nothing happens; its main session's
  /// system events then wait for the session's next turn.
  bool wake(const std::string& agent_id, const std::string& reason);
  /// OpenClaw's `set-heartbeats` (run time only, the config unchanged): while paused no beat
  /// starts (timed or woken; wake() answers false) and no timer is armed. Resuming keeps each
  /// agent's next beat, but one that fell due while paused comes `every` after the resume, not at
  /// once. A beat already running finishes.
  void set_paused(bool paused);
  bool paused() const { return paused_; }
  /// No new beat starts; the timer is cancelled.
  void stop();
  /// The timer's work: starts the due beats, re-arms. Public for tests.
  void tick();

  /// One agent's heartbeat for health/status: OpenClaw's summary {enabled, every, everyMs, prompt,
  /// target, model?, ackMaxChars} and Pincer's state {paused, nextDueAtMs, lastRunAtMs, lastStatus,
  /// lastReason, running}; null for an agent it does not know. `paused`: set-heartbeats turned every
  /// beat off while the gateway runs (`enabled` stays the config's); nextDueAtMs is then null.
  nlohmann::json summary(const std::string& agent_id) const;
  /// The last beat's event payload (OpenClaw's `last-heartbeat`), null before the first.
  const nlohmann::json& last_event() const { return last_event_; }
  /// When the timer will fire (wall ms), nullopt when none is armed.
  std::optional<int64_t> armed_at_ms() const { return armed_at_; }

 private:
  struct AgentState {
    HeartbeatSettings settings;
    std::optional<int64_t> next_due;
    std::optional<int64_t> wake_at;  ///< a wake waits (due at this instant)
    std::string wake_reason;
    std::optional<int64_t> last_run_at;
    std::string last_status, last_reason;
    bool running = false;
  };
  void beat(AgentState& agent, int64_t now);
  void finished(const std::string& agent_id, int64_t started, const HeartbeatOutcome& outcome);
  void arm();

  EventLoop& loop_;
  std::function<int64_t()> now_;
  HeartbeatRunner runner_;
  std::function<bool(const std::string&)> busy_;
  std::function<void(const nlohmann::json&)> events_;
  std::map<std::string, AgentState> agents_;
  nlohmann::json last_event_;
  bool stopped_ = false;
  bool paused_ = false;
  std::optional<EventLoop::TimerId> timer_;
  std::optional<int64_t> armed_at_;
  int64_t seq_ = 0;
};

}  // namespace pincer::automation
