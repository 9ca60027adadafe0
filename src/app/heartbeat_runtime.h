// The gateway's heartbeat at run time (AT-1, docs/automation.md "The heartbeat"): the heartbeat
// timer (automation/heartbeat_scheduler.h) wired to the agent runtime and the channels.
//   - the busy gate: while runs go on or wait (any session), a beat is skipped, not queued;
//   - the runner: a turn in the agent's main session on the heartbeat prompt, on the `cron` lane
//     (it never waits for a human approval), with `model` and `timeoutSeconds` of the heartbeat
//     settings; recorded in the run journal (source "heartbeat") before it starts. A beat cut off
//     by a restart is not run again (the next beat checks the same things): it is logged and
//     closed in the journal at the next start;
//   - the outcome: a reply that is only the acknowledgement (HEARTBEAT_OK, ≤ ackMaxChars beside
//     it) or a silent NO_REPLY (agent::is_silent_reply) is delivered nowhere; anything else goes
//     to `target` — `last` (the chat the agent last heard from), a channel id with `to`, or `none`
//     — through the channels' outbox (ChannelManager::announce: durable, never sent twice). The
//     run's events reach no client and no channel, so nothing is streamed before that decision;
//   - the `heartbeat` gateway event, and the summary health and status show per agent;
//   - hot reload: reconfigure() with each applied config.
// Loop affinity: event-loop thread.
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "automation/heartbeat_scheduler.h"
#include "channels/channel_manager.h"
#include "gateway/gateway.h"

namespace pincer::app {

class HeartbeatRuntime {
 public:
  HeartbeatRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
                   gateway::Gateway& gateway, const nlohmann::json& config, std::filesystem::path state_dir);
  ~HeartbeatRuntime();

  /// Closes beats a restart cut off (run journal), arms the timer. Call before
  /// AgentService::resume_unfinished().
  void start();
  /// A hot config reload: agents.*.heartbeat, agents.defaults.userTimezone, the agents' workspaces.
  void reconfigure(const nlohmann::json& config);
  /// The gateway is stopping: no new beat starts.
  void stop();

  automation::HeartbeatScheduler& scheduler() { return *scheduler_; }

 private:
  std::vector<automation::HeartbeatSettings> settings_of(const nlohmann::json& config) const;
  void run_beat(const automation::HeartbeatSettings& settings, const std::string& run_id,
                std::function<void(automation::HeartbeatOutcome)> done);

  EventLoop& loop_;
  agent::AgentService& agents_;
  channels::ChannelManager& channels_;
  gateway::Gateway& gateway_;
  std::filesystem::path state_dir_;
  nlohmann::json config_;
  std::unique_ptr<automation::HeartbeatScheduler> scheduler_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::app
