// The subagent tools (SPEC MA-3; docs/subagents.md), in OpenClaw's shapes:
//   sessions_spawn {task, label?, agentId?, model?, thinking?, runTimeoutSeconds?, cleanup?:
//                   "delete"|"keep"} → {status:"accepted", runId, childSessionKey, …} at once; the
//                   child runs in the background and its result comes back as a message.
//   subagents      {action: "list"|"kill"|"steer", target?, message?} for the calling session's
//                   own children.
// Both forward to ToolContext::session_backends.subagents (agent/subagents.h); without it they
// answer that subagents are unavailable. Group "sessions" (OpenClaw's group:sessions).
#pragma once

#include <memory>
#include <vector>

#include "tools/tool.h"

namespace pincer::tools {

/// sessions_spawn and subagents, in that order.
std::vector<std::unique_ptr<Tool>> make_subagent_tools();

}  // namespace pincer::tools
