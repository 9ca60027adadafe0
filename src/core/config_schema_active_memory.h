// `plugins.entries["active-memory"]` of pincer.json (SPEC DR-6; OpenClaw's plugin id, key path and
// names): active recall before each reply. Read by src/memory/recall/active_recall_settings.cpp;
// used by config_schema.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `plugins.entries["active-memory"]`: {enabled, config: {agents, queryMode, promptStyle, …}}.
Node active_memory_entry();

}  // namespace pincer::config::schema
