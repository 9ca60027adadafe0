// Config methods: config.get, config.schema (GW-7 "config"). Secrets never leave the gateway:
// config.get answers the effective config with sensitive values redacted, values that came from
// "${NAME}" shown as written and URL userinfo masked (config::redact_for_clients).
#include "core/config.h"
#include "gateway/gateway.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

/// `config.get` → `{path, exists, valid, hash, config, issues}` (config = effective, redacted;
/// operator.read is enough, so nothing substituted from the environment is shown).
MethodResult config_get(MethodContext& ctx) {
  const auto& s = ctx.gateway.settings();
  return json{{"path", s.config_path.string()},
              {"exists", s.config_exists},
              {"valid", true},
              {"hash", s.config_hash},
              {"config", config::redact_for_clients(s.config, s.config_written)},
              {"issues", json::array()}};
}

/// `config.schema` → `{schema, version}`: the JSON Schema generated from the one declarative schema.
MethodResult config_schema(MethodContext& ctx) {
  static const std::string payload = json{{"schema", config::json_schema()}, {"version", PINCER_VERSION}}.dump();
  return RawJson{payload};
}

}  // namespace

void register_config_methods(MethodRegistry& registry) {
  registry.add({"config.get", config_get});
  registry.add({"config.schema", config_schema});
}

}  // namespace pincer::gateway
