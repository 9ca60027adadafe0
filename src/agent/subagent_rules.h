// The rules of subagents (SPEC MA-3, QL-2; docs/subagents.md), pure: the settings, who may spawn
// (depth, role, children per session, target agents), what a child is told and which tools it
// loses, and the announce message that carries a child's result back into its parent session.
// The registry that applies them is agent/subagents.h.
//
// Depth: a session's depth is its sessions.json entry's `spawnDepth` (OpenClaw's field; the main
// session and any session without the field: 0; a child of depth d spawns children of depth
// d + 1). Role: a session with depth < maxSpawnDepth is an orchestrator (may spawn), else a leaf.
//
// Pure: no I/O, no state; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "store/session_index.h"

namespace pincer::tools {
class Tool;
}

namespace pincer::agent {

/// Defaults (MA-3): nesting stops below depth 2; at most 5 running children per parent session.
inline constexpr int kDefaultMaxSpawnDepth = 2;
inline constexpr int kMaxMaxSpawnDepth = 5;
inline constexpr int kDefaultMaxChildrenPerAgent = 5;
inline constexpr int kMaxMaxChildrenPerAgent = 20;

/// `agents.defaults.subagents.*` and the requester's `agents.list[].subagents.allowAgents`.
struct SubagentSettings {
  int max_spawn_depth = kDefaultMaxSpawnDepth;            ///< maxSpawnDepth, 1..5
  int max_children = kDefaultMaxChildrenPerAgent;         ///< maxChildrenPerAgent, 1..20
  int64_t run_timeout_seconds = 0;                        ///< runTimeoutSeconds; 0 = the agent's timeoutSeconds
  /// allowAgents as configured (the agent's list wins over the defaults' list); not configured =
  /// a spawn may target only the requester's own agent; "*" = any configured agent.
  bool allow_agents_configured = false;
  std::vector<std::string> allow_agents;
};

/// Reads the settings for spawns requested by agent `requester_agent_id` from the effective
/// config (values out of range are clamped; the schema refuses them at load).
SubagentSettings subagent_settings(const nlohmann::json& config, const std::string& requester_agent_id);

enum class SubagentRole { Orchestrator, Leaf };
const char* to_string(SubagentRole role);
/// Orchestrator when `depth` < `max_spawn_depth`, else Leaf.
SubagentRole subagent_role(int depth, int max_spawn_depth);

/// The depth of a session: its entry's `spawnDepth` (a non-negative integer), else 0.
int session_depth(const store::SessionEntry* entry);

/// What a spawn request is checked against.
struct SpawnCheck {
  int caller_depth = 0;         ///< depth of the requesting session
  int active_children = 0;      ///< its children still queued or running
  std::string requester_agent;  ///< the requesting session's agent
  std::string target_agent;     ///< the requested agentId ("" = none: the requester's agent)
  std::vector<std::string> configured_agents;  ///< every configured agent id
};

/// Ok when the spawn may go ahead; else error "FORBIDDEN" with one of
///   `sessions_spawn is not allowed at this depth (current depth: 2, max: 2): this session is a leaf subagent`
///   `sessions_spawn has reached max active children for this session (5/5)`
///   `agentId "x" is not allowed for sessions_spawn (allowed: main)`
/// or "INVALID_REQUEST" `unknown agentId "x" (agents: …)`.
Status check_spawn(const SpawnCheck& check, const SubagentSettings& settings);

/// "agent:<agent>:subagent:<uuid>".
std::string subagent_session_key(const std::string& agent_id, const std::string& uuid);

/// Tools every subagent run loses whatever its role (OpenClaw's hard-deny layer: the control plane
/// and direct delivery stay with the parent) — on top of the policy's `subagent` layer.
const std::vector<std::string>& subagent_denied_tools();
/// Tools a leaf subagent loses besides (it cannot spawn or manage children).
const std::vector<std::string>& leaf_denied_tools();

/// The subagent envelope of a run in session `entry` (MA-3): when the entry records a spawn
/// (`spawnedBy`), removes the denied tools (and the leaf's) from `tools` and returns the text
/// added to the system prompt (who spawned the session, its depth and role, that its final
/// answer is announced back); "" and nothing removed for any other session. Applied to every
/// run of a subagent session (first turn, steer follow-ups, announce continuations, resumes).
std::string apply_subagent_envelope(const nlohmann::json& config, const store::SessionEntry* entry,
                                    std::vector<const tools::Tool*>& tools);

/// The child's first message: its task with a short header (depth n/max).
std::string subagent_task_message(const std::string& task, int depth, int max_spawn_depth);

/// How a child run ended, as the announce reports it (not inferred from the model's text).
struct ChildOutcome {
  std::string status;  ///< "ok" | "error" | "timeout" | "aborted"
  std::string detail;  ///< error: the error line; aborted: the reason ("killed", "stop" …)
};
/// From the terminal event: End → ok; Error → error; Aborted by "timeout" → timeout; other
/// Aborted → aborted. `kind`: 0 End, 1 Error, 2 Aborted.
ChildOutcome child_outcome(int kind, const std::string& stop_reason, const std::string& error);
/// "completed", "timed out after 30 s", "failed: <detail>", "aborted (killed)".
std::string outcome_label(const ChildOutcome& outcome, int64_t timeout_seconds);

/// What the parent is told when a child ends.
struct AnnounceInput {
  std::string child_session_key, child_session_id, run_id;
  std::string task_label;      ///< the spawn's label, else the task's first line (cut)
  ChildOutcome outcome;
  int64_t timeout_seconds = 0;
  std::string result;          ///< the child's final reply (ok only; "" = no output)
  int64_t runtime_ms = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  bool requester_is_subagent = false;  ///< the parent is itself a subagent session
};
/// The message queued into the parent session: a marked internal block (source, session, task,
/// status, the result, a stats line) and the instruction to answer in the assistant's own voice
/// (or NO_REPLY when the user already has it).
std::string announce_message(const AnnounceInput& input);

}  // namespace pincer::agent
