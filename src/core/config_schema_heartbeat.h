// `agents.defaults.heartbeat` and `agents.list[].heartbeat` of pincer.json (SPEC AT-1; OpenClaw's
// heartbeat block); used by config_schema.cpp. Read by src/automation/heartbeat.cpp, which also
// checks what the schema cannot (durations, HH:MM times, the zone: heartbeat_problems).
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// The heartbeat block. `per_agent` words the docs for an agent's override.
Node heartbeat_node(bool per_agent);

}  // namespace pincer::config::schema
