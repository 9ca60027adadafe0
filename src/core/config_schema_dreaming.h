// `plugins.entries["memory-core"].config.dreaming` of pincer.json (SPEC DR-1; OpenClaw's plugin id,
// key path and names): memory consolidation. Read by src/memory/dreaming/dreaming_settings.cpp;
// used by config_schema.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `plugins.entries["memory-core"]`: {config: {dreaming: {enabled, frequency, timezone, …}}}.
Node memory_core_entry();

}  // namespace pincer::config::schema
