// The `mcp` section of pincer.json (issue 18 item 2): the MCP servers whose tools become agent
// tools (docs/interop.md "MCP client"). OpenClaw's key names (`mcp.servers.<name>`); read by
// src/interop/mcp/mcp_config.cpp; used by config_schema.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `mcp`: {servers: name → {command, args, env, cwd | url, headers, transport, …}, eagerToolLimit, …}.
Node mcp_section();

}  // namespace pincer::config::schema
