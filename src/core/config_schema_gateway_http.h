// `gateway.http` of pincer.json (SPEC IX-4, GW-9; OpenClaw's `gateway.http.endpoints`): the
// switches of the OpenAI-compatible HTTP API; used by config_schema.cpp. Read by
// src/interop/openai_http/openai_http_service.cpp (endpoint_switches), applied hot.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// The `gateway.http` section.
Node gateway_http_section();

}  // namespace pincer::config::schema
