// The `session` and `messages` sections of pincer.json (RT-1, RT-2, SS-5, QL-3): session keys,
// automatic resets and the handling of inbound messages. Used by config_schema.cpp; read by
// src/routing/ and src/delivery/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `session`: dmScope, mainKey, identityLinks, reset, resetByType, resetByChannel, agentToAgent.
Node session_section();
/// `messages`: message handling for channels (queue, inbound debounce).
Node messages_section();

}  // namespace pincer::config::schema
