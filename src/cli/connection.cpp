#include "cli/connection.h"

#include <cctype>
#include <charconv>

#include "cli/invoked_command.h"
#include "core/paths.h"
#include "store/instance_lock.h"

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

std::optional<int> own_loopback_port(const std::string& url) {
  std::string_view rest = url;
  int port = 0;
  if (rest.rfind("ws://", 0) == 0) {
    rest.remove_prefix(5);
    port = 80;
  } else if (rest.rfind("wss://", 0) == 0) {
    rest.remove_prefix(6);
    port = 443;
  } else {
    return std::nullopt;
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (rest.find('@') != std::string_view::npos) return std::nullopt;  // user info: not a plain local address
  std::string_view host = rest;
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {  // [::1]:18789
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, close + 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return std::nullopt;
      port_text = rest.substr(close + 2);
    }
  } else if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }
  std::string lower(host);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "127.0.0.1" && lower != "localhost" && lower != "[::1]") return std::nullopt;
  if (!port_text.empty() || rest.back() == ':') {
    const auto [end, err] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (err != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) return std::nullopt;
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
  } else if (!token && !password) {
    // A URL that is this gateway's own loopback address (the port of this state dir's config) is
    // the local gateway: its credentials may go there. To any other address they are never sent.
    if (const auto port = own_loopback_port(*url)) {
      auto loaded = config::load(paths::config_file(paths::state_dir(env)), env);
      const nlohmann::json local = loaded ? loaded->effective.value("gateway", nlohmann::json::object()) : nlohmann::json();
      if (auto local_port = gateway_port(local, env); loaded && local_port && *local_port == *port) {
        const auto& auth = local.value("auth", nlohmann::json::object());
        if (auto t = auth.value("token", ""); !t.empty()) token = t;
        if (auto pw = auth.value("password", ""); !pw.empty()) password = pw;
      }
    }
  }
  out.url = *url;
  out.token = token.value_or("");
  out.password = password.value_or("");
  return out;
}

std::string running_gateway_note(const config::EnvLookup& env, const std::string& url) {
  const auto state = paths::state_dir(env);
  const auto holder = store::read_lock_holder(paths::gateway_lock_file(state));
  if (!holder) return "";
  const std::string who = "this home's gateway (pid " + std::to_string(holder->pid) + ", state dir " + state.string() + ")";
  if (holder->restarting) return who + " is restarting (SIGUSR1): try again in a moment";
  if (holder->stopping) {
    return who + " is shutting down: it accepts no connection while it finishes its running turns and replies (up to "
                 "gateway.drainTimeoutMs), then exits; start it again once it has stopped with: " +
           invoked_command() + " gateway run";
  }
  if (holder->port == 0) return who + " is running but does not listen yet (still starting, or stuck): try again in a moment";
  if (own_loopback_port(url) == holder->port) return "";
  // A wildcard bind is reached through loopback.
  std::string host = holder->host == "0.0.0.0" || holder->host.empty() ? "127.0.0.1" : holder->host == "::" ? "::1" : holder->host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  const std::string port = std::to_string(holder->port);
  const auto file = paths::config_file(state);
  return who + " is running and listens on " + host + ":" + port + ", not at " + url + ": set gateway.port to " + port +
         " in " + file.string() + " (" + invoked_command() + " config set gateway.port " + port +
         "), or give --url ws://" + host + ":" + port;
}

}  // namespace pincer::cli
