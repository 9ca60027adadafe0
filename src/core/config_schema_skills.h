// The `skills` section of pincer.json (SPEC SK-1..4; OpenClaw's `skills.*` keys plus Pincer's
// `skills.trust`) and the per-agent `agents.list[].skills` filter; used by config_schema.cpp.
// Read by src/skills/skill_loader.cpp and skill_usage.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `skills`: load.extraDirs, entries.<key>.{enabled, env, apiKey, config}, allowBundled, trust.
Node skills_section();
/// `agents.list[].skills`: the names of the skills this agent may use (absent = all).
Node agent_skills_filter();

}  // namespace pincer::config::schema
