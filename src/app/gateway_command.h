// `pincer gateway run`: resolves settings from config, environment and flags, enforces the
// start-up safety rules (AU-1, GW-1) and runs the gateway in the foreground.
#pragma once

#include <optional>
#include <string>

namespace pincer::app {

/// Command-line overrides; unset fields fall back to env, then config (precedence as OpenClaw:
/// flag > PINCER_GATEWAY_* env > pincer.json > default).
struct GatewayRunFlags {
  std::optional<int> port;
  std::optional<std::string> bind;   ///< loopback | lan | custom
  std::optional<std::string> host;   ///< custom bind address (implies bind=custom)
  std::optional<std::string> auth;   ///< none | token | password | trusted-proxy
  std::optional<std::string> token;
  std::string token_flag = "--token";  ///< the flag that gave `token`: --token or --token-file
  std::optional<std::string> password;
  std::string password_flag = "--password";
};

/// Runs until SIGTERM/SIGINT. Returns the process exit code: 0 after a clean shutdown,
/// 1 when the gateway cannot start (already running, port busy, unsafe bind), 2 for invalid
/// configuration — the schema, then every error cli::check_config finds (what `pincer config
/// validate` reports, except a Control UI root without a built UI, which answers 503). Prints one
/// clear line to stderr for every failure. Reloads of the edited file pass the same checks.
int run_gateway(const GatewayRunFlags& flags);

}  // namespace pincer::app
