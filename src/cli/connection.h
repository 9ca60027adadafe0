// Where the CLI finds its gateway and credentials (UI-1). Precedence, as OpenClaw's CLI:
//   URL:   --url > PINCER_GATEWAY_URL > ws://127.0.0.1:<PINCER_GATEWAY_PORT | gateway.port | 18789>
//   token: --token > PINCER_GATEWAY_TOKEN > gateway.auth.token (the config's secrets are only used
//          for the local gateway: an explicit remote URL needs explicit credentials)
//   password: same with --password / PINCER_GATEWAY_PASSWORD / gateway.auth.password
#pragma once

#include <optional>
#include <string>

#include "cli/gateway_client.h"
#include "core/config.h"

namespace pincer::cli {

struct ConnectionFlags {
  std::optional<std::string> url;
  std::optional<std::string> token;
  std::optional<std::string> password;
  int timeout_ms = 30'000;  ///< per request (connect uses min(timeout, 10 s))
};

/// The port `pincer gateway run` listens on when no --port is given: PINCER_GATEWAY_PORT (when
/// set and non-empty) > `gateway["port"]` > 18789. `gateway` is the config's `gateway` section
/// (an object, or null for none). 0 means "any free port". Errors: "INVALID_ARGUMENT" naming
/// PINCER_GATEWAY_PORT (not a number in 0..65535) or gateway.port (not an integer).
Result<int> gateway_port(const nlohmann::json& gateway, const config::EnvLookup& env);

/// Errors: "CONFIG_INVALID" (pincer.json cannot be loaded: its message names the file and line;
/// only when the config is needed), "INVALID_ARGUMENT" (bad PINCER_GATEWAY_PORT).
Result<ClientOptions> resolve_connection(const ConnectionFlags& flags, const config::EnvLookup& env);

}  // namespace pincer::cli
