// The agent runtime's side of the session tools (SPEC TL-1, MA-2): sessions_list,
// sessions_history, session_status and sessions_send over AgentService.
//
// Every call is handed to the event loop (AgentService is loop-only); the tool's worker thread
// waits on a future — 30 s for the reads, `timeoutSeconds` (+ 5 s) for sessions_send, and it stops
// waiting when the run is aborted (ToolContext::cancelled).
//
// Who may see what (agent/session_tools_policy.h), read from the run's config snapshot
// (ToolContext::config): tools.sessions.visibility, then tools.agentToAgent for another agent's
// sessions. Relative keys ("main", "work") are the calling agent's.
//
// sessions_send (MA-2, OpenClaw's flow):
//   1. the target (sessionKey | label from sessions.json | agentId → that agent's main session)
//      is checked (visibility, agent-to-agent policy; the calling session itself only with
//      timeoutSeconds 0, and then without the exchange of steps 4-5 — as when either session is a
//      subagent's (its entry has `spawnedBy`));
//   2. the message runs as a turn of the target session on the `nested` lane (never the
//      caller's main-lane slot), not as the owner, prefixed with the agent-to-agent context
//      and OpenClaw's "[Inter-session message] sourceSession=… isUser=false" provenance header;
//   3. the tool waits up to timeoutSeconds (default 30; 0 = answers {status:"accepted"} at once)
//      and answers {runId, status:"ok", reply, sessionKey, delivery} — or "timeout"/"error";
//   4. once the target has replied (whether or not the tool still waited), the ping-pong runs on
//      the loop: turn 1 = the requester's session gets the reply, turn 2 = the target gets that
//      answer, … at most session.agentToAgent.maxPingPongTurns (0..5, default 5) turns, ended
//      early by a REPLY_SKIP (or NO_REPLY / empty) answer or a failed turn;
//   5. the announce step: the target is asked whether to post the outcome to its own chat; a
//      reply other than ANNOUNCE_SKIP is sent there through the announcer the app sets (when the
//      target session has a chat), once.
// Turns of the exchange are not journaled: a restart in the middle ends the exchange.
//
// Loop affinity: construct, reconfigure and destroy on the loop; call() on worker threads only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "core/event_loop.h"
#include "tools/sessions/sessions_backend.h"

namespace pincer::agent {

/// Posts `text` to the chat of session `session_key` (agent `agent_id`) exactly once per `id`;
/// Error NOT_FOUND when the session has no chat. Runs on the loop. Set by the app.
using SessionAnnouncer = std::function<Status(const std::string& agent_id, const std::string& session_key,
                                              const std::string& text, const std::string& id)>;

/// How often (and how many) the exchange of one sessions_send took turns; for tests and logs.
struct AgentToAgentStats {
  int64_t exchanges = 0;        ///< exchanges finished (announce step done or skipped)
  int64_t ping_pong_turns = 0;  ///< reply-step turns run, all exchanges
  int64_t announced = 0;        ///< announce replies delivered to a chat
};

class SessionToolsBackend : public tools::SessionsBackend {
 public:
  SessionToolsBackend(EventLoop& loop, AgentService& agents);
  ~SessionToolsBackend() override;
  SessionToolsBackend(const SessionToolsBackend&) = delete;
  SessionToolsBackend& operator=(const SessionToolsBackend&) = delete;

  /// The announce step's delivery (null: announce replies stay in the target session). Loop.
  void set_announcer(SessionAnnouncer announcer);

  /// Worker threads. Errors: "UNAVAILABLE" (the loop did not answer, the gateway is stopping),
  /// "TOOL_ARGS_INVALID"; refusals are answers {status:"forbidden"|"error", error}.
  Result<nlohmann::json> call(std::string_view tool, const nlohmann::json& args, const tools::ToolContext& ctx) override;

  /// Loop.
  const AgentToAgentStats& stats() const;

  /// What a tool call knows of its caller (copied from the ToolContext).
  struct Caller {
    std::string agent_id, session_key, channel, run_id;
    std::shared_ptr<const nlohmann::json> config;
  };
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace pincer::agent
