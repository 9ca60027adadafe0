// The `memory` section of pincer.json (SPEC MM-4..MM-7) and the per-agent `memory.search`
// override; used by config_schema.cpp. Read by src/memory/memory_config.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `memory`: backend, citations, search.
Node memory_section();
/// `memory.search` (also `agents.list[].memory.search`). `per_agent` words the docs for an override.
Node memory_search_node(bool per_agent);

/// `agents.defaults.compaction.memoryFlush` (CX-10).
Node memory_flush_node();
/// `agents.defaults.startupContext` (CX-2: daily notes in a new session's first turn).
Node startup_context_node();

}  // namespace pincer::config::schema
