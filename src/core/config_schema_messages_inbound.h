// The `messages.inbound` section of pincer.json (OpenClaw's key and field names): the inbound
// debounce of channel messages, read by src/channels/inbound_debounce.cpp. Used by
// config_schema_session.cpp (messages_section).
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `messages.inbound`: {debounceMs, byChannel: {<channel id>: ms}}.
Node messages_inbound_section();

}  // namespace pincer::config::schema
