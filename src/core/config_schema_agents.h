// The `agents` section of pincer.json (AG-*, CX-2, CX-3): the defaults every agent inherits and
// the agent list. Used by config_schema.cpp and config_schema_channels.cpp (block streaming);
// read by src/agent/ and src/context/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `agents`: defaults.{model, workspace, contextTokens, sandbox, heartbeat, cliBackends, …} and
/// list[].{id, model, workspace, skills, …}.
Node agents_section();
/// `blockStreamingCoalesce` of agents.defaults and of a channel (CH-4): minChars, maxChars, idleMs.
Node block_streaming_coalesce();

}  // namespace pincer::config::schema
