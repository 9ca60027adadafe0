// The `bindings` and `channels` sections of pincer.json (RT-3, CH-3, CH-4, CH-6): which agent
// answers where, and the per-channel (and per-account) settings. Used by config_schema.cpp; read by
// src/routing/ and src/channels/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `bindings`: array of {type, agentId, comment, match, acp}.
Node bindings_section();
/// `channels`: map of channel id → {enabled, credentials of the channel, dmPolicy, allowFrom,
/// groupPolicy, groups, textChunkLimit, chunkMode, streaming, …, accounts}.
Node channels_section();

}  // namespace pincer::config::schema
