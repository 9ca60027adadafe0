// Where the CLI finds its gateway and credentials (UI-1). Precedence, as OpenClaw's CLI:
//   URL:   --url > PINCER_GATEWAY_URL > ws://127.0.0.1:<PINCER_GATEWAY_PORT | gateway.port | 18789>
//   token: --token > PINCER_GATEWAY_TOKEN > gateway.auth.token (the config's secrets are only used
//          for the local gateway — the default URL, or an explicit one that is this gateway's own
//          loopback address: any other explicit URL needs explicit credentials)
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

/// The port of `url` when it is a loopback address of this machine: ws:// or wss:// to 127.0.0.1,
/// localhost or [::1] (the port written, else 80 / 443); nullopt for any other URL (another host,
/// user info, a malformed one). resolve_connection sends the config's credentials to such a URL
/// only when its port is the local gateway's.
std::optional<int> own_loopback_port(const std::string& url);

/// An explicit URL (--url, PINCER_GATEWAY_URL) gets the config's gateway.auth token/password only
/// when no token or password came from flags or the environment and the URL is this gateway's own
/// loopback address (own_loopback_port() equal to gateway_port() of the local config): a local
/// secret is never sent to another host. Errors: "CONFIG_INVALID" (pincer.json cannot be loaded: its message names the file and line;
/// only when the config is needed), "INVALID_ARGUMENT" (bad PINCER_GATEWAY_PORT).
Result<ClientOptions> resolve_connection(const ConnectionFlags& flags, const config::EnvLookup& env);

/// When a client cannot reach `url` but this state dir's gateway runs (its lock file,
/// <state>/gateway.lock, names a living PID): one sentence saying where that gateway listens and how
/// to reach it (or that it does not listen yet, or that it is shutting down or restarting: its
/// lock file says so during the drain); "" when no gateway of this home runs, or it listens on the
/// port of `url` already.
std::string running_gateway_note(const config::EnvLookup& env, const std::string& url);

}  // namespace pincer::cli
