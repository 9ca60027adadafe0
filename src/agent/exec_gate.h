// The run hook that sends each `exec` call through the exec approvals (TL-3) before it runs.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "llm/messages.h"
#include "tools/approvals/approval_manager.h"

namespace pincer::agent {

/// Who and where a run's tool calls come from, as the approval manager needs it.
struct ExecGateContext {
  std::string run_id, session_key, agent_id;
  std::filesystem::path workspace;  ///< a relative `workdir` is resolved against it
  std::string lane = "main";        ///< main|subagent|nested|cron|heartbeat|hook
  tools::approvals::ExecOrigin origin;
  bool sender_is_owner = true;
};

/// RunHooks::gate_tool_call for a run: calls other than `exec` (and an `exec` without a string
/// command, which fails its own argument check) pass at once; an `exec` is described exactly as it
/// will run (command, cwd, env overrides) and decided by `approvals` — `done(nullopt)` runs it,
/// `done(reason)` refuses it. `approvals` must outlive the run (loop thread only).
std::function<void(const llm::ToolCall&, std::function<void(std::optional<std::string>)>)> make_exec_gate(
    tools::approvals::ApprovalManager& approvals, ExecGateContext context);

}  // namespace pincer::agent
