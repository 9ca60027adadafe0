// Reads the routing settings out of an effective (validated, defaulted) pincer.json tree:
// `bindings[]`, `session.dmScope`, `session.identityLinks` and the agent ids of `agents.list[]`
// (docs/configuration.md). The schema in core/config_schema.cpp has already checked shapes, so
// anything unexpected here is skipped rather than reported.
//
// Notes on OpenClaw parity (research/openclaw-protocol.md §6, §7.4):
//   * Only route bindings (`type` "route" or omitted) are kept; "acp" bindings do not route.
//   * `session.identityLinks` is a JSON object; the config tree keeps object keys sorted, so links
//     are tried in key order (OpenClaw: insertion order). It only matters when one platform id is
//     listed under two names, which is a configuration mistake either way.
//   * `session.mainKey` is not read: OpenClaw ignores it (the main session is always "main").
#pragma once

#include <nlohmann/json.hpp>

#include "routing/bindings.h"

namespace pincer::routing {

/// The routing configuration of `effective` (see above). Never fails.
RoutingConfig routing_config_from_json(const nlohmann::json& effective);

}  // namespace pincer::routing
