#include "gateway/protocol/connect.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "gateway/protocol/constants.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

// Client ids and modes accepted by OpenClaw's protocol (client-info.ts; wire log §1).
constexpr std::array<std::string_view, 17> kClientIds = {
    "webchat-ui", "openclaw-control-ui", "openclaw-browser-copilot", "openclaw-tui", "webchat", "cli",
    "gateway-client", "openclaw-macos", "openclaw-linux", "openclaw-ios", "openclaw-watchos", "openclaw-android",
    "node-host", "openclaw-worker", "test", "fingerprint", "openclaw-probe"};
constexpr std::array<std::string_view, 8> kClientModes = {"webchat", "cli", "ui", "backend", "node", "worker", "probe", "test"};

template <size_t N>
bool one_of(const std::array<std::string_view, N>& set, const std::string& v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

template <size_t N>
std::string join(const std::array<std::string_view, N>& set) {
  std::string out;
  for (auto s : set) out += (out.empty() ? "" : "|") + std::string(s);
  return out;
}

/// Small strict validator producing Ajv-like messages: "<path> <what>".
class Checker {
 public:
  std::optional<std::string> error;

  bool object(const json& v, const std::string& path, std::initializer_list<std::string_view> allowed) {
    if (!v.is_object()) return fail(path, "must be object");
    for (const auto& [key, value] : v.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return fail(path, "must NOT have additional properties (\"" + key + "\")");
      }
    }
    return true;
  }
  bool required(const json& obj, const std::string& path, std::string_view key) {
    if (obj.contains(key)) return true;
    return fail(path, "must have required property '" + std::string(key) + "'");
  }
  // Reads an optional string field (non_empty: must have at least one character).
  bool str(const json& obj, const std::string& path, std::string_view key, std::string& out, bool non_empty = false) {
    auto it = obj.find(key);
    if (it == obj.end()) return true;
    if (!it->is_string()) return fail(path + "/" + std::string(key), "must be string");
    out = it->get<std::string>();
    if (non_empty && out.empty()) return fail(path + "/" + std::string(key), "must NOT have fewer than 1 characters");
    return true;
  }
  // An optional string of 1..max_len characters (code points, as Ajv counts them).
  bool bounded_str(const json& obj, const std::string& path, std::string_view key, std::string& out, size_t max_len) {
    if (!str(obj, path, key, out, true)) return false;
    size_t code_points = 0;
    for (unsigned char ch : out) code_points += (ch & 0xC0) != 0x80;
    if (code_points > max_len) {
      return fail(path + "/" + std::string(key), "must NOT have more than " + std::to_string(max_len) + " characters");
    }
    return true;
  }
  bool opt_str(const json& obj, const std::string& path, std::string_view key, std::optional<std::string>& out) {
    if (!obj.contains(key)) return true;
    std::string s;
    if (!str(obj, path, key, s)) return false;
    out = std::move(s);
    return true;
  }
  bool integer_min1(const json& obj, const std::string& path, std::string_view key, int& out) {
    const json& v = obj.at(key);
    if (!v.is_number_integer()) return fail(path + "/" + std::string(key), "must be integer");
    auto n = v.get<int64_t>();
    if (n < 1) return fail(path + "/" + std::string(key), "must be >= 1");
    out = static_cast<int>(std::min<int64_t>(n, 1'000'000));
    return true;
  }
  bool strings(const json& obj, const std::string& path, std::string_view key, std::vector<std::string>* out) {
    auto it = obj.find(key);
    if (it == obj.end()) return true;
    if (!it->is_array()) return fail(path + "/" + std::string(key), "must be array");
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) return fail(path + "/" + std::string(key) + "/" + std::to_string(i), "must be string");
      if (out) out->push_back((*it)[i].get<std::string>());
    }
    return true;
  }
  bool fail(const std::string& path, const std::string& what) {
    error = (path.empty() ? std::string() : path + " ") + what;
    return false;
  }
};

std::variant<ConnectRequest, ConnectFailure> invalid_params(const std::string& what) {
  return ConnectFailure{RpcError::invalid("invalid connect params: " + what), kClosePolicy};
}

}  // namespace

std::variant<ConnectRequest, ConnectFailure> parse_connect_params(const json& p) {
  Checker c;
  ConnectRequest r;
  bool good =
      c.object(p, "", {"minProtocol", "maxProtocol", "client", "caps", "commands", "computerUse", "workerRuns",
                       "permissions", "pathEnv", "role", "scopes", "modelCatalog", "device", "auth", "locale",
                       "userAgent"}) &&
      c.required(p, "", "minProtocol") && c.required(p, "", "maxProtocol") && c.required(p, "", "client") &&
      c.integer_min1(p, "", "minProtocol", r.min_protocol) && c.integer_min1(p, "", "maxProtocol", r.max_protocol);
  if (good) {
    const json& cl = p.at("client");
    good = c.object(cl, "/client",
                    {"id", "displayName", "version", "buildId", "platform", "deviceFamily", "modelIdentifier",
                     "timeZone", "mode", "instanceId"}) &&
           c.required(cl, "/client", "id") && c.required(cl, "/client", "version") &&
           c.required(cl, "/client", "platform") && c.required(cl, "/client", "mode") &&
           c.str(cl, "/client", "id", r.client.id) && c.str(cl, "/client", "version", r.client.version, true) &&
           c.str(cl, "/client", "platform", r.client.platform, true) && c.str(cl, "/client", "mode", r.client.mode) &&
           c.str(cl, "/client", "displayName", r.client.display_name) &&
           c.str(cl, "/client", "deviceFamily", r.client.device_family) &&
           c.str(cl, "/client", "modelIdentifier", r.client.model_identifier) &&
           c.str(cl, "/client", "instanceId", r.client.instance_id) &&
           c.bounded_str(cl, "/client", "buildId", r.client.build_id, 96) &&
           c.bounded_str(cl, "/client", "timeZone", r.client.time_zone, 64);
    if (good && !one_of(kClientIds, r.client.id)) {
      good = c.fail("/client/id", "must be equal to one of the allowed values (" + join(kClientIds) + ")");
    }
    if (good && !one_of(kClientModes, r.client.mode)) {
      good = c.fail("/client/mode", "must be equal to one of the allowed values (" + join(kClientModes) + ")");
    }
  }
  good = good && c.strings(p, "", "caps", &r.caps) && c.strings(p, "", "commands", nullptr) &&
         c.str(p, "", "role", r.role) && c.strings(p, "", "scopes", &r.scopes) &&
         c.str(p, "", "locale", r.locale) && c.str(p, "", "userAgent", r.user_agent);
  if (good && p.contains("pathEnv") && !p["pathEnv"].is_string()) good = c.fail("/pathEnv", "must be string");
  if (good && p.contains("permissions")) {
    const json& perms = p["permissions"];
    if (!perms.is_object()) {
      good = c.fail("/permissions", "must be object");
    } else {
      for (const auto& [k, v] : perms.items()) {
        if (!v.is_boolean()) { good = c.fail("/permissions/" + k, "must be boolean"); break; }
      }
    }
  }
  if (good && p.contains("device")) {
    const json& d = p["device"];
    device_auth::DeviceProof proof;
    good = c.object(d, "/device", {"id", "publicKey", "signature", "signedAt", "nonce"}) &&
           c.required(d, "/device", "id") && c.required(d, "/device", "publicKey") &&
           c.required(d, "/device", "signature") && c.required(d, "/device", "signedAt") &&
           c.required(d, "/device", "nonce") && c.str(d, "/device", "id", proof.id, true) &&
           c.str(d, "/device", "publicKey", proof.public_key, true) &&
           c.str(d, "/device", "signature", proof.signature, true) && c.str(d, "/device", "nonce", proof.nonce);
    if (good && !d["signedAt"].is_number_integer()) good = c.fail("/device/signedAt", "must be integer");
    if (good) {
      // An unsigned value beyond int64 saturates (and is then simply "expired").
      proof.signed_at_ms = d["signedAt"].is_number_unsigned() && d["signedAt"].get<uint64_t>() > uint64_t(INT64_MAX)
                               ? INT64_MAX
                               : d["signedAt"].get<int64_t>();
      r.device = std::move(proof);
    }
    r.has_device = good;
  }
  // workerRuns (a worker's build identity) and computerUse are for OpenClaw workers and node hosts,
  // which Pincer does not admit yet: shape-checked only as far as "an object", then ignored.
  if (good && p.contains("workerRuns") && !p["workerRuns"].is_object()) good = c.fail("/workerRuns", "must be object");
  if (good && p.contains("modelCatalog")) {
    // One of {agentId?, sessionKey?} or {agentId?, shortId, slugHint?}: the model catalog scope a
    // client reads first; Pincer has one catalog, so it is checked, not used.
    const json& m = p["modelCatalog"];
    std::string ignored;
    if (m.is_object() && m.contains("shortId")) {
      good = c.object(m, "/modelCatalog", {"agentId", "shortId", "slugHint"}) &&
             c.str(m, "/modelCatalog", "agentId", ignored, true) && c.str(m, "/modelCatalog", "shortId", ignored, true) &&
             c.str(m, "/modelCatalog", "slugHint", ignored, true);
    } else {
      good = c.object(m, "/modelCatalog", {"agentId", "sessionKey"}) &&
             c.str(m, "/modelCatalog", "agentId", ignored, true) && c.str(m, "/modelCatalog", "sessionKey", ignored, true);
    }
  }
  if (good && p.contains("auth")) {
    const json& a = p["auth"];
    std::optional<std::string> runtime_token;  // approval/agent runtime tokens: OpenClaw-internal, never valid here
    good = c.object(a, "/auth", {"token", "deviceToken", "password", "bootstrapToken", "approvalRuntimeToken",
                                 "agentRuntimeIdentityToken"}) &&
           c.opt_str(a, "/auth", "approvalRuntimeToken", runtime_token) &&
           c.opt_str(a, "/auth", "agentRuntimeIdentityToken", runtime_token) &&
           c.opt_str(a, "/auth", "token", r.token) && c.opt_str(a, "/auth", "deviceToken", r.device_token) &&
           c.opt_str(a, "/auth", "password", r.password) && c.opt_str(a, "/auth", "bootstrapToken", r.bootstrap_token);
  }
  if (!good) return invalid_params(*c.error);
  return r;
}

std::variant<int, ConnectFailure> negotiate_protocol(const ConnectRequest& r) {
  if (r.max_protocol < kMinProtocol || r.min_protocol > kMaxProtocol || r.min_protocol > r.max_protocol) {
    return ConnectFailure{
        RpcError::invalid("protocol mismatch", {{"expectedProtocol", kMaxProtocol},
                                                {"minProtocol", kMinProtocol},
                                                {"maxProtocol", kMaxProtocol}}),
        kCloseProtocolError};
  }
  return std::min(r.max_protocol, kMaxProtocol);
}

bool browser_origin_allowed(std::string_view origin, std::string_view host, const AuthSettings& auth) {
  // "null" is the origin of sandboxed frames, file:// pages and some redirects: any page can make
  // one, so neither an entry "null" nor "*" lets it in (as OpenClaw's parseOrigin refuses it).
  auto lower = [](std::string_view v) {
    std::string out(v);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
  };
  const std::string origin_lower = lower(origin);
  if (origin_lower == "null" || origin_lower.find("://") == std::string::npos) return false;
  for (const auto& entry : auth.allowed_origins) {
    // Scheme and host are case-insensitive; browsers send them in lower case.
    if (entry == "*" || lower(entry) == origin_lower) return true;
  }
  // Same origin as the page we serve (scheme://<Host header>) counts only under a Host no page can
  // re-point: a DNS-rebinding page (evil.example → 127.0.0.1) is "same origin" with itself, so on a
  // loopback bind the Host must name loopback, elsewhere it must be an IP literal — in every auth
  // mode (with a password, such a page could guess it from the owner's browser).
  if (!parse_host_header(host)) return false;
  const std::string h(host);
  const bool same_origin = origin == "http://" + h || origin == "https://" + h;
  const bool vouched = is_loopback_host_header(host) || (!auth.loopback_bind && is_ip_literal_host_header(host));
  return same_origin && vouched;
}

std::optional<ConnectFailure> check_origin(const PeerInfo& peer, const AuthSettings& auth) {
  if (!peer.origin || peer.origin->empty()) return std::nullopt;  // not a browser
  const std::string& origin = *peer.origin;
  if (browser_origin_allowed(origin, peer.host, auth)) return std::nullopt;
  return ConnectFailure{RpcError::invalid("origin not allowed (open the web UI from the gateway's own address, e.g. "
                                          "http://127.0.0.1:<port>/, or add the origin to "
                                          "gateway.controlUi.allowedOrigins)",
                                          {{"code", "CONTROL_UI_ORIGIN_NOT_ALLOWED"}, {"origin", origin}}),
                        kClosePolicy};
}

bool secrets_equal(std::string_view a, std::string_view b) {
  // Hash first so the comparison time depends on neither content nor length.
  std::array<unsigned char, crypto_hash_sha256_BYTES> ha{}, hb{};
  crypto_hash_sha256(ha.data(), reinterpret_cast<const unsigned char*>(a.data()), a.size());
  crypto_hash_sha256(hb.data(), reinterpret_cast<const unsigned char*>(b.data()), b.size());
  return sodium_memcmp(ha.data(), hb.data(), ha.size()) == 0;
}

AuthResult authenticate(const ConnectRequest& r, const PeerInfo& peer, const AuthSettings& auth) {
  AuthResult out;
  out.method = auth.mode;
  if (auth.mode == "none") {
    out.ok = true;
  } else if (auth.mode == "token") {
    if (auth.token.empty()) out.reason = "token_missing_config";
    else if (!r.token || r.token->empty()) out.reason = "token_missing";
    else if (!secrets_equal(*r.token, auth.token)) out.reason = "token_mismatch";
    else out.ok = true;
  } else if (auth.mode == "password") {
    if (auth.password.empty()) out.reason = "password_missing_config";
    else if (!r.password || r.password->empty()) out.reason = "password_missing";
    else if (!secrets_equal(*r.password, auth.password)) out.reason = "password_mismatch";
    else out.ok = true;
  } else if (auth.mode == "trusted-proxy") {
    auto header = [&](const std::string& name) -> const std::string* {
      auto it = peer.headers.find(name);
      return it == peer.headers.end() ? nullptr : &it->second;
    };
    if (auth.trusted_proxies.empty() || auth.trusted_user_header.empty()) {
      out.reason = "trusted_proxy_config_missing";
    } else if (!is_trusted_proxy(peer.remote_ip, auth.trusted_proxies)) {
      out.reason = "trusted_proxy_untrusted_source";
    } else {
      for (const auto& h : auth.trusted_required_headers) {
        // Present but empty (or blank) proves nothing about the proxy: as good as missing.
        const std::string* v = header(h);
        if (!v || v->find_first_not_of(" \t") == std::string::npos) {
          out.reason = "trusted_proxy_missing_header_" + h;
          return out;
        }
      }
      const std::string* user = header(auth.trusted_user_header);
      if (!user || user->empty()) {
        out.reason = "trusted_proxy_user_missing";
      } else if (!auth.trusted_allow_users.empty() &&
                 std::find(auth.trusted_allow_users.begin(), auth.trusted_allow_users.end(), *user) ==
                     auth.trusted_allow_users.end()) {
        out.reason = "trusted_proxy_user_not_allowed";
      } else {
        out.ok = true;
        out.user = *user;
      }
    }
  } else {
    out.reason = "unknown_auth_mode";
  }
  return out;
}

ConnectFailure auth_failure(const AuthResult& result, bool can_retry_with_device_token) {
  struct Mapping {
    std::string_view reason, code, message, next;
  };
  static constexpr std::array<Mapping, 7> kMap = {{
      {"device_token_mismatch", "AUTH_DEVICE_TOKEN_MISMATCH",
       "unauthorized: device token mismatch (rotate/reissue device token)", "update_auth_credentials"},
      {"token_missing", "AUTH_TOKEN_MISSING",
       "unauthorized: gateway token missing (send auth.token in connect params)", "update_auth_configuration"},
      {"token_mismatch", "AUTH_TOKEN_MISMATCH",
       "unauthorized: gateway token mismatch (use the value of gateway.auth.token on the gateway host)",
       "update_auth_credentials"},
      {"token_missing_config", "AUTH_TOKEN_NOT_CONFIGURED",
       "unauthorized: gateway has no token configured (set gateway.auth.token)", "review_auth_configuration"},
      {"password_missing", "AUTH_PASSWORD_MISSING",
       "unauthorized: gateway password missing (send auth.password in connect params)", "update_auth_configuration"},
      {"password_mismatch", "AUTH_PASSWORD_MISMATCH",
       "unauthorized: gateway password mismatch (use the value of gateway.auth.password)", "update_auth_credentials"},
      {"password_missing_config", "AUTH_PASSWORD_NOT_CONFIGURED",
       "unauthorized: gateway has no password configured (set gateway.auth.password)", "review_auth_configuration"},
  }};
  std::string code = "AUTH_UNAUTHORIZED", message = "unauthorized: " + result.reason, next = "review_auth_configuration";
  for (const auto& m : kMap) {
    if (m.reason == result.reason) {
      code = m.code;
      message = m.message;
      next = m.next;
    }
  }
  if (can_retry_with_device_token) next = "retry_with_device_token";
  return ConnectFailure{RpcError::invalid(message, {{"code", code},
                                                    {"authReason", result.reason},
                                                    {"canRetryWithDeviceToken", can_retry_with_device_token},
                                                    {"recommendedNextStep", next}}),
                        kClosePolicy};
}

ConnectFailure rate_limited_failure(int64_t retry_after_ms) {
  RpcError e = RpcError::invalid("unauthorized: too many failed authentication attempts (retry later)",
                                 {{"code", "AUTH_RATE_LIMITED"},
                                  {"authReason", "rate_limited"},
                                  {"canRetryWithDeviceToken", false},
                                  {"recommendedNextStep", "wait_then_retry"}});
  e.retryable = true;
  e.retry_after_ms = retry_after_ms;
  return ConnectFailure{std::move(e), kClosePolicy};
}

}  // namespace pincer::gateway
