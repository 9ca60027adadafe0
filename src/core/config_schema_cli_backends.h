// The `agents.defaults.cliBackends` section of pincer.json (issue 17 item 5; OpenClaw's key and
// field names): coding-agent CLIs used as the model. Read by src/agent/cli_backend_config.cpp;
// used by config_schema.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `agents.defaults.cliBackends`: backend id → {command, args, resumeArgs, output, input, …}.
Node cli_backends_section();

}  // namespace pincer::config::schema
