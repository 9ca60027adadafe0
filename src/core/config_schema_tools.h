// The `tools` and `approvals` sections of pincer.json (TL-1..TL-4): which tools agents get, how
// the built-in tools behave and who approves commands. Used by config_schema.cpp; read by
// src/tools/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `tools`: profile, allow, alsoAllow, deny, toolSearch, exec, web, byProvider, subagents,
/// agentToAgent, sessions.
Node tools_section();
/// `approvals`: mode, triageModel, triageTimeoutSec, askFallback, timeoutSec.
Node approvals_section();

}  // namespace pincer::config::schema
