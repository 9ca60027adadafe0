// Inbound webhooks at run time (AT-3, docs/automation.md "Hooks"; OpenClaw's `hooks` config):
// `POST <hooks.path>/wake`, `<hooks.path>/agent` and mapped `<hooks.path>/<name>` on the gateway's
// port, turned into runs.
//   - the route (added while `hooks.enabled`, moved or removed by a reload): a `?token=` query is
//     refused 400 (tokens travel in headers only), anything but POST 405, a missing or wrong hook
//     token 401 (compared in constant time) — 20 failures a minute from one client address and it
//     gets 429 with Retry-After for the rest of that minute —, a body over `maxBodyBytes` 413 (the
//     transport, before the body is read), bad JSON or a bad field 400 {ok:false, error};
//   - `wake {text, mode}`: the text becomes a system event of the default agent's main session
//     (seen by its next turn); `mode: now` asks that agent's heartbeat for a beat now
//     (HeartbeatScheduler::wake) → 200 {ok, mode};
//   - `agent {message, …}`: an isolated turn in `hook:<uuid>` (or the allowed key) on the `cron`
//     lane, the message wrapped as untrusted external content, recorded in the run journal
//     (source "hook") before the answer 200 {ok, runId}; a repeat with the same idempotency key
//     within 10 min gets the same runId and runs nothing. When the turn ends: its reply is
//     announced to `channel`/`to` through the outbox (deliver, default true; not a silent or
//     HEARTBEAT_OK reply), a line `Hook <name>: <reply start>` becomes a system event of the main
//     session, and `wakeMode: now` wakes the heartbeat. A turn cut off by a restart runs once more
//     at the next start;
//   - `hooks.status` (gateway method, OpenClaw's shape for internal hooks — Pincer has none — plus
//     `webhooks`: settings and counters).
// Loop affinity: event-loop thread.
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "automation/heartbeat_scheduler.h"
#include "automation/hooks.h"
#include "channels/channel_manager.h"
#include "gateway/gateway.h"
#include "gateway/protocol/auth_rate_limit.h"

namespace pincer::app {

/// Hook-token failures from one client address within a minute before 429 (OpenClaw's
/// HOOK_AUTH_FAILURE_LIMIT / HOOK_AUTH_FAILURE_WINDOW_MS).
inline constexpr int kHookAuthFailureLimit = 20;
inline constexpr int64_t kHookAuthWindowMs = 60'000;
/// How long an idempotency key is remembered, ms, and how many at most.
inline constexpr int64_t kHookReplayTtlMs = 10 * 60'000;
inline constexpr std::size_t kHookReplayMaxEntries = 1000;

class HooksRuntime {
 public:
  HooksRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
               gateway::Gateway& gateway, automation::HeartbeatScheduler& heartbeat, const nlohmann::json& config,
               std::filesystem::path state_dir);
  ~HooksRuntime();

  /// Runs once more the hook turns a restart cut off (run journal), adds the route when enabled.
  /// Call before AgentService::resume_unfinished(). A `hooks` block that does not resolve (config
  /// validate refuses it first) is logged and leaves the endpoints off.
  void start();
  /// A hot config reload: `hooks.*`, the agents, the channels.
  void reconfigure(const nlohmann::json& config);
  /// The gateway is stopping: the route answers 503, no new run starts.
  void stop();

  /// `hooks.status`: {workspaceDir, managedHooksDir, hooks: [], webhooks: {enabled, path,
  /// maxBodyBytes, mappings: [id], counters: {accepted, refused, unauthorized, throttled},
  /// lastRequestAtMs, lastRunId}}.
  nlohmann::json status(const std::string& agent_id) const;

 private:
  struct Turn;
  void apply(const nlohmann::json& config);
  void handle(const net::HttpRouteRequest& request, const net::HttpResponder& respond);
  void dispatch(const net::HttpRouteRequest& request, const std::string& sub_path, const net::HttpResponder& respond);
  void wake(const automation::HookWake& wake);
  Result<std::string> start_turn(const automation::HookAgentTurn& turn, const std::string& source_path);
  void run(Turn turn, bool resume);
  void finished(const Turn& turn, const agent::RunEvent& end);

  EventLoop& loop_;
  agent::AgentService& agents_;
  channels::ChannelManager& channels_;
  gateway::Gateway& gateway_;
  automation::HeartbeatScheduler& heartbeat_;
  std::filesystem::path state_dir_;
  nlohmann::json config_;
  automation::HooksSettings settings_;
  std::string default_agent_ = "main";
  std::map<std::string, std::filesystem::path> workspaces_;  ///< agent id → workspace
  std::vector<std::string> channel_ids_;                     ///< configured channels (`channel` values)
  std::string route_path_;                                   ///< "" = no route added
  bool stopped_ = false;
  gateway::AuthRateLimiter limiter_;
  struct Replay {
    int64_t at_ms;
    std::string run_id;
  };
  std::map<std::string, Replay> replays_;
  std::deque<std::string> replay_order_;
  struct Counters {
    int64_t accepted = 0, refused = 0, unauthorized = 0, throttled = 0;
  } counters_;
  int64_t last_request_ms_ = 0;
  std::string last_run_id_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::app
