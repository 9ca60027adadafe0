// The session and messaging tools (SPEC TL-1, MA-2), in OpenClaw's names and parameters:
//   sessions_list    {limit? 1..200 (50), activeMinutes? ≥1, messageLimit? 0..20 (0), kinds?
//                     [main|group|cron|hook|node|other], label?, agentId?, search?}
//                    → {count, sessions:[{key, kind, channel, agentId, sessionId, updatedAt, label?,
//                       displayName?, model?, contextTokens?, messages?}], hasMore, limitApplied,
//                       visibility?}
//   sessions_history {sessionKey, limit? 1..1000 (50), includeTools? (false)}
//                    → {sessionKey, messages, truncated, droppedMessages, contentTruncated, bytes}
//   session_status   {sessionKey? (this session), model? ("provider/id", an alias, or "default")}
//                    → {ok, sessionKey, agentId, model, thinkingLevel, messages, running,
//                       statusText, changedModel}
//   sessions_send    {sessionKey? | label? | agentId?, message, timeoutSeconds? ≥0 (30)}
//                    → {runId, status:"ok", reply, sessionKey, delivery} | {status:"accepted"} (timeout 0)
//                      | {status:"timeout"|"error"|"forbidden", error, sessionKey?}
//   message          {action? "send", message, channel?, target?|to?, accountId?, threadId?}
//                    → {ok, action:"send", channel, accountId, to, threadId?, messageId}
//                    {action: "react", emoji, remove? (false), messageId?|message_id?, channel?,
//                     target?|to?, accountId?} → {ok, action:"react", channel, to, messageId, emoji,
//                     removed} — offered only in runs from a channel with reactions (CH-8,
//                     offer_message_reactions); messageId defaults to the message the run answers
// Arguments are checked here (check_session_tool_args); what the tools may reach (visibility,
// tools.agentToAgent) is decided by their backends (agent/session_tools_backend.h for the first
// four, app/message_runtime.h for `message`). A tool whose backend is null answers UNAVAILABLE.
// Answers are JSON text; a refusal from the backend ({status:"error"|"forbidden", error}) is
// returned as an error output carrying that JSON.
//
// Threading: tools run on worker threads; the backends block until the loop answers.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/tool.h"

namespace pincer::tools {

/// Checks beyond the JSON schema (ranges, one of sessionKey/label, non-blank text, known
/// actions). Error code "TOOL_ARGS_INVALID", the message naming the argument:
/// `sessions_send: give sessionKey, label or agentId`. Pure.
Status check_session_tool_args(std::string_view tool, const nlohmann::json& args);

/// sessions_list, sessions_history, session_status, sessions_send (group "sessions").
std::vector<std::unique_ptr<Tool>> make_session_tools();
/// message (group "messaging"), with the send action only.
std::unique_ptr<Tool> make_message_tool();
/// In a run started from a channel that can react (ExecOrigin::reactions, CH-8): replaces the
/// `message` tool in `tools` (the run's, after its tool policy) by the one that also offers
/// `react`. Nothing changes when the policy removed `message`.
void offer_message_reactions(std::vector<const Tool*>& tools);

}  // namespace pincer::tools
