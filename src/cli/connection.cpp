#include "cli/connection.h"

#include <charconv>

#include "core/paths.h"

namespace pincer::cli {

Result<int> gateway_port(const nlohmann::json& gateway, const config::EnvLookup& env) {
  int port = 18789;
  if (gateway.is_object() && gateway.contains("port")) {
    const auto& v = gateway["port"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 65535) {
      return Error{"INVALID_ARGUMENT", "gateway.port: expected a port number 0..65535, got " + v.dump()};
    }
    port = v.get<int>();
  }
  if (auto p = env("PINCER_GATEWAY_PORT"); p && !p->empty()) {
    int value = -1;
    auto [end, err] = std::from_chars(p->data(), p->data() + p->size(), value);
    if (err != std::errc() || end != p->data() + p->size() || value < 0 || value > 65535) {
      return Error{"INVALID_ARGUMENT", "PINCER_GATEWAY_PORT: expected a port number 0..65535, got \"" + *p + "\""};
    }
    port = value;
  }
  return port;
}

Result<ClientOptions> resolve_connection(const ConnectionFlags& flags, const config::EnvLookup& env) {
  ClientOptions out;
  out.connect_timeout = std::chrono::milliseconds(std::min(flags.timeout_ms, 10'000));
  auto non_empty = [](const std::optional<std::string>& v) { return v && !v->empty() ? v : std::nullopt; };

  std::optional<std::string> url = flags.url ? flags.url : non_empty(env("PINCER_GATEWAY_URL"));
  std::optional<std::string> token = flags.token ? flags.token : non_empty(env("PINCER_GATEWAY_TOKEN"));
  std::optional<std::string> password = flags.password ? flags.password : non_empty(env("PINCER_GATEWAY_PASSWORD"));

  const bool need_config = !url || (!token && !password);
  nlohmann::json gw = nlohmann::json::object();
  if (need_config && !url) {
    const auto file = paths::config_file(paths::state_dir(env));
    auto loaded = config::load(file, env);
    if (loaded) {
      gw = loaded->effective.value("gateway", nlohmann::json::object());
    } else {
      // Only gateway.* matters here: a provider key's ${VAR} missing from this shell (it lives in
      // the service's environment) must not stop `pincer status`.
      auto raw = config::resolve_file(file, env, config::EnvRefs::kKeep);
      // Unreadable (a syntax error): with a secret from flags/env the defaults (and
      // PINCER_GATEWAY_PORT) still reach the running gateway, e.g. to inspect it before fixing.
      if ((!raw || !raw->is_object()) && (token || password)) raw = nlohmann::json::object();
      if (!raw || !raw->is_object()) return Error{"CONFIG_INVALID", loaded.error().message};
      gw = config::with_defaults(*raw).value("gateway", nlohmann::json::object());
      if (!gw.is_object()) return Error{"CONFIG_INVALID", loaded.error().message};
      auto unresolved = [](const nlohmann::json& v) { return v.is_string() && v.get<std::string>().find("${") != std::string::npos; };
      if (unresolved(gw.value("port", nlohmann::json())) || !gw.value("port", nlohmann::json(18789)).is_number_integer()) {
        return Error{"CONFIG_INVALID", loaded.error().message};
      }
      auto auth = gw.value("auth", nlohmann::json::object());
      for (const char* k : {"token", "password"}) {
        if (auth.is_object() && unresolved(auth.value(k, nlohmann::json()))) auth.erase(k);  // PINCER_GATEWAY_* may supply it
      }
      gw["auth"] = auth;
    }
  }
  if (!url) {
    auto port = gateway_port(gw, env);
    if (port && *port == 0) {
      return Error{"INVALID_ARGUMENT", "the gateway's port is 0 (any free port): give the CLI PINCER_GATEWAY_URL or --url"};
    }
    if (!port) return port.error();
    url = "ws://127.0.0.1:" + std::to_string(*port);
    const auto& auth = gw.value("auth", nlohmann::json::object());
    if (!token && !password) {
      if (auto t = auth.value("token", ""); !t.empty()) token = t;
      if (auto pw = auth.value("password", ""); !pw.empty()) password = pw;
    }
  }
  out.url = *url;
  out.token = token.value_or("");
  out.password = password.value_or("");
  return out;
}

}  // namespace pincer::cli
