// The tool settings of one run, read from the configuration before it starts: exec's limits
// (tools.exec.timeoutSec, tools.exec.maxOutputChars), the sandbox when it applies to the session
// (agents.defaults.sandbox / agents.list[].sandbox, TL-5), and the config snapshot the web tools
// read (tools.web.*, plugins.entries.*).
//
// Loop affinity: none (pure function of its arguments).
#pragma once

#include <nlohmann/json.hpp>

#include "agent/agent_run.h"
#include "core/result.h"

namespace pincer::agent {

/// Fills in.exec_timeout_ms, in.exec_max_output_chars, in.sandbox and in.config for
/// in.agent_id / in.session_key. Error "CONFIG_INVALID" when the sandbox settings are invalid
/// (the run must not start unsandboxed then). `config` (pincer.json, never null) becomes in.config.
Status apply_tool_settings(RunInputs& in, const std::shared_ptr<const nlohmann::json>& config);

}  // namespace pincer::agent
