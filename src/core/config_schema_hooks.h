// `hooks` of pincer.json (SPEC AT-3; OpenClaw's `hooks` block: inbound webhooks); used by
// config_schema.cpp. Read by src/automation/hooks.cpp, which also checks what the schema cannot
// (the token's presence when enabled, the key-prefix policy, mappings: hooks_settings_from_config).
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// The `hooks` section.
Node hooks_section();

}  // namespace pincer::config::schema
