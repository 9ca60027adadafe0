// The pure rules of the session tools (SPEC TL-1, MA-2), as OpenClaw has them:
//   - agent-to-agent policy (`tools.agentToAgent`): enabled by default; `allow` lists agent ids or
//     `*` patterns (exact ids case-sensitive, patterns any case, a blank entry matches nothing);
//     empty or absent = every agent. A cross-agent call needs enabled and both agents allowed;
//     an agent always reaches its own sessions;
//   - session visibility (`tools.sessions.visibility`): self | tree | agent | all (default all):
//     which sessions the tools may target at all (tree = this session + the sessions it spawned,
//     and every session of the agent when called from the agent's main session);
//   - the ping-pong cap (`session.agentToAgent.maxPingPongTurns`, 0..5, default 5);
//   - the non-deliverable replies REPLY_SKIP / ANNOUNCE_SKIP / NO_REPLY / HEARTBEAT_OK;
//   - the texts of an agent-to-agent exchange: the inter-session provenance prefix of the message
//     (OpenClaw's "[Inter-session message] …" header), the context lines of the first message, of
//     each reply step and of the final announce step;
//   - a session's kind from its key, and the history a tool may show (tool blocks dropped unless
//     asked for, each text cut to 4 000 characters, the oldest messages dropped past 80 KB).
// Everything here is pure and thread-agnostic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::agent {

/// `tools.agentToAgent` (MA-2).
struct AgentToAgentPolicy {
  bool enabled = true;
  std::vector<std::string> allow;  ///< empty = every agent
  /// `agent_id` matches `allow` (always true for an empty list).
  bool matches(const std::string& agent_id) const;
  /// The requester may reach the target agent's sessions: same agent, or enabled and both match.
  bool allows(const std::string& requester, const std::string& target) const;
};
AgentToAgentPolicy agent_to_agent_policy(const nlohmann::json& config);

enum class SessionVisibility { Self, Tree, Agent, All };
/// `tools.sessions.visibility` (default All; an unknown value = All, the schema refuses it first).
SessionVisibility session_visibility(const nlohmann::json& config);
const char* to_string(SessionVisibility v);

/// `session.agentToAgent.maxPingPongTurns`, clamped to 0..5 (default 5).
inline constexpr int kMaxPingPongTurns = 5;
int max_ping_pong_turns(const nlohmann::json& config);

/// OpenClaw's sentinel replies of sessions_send.
inline constexpr std::string_view kReplySkipToken = "REPLY_SKIP";
inline constexpr std::string_view kAnnounceSkipToken = "ANNOUNCE_SKIP";
/// True for a reply that is only REPLY_SKIP, ANNOUNCE_SKIP, NO_REPLY or HEARTBEAT_OK (edge
/// punctuation and whitespace ignored): it ends an exchange and is never delivered.
bool is_non_deliverable_reply(std::string_view text);

/// The decision on one target session.
struct SessionAccess {
  bool allowed = true;
  std::string status;  ///< "forbidden" when not allowed
  std::string error;   ///< OpenClaw's wording, naming the setting to change
};
/// May the run of `requester_key` (agent `requester_agent`) do `action` ("list", "history",
/// "status", "send") on `target_key` (agent `target_agent`)? `spawned_by_requester`: the target's
/// sessions.json entry names the requester as its `spawnedBy`.
SessionAccess session_access(std::string_view action, SessionVisibility visibility, const AgentToAgentPolicy& policy,
                             const std::string& requester_agent, const std::string& requester_key,
                             const std::string& target_agent, const std::string& target_key, bool spawned_by_requester);

/// "main", "group", "cron", "hook", "node" or "other" for a canonical key `agent:<id>:<rest>`.
std::string session_kind(const std::string& key);

/// The first lines of a message that came from another session (OpenClaw's provenance header):
/// "[Inter-session message] sourceSession=<key> sourceChannel=<ch> sourceTool=sessions_send
/// isUser=false" and its explanation line, then `text`.
std::string inter_session_message(const std::string& source_key, const std::string& source_channel,
                                  const std::string& text);

/// Who is who in an agent-to-agent exchange.
struct AgentToAgentParties {
  std::string requester_key, requester_channel, target_key, target_channel;
};
/// The context of the first message ("Agent-to-agent message context: …").
std::string a2a_message_context(const AgentToAgentParties& p);
/// The context of ping-pong turn `turn` of `max_turns` for `current_is_requester`.
std::string a2a_reply_context(const AgentToAgentParties& p, bool current_is_requester, int turn, int max_turns);
/// The final step's prompt: the target decides whether to post to its own chat.
std::string a2a_announce_context(const AgentToAgentParties& p, const std::string& original,
                                 const std::string& round_one_reply, const std::string& latest_reply);

/// Limits of sessions_history (OpenClaw's SESSIONS_HISTORY_TEXT_MAX_CHARS / _MAX_BYTES).
inline constexpr std::size_t kHistoryTextMaxChars = 4000;
inline constexpr std::size_t kHistoryMaxBytes = 80 * 1024;
/// `messages` (pi transcript messages) as the tool shows them: {messages, truncated,
/// droppedMessages, contentTruncated, bytes}. Without `include_tools`, toolResult messages and
/// toolCall/thinking blocks are dropped (an assistant message left with no content too).
nlohmann::json history_for_tool(const nlohmann::json& messages, bool include_tools,
                                std::size_t max_text_chars = kHistoryTextMaxChars,
                                std::size_t max_bytes = kHistoryMaxBytes);

/// Where a session's replies go, from its key (routing/session_routing.h shapes):
/// agent:<a>:<channel>[:<account>]:direct|group|channel:<peer>[:thread:<t>] (Telegram topics
/// "<chat>:topic:<t>") → that chat; the agent's main session `agent:<a>:main` → channel "last"
/// (the chat the agent last heard from); anything else (cron, hook, subagent sessions) → none.
struct SessionChat {
  std::string channel, account_id, to, thread_id;
};
std::optional<SessionChat> session_chat(const std::string& session_key);

/// The plain text of a message's content (string, or the text blocks joined).
std::string message_text(const nlohmann::json& message);

}  // namespace pincer::agent
