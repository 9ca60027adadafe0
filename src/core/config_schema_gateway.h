// The `gateway` section of pincer.json: listener, auth modes, control UI, reload and the HTTP
// endpoints (config_schema_gateway_http.h). Used by config_schema.cpp; read by src/gateway/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `gateway`: port, bind, customBindHost, drainTimeoutMs, auth.{mode, token, password, rateLimit,
/// trustedProxy}, trustedProxies, controlUi, reload, http.
Node gateway_section();

}  // namespace pincer::config::schema
