// openclaw.json's `gateway` as pincer.json's: port, bind, auth, controlUi, reload, http (see
// openclaw_import_config_mapper.h).
#include <string>
#include <utility>

#include "cli/openclaw_import_config_mapper.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

using nlohmann::json;

void Mapper::gateway(const json& g, const Path& at) {
  if (!g.is_object()) return expect_object_or_skip(g, at);
  for (const auto& [k, v] : g.items()) {
    Path p = key(at, k);
    if (k == "port" || k == "customBindHost" || k == "trustedProxies") map(p, p, v);
    else if (k == "bind") bind(v, p);
    else if (k == "auth") auth(v, p);
    else if (k == "controlUi") control_ui(v, p);
    else if (k == "reload") reload(v, p);
    else if (k == "http") http(v, p);
    else skip(p, skip_reason("gateway", k));
  }
}

// gateway.http.endpoints.{chatCompletions,responses}.enabled: the OpenAI-compatible HTTP API
// (docs/interop.md); OpenClaw's other endpoint settings (images, files, limits) have no equivalent.
void Mapper::http(const json& h, const Path& at) {
  if (!h.is_object()) return expect_object_or_skip(h, at);
  for (const auto& [k, v] : h.items()) {
    Path p = key(at, k);
    if (k != "endpoints") {
      skip(p, "no Pincer equivalent");
      continue;
    }
    if (!v.is_object()) {
      expect_object_or_skip(v, p);
      continue;
    }
    for (const auto& [endpoint, settings] : v.items()) {
      Path e = key(p, endpoint);
      if (endpoint != "chatCompletions" && endpoint != "responses") {
        skip(e, "Pincer serves /v1/chat/completions and /v1/responses only");
        continue;
      }
      if (!settings.is_object()) {
        expect_object_or_skip(settings, e);
        continue;
      }
      for (const auto& [name, value] : settings.items()) {
        Path s = key(e, name);
        if (name == "enabled" && value.is_boolean()) map(s, s, value);
        else skip(s, name == "enabled" ? "expected true or false, got " + value.dump() : "no Pincer equivalent");
      }
    }
  }
}

// gateway.reload: the same modes and debounce (CF-2).
void Mapper::reload(const json& r, const Path& at) {
  if (!r.is_object()) return expect_object_or_skip(r, at);
  for (const auto& [k, v] : r.items()) {
    Path p = key(at, k);
    if (k == "mode" && is_one_of(v, {"hybrid", "hot", "restart", "off"})) map(p, p, v);
    else if (k == "debounceMs" && v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 60000) map(p, p, v);
    else if (k == "mode" || k == "debounceMs") skip(p, "expected hybrid|hot|restart|off / 0..60000 ms, got " + v.dump());
    else skip(p, "no Pincer equivalent");
  }
}

void Mapper::bind(const json& v, const Path& p) {
  if (is_one_of(v, {"loopback", "lan", "custom"})) return map(p, p, v);
  if (is_one_of(v, {"auto"})) {
    return map(p, p, "loopback", "\"auto\" (loopback when possible) written as \"loopback\"");
  }
  if (is_one_of(v, {"tailnet"})) {
    return skip(p, "Pincer cannot bind to the Tailscale address; the default \"loopback\" applies");
  }
  skip(p, "expected one of loopback|lan|custom|auto|tailnet");
}

void Mapper::auth(const json& a, const Path& at) {
  if (!a.is_object()) return expect_object_or_skip(a, at);
  bool token = false, password = false;
  for (const auto& [k, v] : a.items()) {
    Path p = key(at, k);
    if (k == "mode") {
      if (is_one_of(v, {"none", "token", "password", "trusted-proxy"})) map(p, p, v);
      else skip(p, "expected one of none|token|password|trusted-proxy");
    } else if (k == "token" || k == "password") {
      const std::size_t before = out_.mapped.size();
      secret(v, p, p);
      (k == "token" ? token : password) = out_.mapped.size() > before;
    } else if (k == "rateLimit" || k == "trustedProxy") {
      map(p, p, v);
    } else {
      skip(p, skip_reason("gateway.auth", k));
    }
  }
  std::string mode = string_at(a, "mode");
  if (mode.empty() && password) {
    mode = "password";
    set(key(at, "mode"), "password");
    out_.mapped.push_back({text(key(at, "password")), text(key(at, "mode")),
                           "no auth.mode: OpenClaw uses \"password\" when a password is set"});
  }
  if ((mode.empty() || mode == "token") && !token) {
    out_.warnings.push_back(
        "gateway.auth.token is not set in openclaw.json (OpenClaw may take it from "
        "OPENCLAW_GATEWAY_TOKEN): set gateway.auth.token or PINCER_GATEWAY_TOKEN for the Pincer gateway");
  }
}

void Mapper::control_ui(const json& c, const Path& at) {
  if (!c.is_object()) return expect_object_or_skip(c, at);
  for (const auto& [k, v] : c.items()) {
    Path p = key(at, k);
    if (k == "allowedOrigins") map(p, p, v);
    else skip(p, skip_reason("gateway.controlUi", k));
  }
}

}  // namespace pincer::cli::openclaw::detail_openclaw_config
