// The `models` section of pincer.json (PV-1): `models.providers.<id>` with its base URL, API kind,
// key and model list. Used by config_schema.cpp; read by src/llm/.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// `models`: providers.<id>.{baseUrl, apiKey, api, headers, models[], oauth}.
Node models_section();

}  // namespace pincer::config::schema
