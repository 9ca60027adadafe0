#include "gateway/gateway.h"

#include <unistd.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "core/ids.h"
#include "gateway/protocol/constants.h"
#include "gateway/protocol/scopes.h"
#include "core/json_dump.h"

namespace pincer::gateway {

using nlohmann::json;

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

/// A method handler runs on the event loop, so one slower than this stalls every client: logged as
/// a warning with its time (the same request is logged at debug level otherwise).
constexpr int64_t kSlowMethodWarnMs = 500;

}  // namespace

Gateway::Gateway(GatewaySettings settings, Clock& clock)
    : settings_(std::move(settings)),
      clock_(clock),
      started_steady_ms_(clock.steady_ms()),
      instance_id_(ids::uuid_v4()),
      auth_limiter_(settings_.auth_rate_limit),
      devices_(std::make_unique<store::DeviceStore>(
          settings_.state_dir.empty() ? std::filesystem::path() : settings_.state_dir / "devices",
          [](const std::string& role, const std::vector<std::string>& requested, const std::vector<std::string>& allowed) {
            return device_auth::role_scopes_allow(role, requested, allowed);
          },
          clock.wall_ms())) {
  for (const auto& w : devices_->load_warnings()) spdlog::warn("device store: {}", w);
  bind_device_tokens_to_auth_epoch();
  register_system_methods(methods_);
  register_config_methods(methods_);
  register_chat_methods(methods_);
  register_agent_methods(methods_);
  register_session_methods(methods_);
  register_device_methods(methods_);
  register_tool_methods(methods_);
  register_models_auth_methods(methods_);
  register_usage_methods(methods_);
  register_compat_methods(methods_);
  register_approval_methods(methods_);
  register_cron_methods(methods_);
  refresh_health();
}

// ---------------------------------------------------------------------------------------------
// Connection lifecycle

ConnId Gateway::open(ClientLink& link, PeerInfo peer) {
  auto client = std::make_unique<Client>();
  client->id = next_id_++;
  client->link = &link;
  client->peer = std::move(peer);
  client->conn_uuid = ids::uuid_v4();
  client->nonce = ids::uuid_v4();
  link.set_max_message_bytes(kMaxPreConnectBytes);
  Client& c = *client;
  clients_.emplace(c.id, std::move(client));
  if (shutting_down_) {
    close_client(c, shutdown_close_code_, shutdown_close_code_ == kCloseServiceRestart ? "service restart" : "going away");
    return c.id;
  }
  // The server speaks first (§1.4): the challenge carries the nonce a device signature must include.
  json payload = {{"nonce", c.nonce}, {"ts", clock_.wall_ms()}};
  c.link->send(build_event("connect.challenge", payload.dump()));
  return c.id;
}

void Gateway::on_closed(ConnId id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  const bool was_present = it->second->connected && it->second->info.mode != "cli";
  clients_.erase(it);
  if (was_present) presence_changed();
}

void Gateway::on_handshake_timeout(ConnId id) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->connected) return;
  spdlog::info("conn {}: handshake timeout from {}", id, it->second->peer.remote_ip);
  close_client(*it->second, kClosePolicy, "handshake timeout");
}

void Gateway::close_client(Client& client, uint16_t code, const std::string& reason) {
  if (client.closing) return;
  client.closing = true;
  client.link->close(code, truncate_close_reason(reason));
}

// ---------------------------------------------------------------------------------------------
// Inbound frames

void Gateway::on_message(ConnId id, std::string_view text) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->closing) return;
  Client& client = *it->second;

  auto parsed = parse_request(text);
  if (auto* err = std::get_if<FrameError>(&parsed)) {
    if (!client.connected) {
      // Before the handshake a malformed frame gets no answer: the socket is closed (§1.4).
      spdlog::info("conn {}: {} before connect; closing", id, err->message);
      close_client(client, kClosePolicy, "invalid request frame");
    } else {
      send_frame(client, build_error(err->request_id, RpcError::invalid(err->message)));
    }
    return;
  }
  const RequestFrame& request = std::get<RequestFrame>(parsed);

  if (!client.connected) {
    if (request.method != "connect") {
      fail_handshake(client, request.id, RpcError::invalid("invalid handshake: first request must be connect"),
                     kClosePolicy);
      return;
    }
    handle_connect(client, request);
    return;
  }
  if (request.method == "connect") {
    send_frame(client, build_error(request.id, RpcError::invalid("connect is only valid as the first request")));
    return;
  }
  dispatch(client, request);
}

void Gateway::fail_handshake(Client& client, const std::string& request_id, const RpcError& error,
                             uint16_t close_code) {
  spdlog::info("conn {}: handshake refused from {}: {}", client.id, client.peer.remote_ip, error.message);
  send_frame(client, build_error(request_id, error));
  close_client(client, close_code, error.message);
}

void Gateway::handle_connect(Client& client, const RequestFrame& request) {
  auto parsed = parse_connect_params(request.params.is_null() ? json::object() : request.params);
  if (auto* f = std::get_if<ConnectFailure>(&parsed)) return fail_handshake(client, request.id, f->error, f->close_code);
  ConnectRequest& req = std::get<ConnectRequest>(parsed);

  auto protocol = negotiate_protocol(req);
  if (auto* f = std::get_if<ConnectFailure>(&protocol)) return fail_handshake(client, request.id, f->error, f->close_code);
  if (req.role != "operator" && req.role != "node") {
    return fail_handshake(client, request.id, RpcError::invalid("invalid role", {{"role", req.role}}), kClosePolicy);
  }
  if (auto f = check_origin(client.peer, settings_.auth)) return fail_handshake(client, request.id, f->error, f->close_code);

  const int64_t now = clock_.steady_ms();
  const AuthSource source = auth_source(client.peer);
  // A device token alone is limited in its own scope (connect_device); everything else tries the
  // shared secret.
  const bool device_token_only = req.device && req.device_token && !req.token && !req.password;
  if (auto wait = device_token_only ? std::nullopt : auth_limiter_.check(AuthScope::SharedSecret, source, now)) {
    auto f = rate_limited_failure(*wait);
    return fail_handshake(client, request.id, f.error, f.close_code);
  }
  AuthResult auth = authenticate(req, client.peer, settings_.auth);
  if (!auth.ok && !req.device) {
    auth_limiter_.record_failure(AuthScope::SharedSecret, source, now);
    auto f = auth_failure(auth);
    return fail_handshake(client, request.id, f.error, f.close_code);
  }
  // Nodes always prove a device identity (§1.4 step 6).
  if (req.role == "node" && !req.device) {
    return fail_handshake(client, request.id,
                          RpcError{"NOT_PAIRED", "device identity required", {{"code", "DEVICE_IDENTITY_REQUIRED"}},
                                   std::nullopt, std::nullopt},
                          kClosePolicy);
  }
  std::optional<store::DeviceToken> issued;
  if (req.device && !connect_device(client, request, req, auth, issued)) return;
  // Only the credential class that succeeded is forgiven (an operator.read device token must not
  // reset the count of guesses at the shared secret).
  auth_limiter_.record_success(auth.method == "device-token" ? AuthScope::DeviceToken : AuthScope::SharedSecret, source);

  client.connected = true;
  client.protocol = std::get<int>(protocol);
  client.role = req.role;
  client.scopes = req.scopes;  // shared or device-token auth succeeded: requested scopes are kept (§1.4 step 6)
  client.caps = req.caps;
  client.info = req.client;
  client.auth_method = auth.method;
  client.connected_at_ms = clock_.wall_ms();
  client.link->set_max_message_bytes(kMaxPayloadBytes);
  spdlog::info("conn {}: connected {} ({}/{}) from {} protocol {} role {}{}", client.id, client.conn_uuid,
               client.info.id, client.info.mode, client.peer.remote_ip, client.protocol, client.role,
               client.device_id.empty() ? "" : " device " + client.device_id.substr(0, 12));

  send_frame(client, build_ok_value(request.id, hello_payload(client, issued ? &*issued : nullptr)));
  if (client.info.mode != "cli") presence_changed();  // CLI clients are not presence (§1.4 step 13)
}

bool Gateway::connect_device(Client& client, const RequestFrame& request, const ConnectRequest& req,
                             AuthResult& auth, std::optional<store::DeviceToken>& issued) {
  const int64_t now = clock_.wall_ms();
  device_auth::SignedFields fields;
  fields.client_id = req.client.id;
  fields.client_mode = req.client.mode;
  fields.role = req.role;
  fields.scopes = req.scopes;
  fields.token = req.token ? *req.token : req.device_token ? *req.device_token : req.bootstrap_token.value_or("");
  fields.platform = req.client.platform;
  fields.device_family = req.client.device_family;
  auto proof = device_auth::verify_proof(*req.device, fields, client.nonce, now);
  if (auto* f = std::get_if<device_auth::ProofFailure>(&proof)) {
    fail_handshake(client, request.id, device_auth::proof_error(*f), kClosePolicy);
    return false;
  }
  const auto& device = std::get<device_auth::VerifiedDevice>(proof);

  const bool shared_ok = auth.ok;
  if (!auth.ok) {
    // Device-token auth (§1.4 step 8, §4.4): auth.deviceToken, else auth.token, as this device's role token.
    const std::string candidate = req.device_token ? *req.device_token : req.token.value_or("");
    const AuthSource source = auth_source(client.peer);
    const int64_t steady = clock_.steady_ms();
    if (auto wait = auth_limiter_.check(AuthScope::DeviceToken, source, steady); wait && !candidate.empty()) {
      auto f = rate_limited_failure(*wait);
      fail_handshake(client, request.id, f.error, f.close_code);
      return false;
    }
    if (!candidate.empty()) {
      auto verdict = devices_->verify_token(device.device_id, req.role, candidate, req.scopes, now);
      if (verdict && !*verdict) {
        auth = AuthResult{true, "device-token", "", ""};
      } else if (req.device_token) {
        auth.reason = "device_token_mismatch";
      }
    }
    if (!auth.ok) {
      // A wrong explicit device token counts against device tokens; a wrong auth.token (neither the
      // shared secret nor this device's token) against the shared secret.
      auth_limiter_.record_failure(req.device_token ? AuthScope::DeviceToken : AuthScope::SharedSecret, source, steady);
      const bool can_retry = auth.reason == "token_mismatch" && req.token && !req.device_token;
      auto f = auth_failure(auth, can_retry);
      fail_handshake(client, request.id, f.error, f.close_code);
      return false;
    }
  }

  // Loopback without proxy headers or a foreign browser page, holding the shared secret: pairing
  // is approved silently (§1.4 step 9). Everyone else waits for device.pair.approve.
  const auto& h = client.peer.headers;
  const bool proxied = h.count("x-forwarded-for") || h.count("x-real-ip") || h.count("forwarded");
  const bool ui = req.client.id == "openclaw-control-ui" || req.client.id == "webchat-ui" || req.client.mode == "webchat";
  const bool local = client.peer.loopback && !proxied && (!client.peer.origin || ui);
  const bool shared_secret = shared_ok && (auth.method == "token" || auth.method == "password");
  // A local backend holding the shared secret is the gateway's own helper: no pairing, no token.
  // Under `auth: none` (loopback only) a local device works for this connection alone: it is
  // neither paired nor given a token that would outlive a switch to token auth (issue 22 item 7).
  if (local && ((shared_secret && req.client.id == "gateway-client" && req.client.mode == "backend") ||
                (shared_ok && auth.method == "none"))) {
    client.device_id = device.device_id;
    return true;
  }
  if (auto reason = device_auth::pairing_reason(devices_->paired(device.device_id), device, req.client.platform,
                                                req.client.device_family, req.role, req.scopes)) {
    if (!require_pairing(client, request, req, device, *reason, local && shared_secret)) return false;
  } else if (auto st = devices_->touch(device.device_id, req.client.display_name, req.client.id, req.client.mode,
                                       client.peer.loopback ? "" : client.peer.remote_ip);
             !st) {
    spdlog::warn("device store: {}", st.error().message);
  }
  auto token = devices_->ensure_token(device.device_id, req.role, req.scopes, now);
  if (!token) {
    fail_handshake(client, request.id, RpcError::unavailable("device store: " + token.error().message), kClosePolicy);
    return false;
  }
  issued = *token;
  client.device_id = device.device_id;
  return true;
}

bool Gateway::require_pairing(Client& client, const RequestFrame& request, const ConnectRequest& req,
                              const device_auth::VerifiedDevice& device, const std::string& reason, bool silent) {
  const int64_t now = clock_.wall_ms();
  store::PendingPairing in;
  in.device_id = device.device_id;
  in.public_key = device.public_key;
  in.display_name = req.client.display_name;
  in.platform = req.client.platform;
  in.device_family = req.client.device_family;
  in.client_id = req.client.id;
  in.client_mode = req.client.mode;
  in.role = req.role;
  in.scopes = req.scopes;
  in.remote_ip = client.peer.loopback ? "" : client.peer.remote_ip;
  in.silent = silent;
  auto requested = devices_->request_pairing(std::move(in), now);
  if (!requested) {
    fail_handshake(client, request.id, RpcError::unavailable("device store: " + requested.error().message), kClosePolicy);
    return false;
  }
  const std::string request_id = requested->request.request_id;
  if (requested->request.silent) {
    auto approved = devices_->approve(request_id, now);
    if (approved && *approved) {
      spdlog::info("device pairing auto-approved device={} role={} reason={}", device.device_id, req.role, reason);
      broadcast_pairing_event("device.pair.resolved", {{"requestId", request_id},
                                                       {"deviceId", device.device_id},
                                                       {"decision", "approved"},
                                                       {"ts", now}});
      return true;
    }
  }
  if (requested->created) broadcast_pairing_event("device.pair.requested", store::to_json(requested->request));
  const store::PairedDevice* paired = devices_->paired(device.device_id);
  if (paired && paired->public_key != device.public_key) paired = nullptr;
  RpcError error = device_auth::pairing_required_error(reason, request_id, device.device_id, req.role, req.scopes, paired);
  spdlog::info("conn {}: pairing required ({}) for device {} request {}", client.id, reason, device.device_id, request_id);
  send_frame(client, build_error(request.id, error));
  close_client(client, kClosePolicy, device_auth::pairing_close_reason(reason, request_id));
  return false;
}

json Gateway::hello_payload(const Client& client, const store::DeviceToken* device_token) const {
  const bool reader = may_read(client);  // others learn no addresses, devices, sessions or paths
  const std::string default_agent = agents_ ? agents_->list_agents().value("defaultId", "main") : "main";
  json snapshot = {
      {"presence", reader ? presence() : json::array()},
      {"health", reader ? health_ : json::object()},
      {"stateVersion", state_version()},
      {"uptimeMs", uptime_ms()},
      {"sessionDefaults",
       {{"defaultAgentId", default_agent}, {"mainKey", "main"}, {"mainSessionKey", "agent:" + default_agent + ":main"},
        {"scope", "per-sender"}}},
      {"authMode", settings_.auth.mode},
  };
  if (reader) {
    snapshot["configPath"] = settings_.config_path.string();
    snapshot["stateDir"] = settings_.state_dir.string();
  }
  json auth = {{"method", client.auth_method}, {"role", client.role}, {"scopes", client.scopes}};
  if (device_token) {
    auth["deviceToken"] = device_token->token;
    auth["scopes"] = device_token->scopes;  // what the token grants (OpenClaw reports the token's scopes)
    auth["issuedAtMs"] = device_token->rotated_at_ms.value_or(device_token->created_at_ms);
  }
  return json{
      {"type", "hello-ok"},
      {"protocol", client.protocol},
      {"server", {{"version", settings_.version}, {"connId", client.conn_uuid}}},
      {"features", {{"methods", methods_.names()}, {"events", gateway_events()}, {"capabilities", gateway_capabilities()}}},
      {"snapshot", std::move(snapshot)},
      {"auth", std::move(auth)},
      {"policy",
       {{"maxPayload", kMaxPayloadBytes}, {"maxBufferedBytes", kMaxBufferedBytes}, {"tickIntervalMs", kTickIntervalMs}}},
  };
}

// ---------------------------------------------------------------------------------------------
// Requests after the handshake

std::string Gateway::write_budget_key(const Client& client) const {
  // "<deviceId>|<ip>" as OpenClaw keys it; without device identity all clients of one IP share.
  std::string ip = client.peer.remote_ip.empty() ? "unknown-ip" : client.peer.remote_ip;
  std::string key = (client.device_id.empty() ? "unknown-device" : client.device_id) + "|" + ip;
  if (client.peer.remote_ip.empty()) key += "|conn=" + client.conn_uuid;
  return key;
}

void Gateway::dispatch(Client& client, const RequestFrame& request) {
  // A method this gateway does not have is "unknown method" for everyone (hello-ok lists them all
  // anyway): answering "missing scope" would send a client after a scope that cannot help.
  const MethodSpec* spec = methods_.find(request.method);
  if (!spec) {
    send_frame(client, build_error(request.id, RpcError::invalid("unknown method: " + request.method)));
    return;
  }
  if (auto denied = authorize(client.role, client.scopes, request.method)) {
    send_frame(client, build_error(request.id, *denied));
    if (denied->message.rfind("unauthorized role", 0) == 0 && ++client.role_denials > kUnauthorizedFloodLimit) {
      close_client(client, kClosePolicy, "repeated unauthorized calls");
    }
    return;
  }
  client.role_denials = 0;

  const int64_t now = clock_.steady_ms();
  std::string idem_key;
  if (spec->requires_idempotency_key) {
    const json* key = request.params.is_object() && request.params.contains("idempotencyKey")
                          ? &request.params["idempotencyKey"]
                          : nullptr;
    if (!key || !key->is_string() || key->get_ref<const std::string&>().empty()) {
      send_frame(client, build_error(request.id, invalid_params(request.method,
                                                                "must have required property 'idempotencyKey'")));
      return;
    }
    idem_key = request.method + ":" + key->get<std::string>();
    if (auto cached = idempotency_.find(idem_key, now)) {
      // Stored as '1'+payload or '0'+error JSON: rebuilt around this request's id.
      std::string_view body(*cached);
      send_frame(client, body[0] == '1' ? build_ok(request.id, body.substr(1)) : build_error(request.id, body.substr(1)));
      return;
    }
  }
  if (spec->control_plane_write) {
    if (auto wait = write_budget_.consume(write_budget_key(client), now)) {
      RpcError e = RpcError::unavailable(
          "rate limit exceeded for " + request.method + "; retry after " + std::to_string((*wait + 999) / 1000) + "s",
          {{"method", request.method},
           {"limit", std::to_string(write_budget_.calls_per_window()) + " per " +
                         std::to_string(write_budget_.window_ms() / 1000) + "s"}});
      e.retryable = true;
      e.retry_after_ms = *wait;
      send_frame(client, build_error(request.id, e));
      return;
    }
  }

  MethodContext ctx{*this, client, request};
  MethodResult result;
  try {
    result = spec->handler(ctx);
  } catch (const std::exception& e) {
    spdlog::error("method {} failed: {}", request.method, e.what());
    result = RpcError::unavailable(std::string("internal error: ") + e.what());
  }
  const int64_t took_ms = clock_.steady_ms() - now;
  const bool deferred = std::holds_alternative<Deferred>(result);
  if (took_ms >= kSlowMethodWarnMs) {
    spdlog::warn("conn {}: {} took {} ms on the event loop", client.id, request.method, took_ms);
  } else {
    spdlog::debug("conn {}: {} {} {}{} ms", client.id, request.method, request.id,
                  deferred ? "deferred after " : std::holds_alternative<RpcError>(result) ? "failed in " : "answered in ",
                  took_ms);
  }

  std::string cache_body;
  std::string frame;
  if (auto* payload = std::get_if<json>(&result)) {
    std::string text = payload->dump(-1, ' ', false, json::error_handler_t::replace);
    frame = build_ok(request.id, text);
    cache_body = "1" + text;
  } else if (auto* raw = std::get_if<RawJson>(&result)) {
    frame = build_ok(request.id, raw->text);
    cache_body = "1" + raw->text;
  } else if (std::holds_alternative<Deferred>(result)) {
    return;  // the handler answers later
  } else {
    const RpcError& error = std::get<RpcError>(result);
    frame = build_error(request.id, error);
    cache_body = "0" + json_dump::compact(error.to_json());
  }
  if (!idem_key.empty()) idempotency_.store(idem_key, std::move(cache_body), now);
  send_frame(client, std::move(frame));
}

json Gateway::state_version() const { return {{"presence", presence_version_}, {"health", health_version_}}; }

json Gateway::presence() const {
  static const std::string host = host_name();
  json entries = json::array();
  entries.push_back({{"host", host},
                     {"version", settings_.version},
                     {"platform", "linux"},
                     {"mode", "gateway"},
                     {"reason", "self"},
                     {"instanceId", instance_id_},
                     {"text", "Gateway: " + host + " · app " + settings_.version + " · mode gateway"},
                     {"ts", clock_.wall_ms()}});
  for (const auto& [id, c] : clients_) {
    if (!c->connected || c->info.mode == "cli") continue;
    json e = {{"host", c->info.display_name.empty() ? c->info.id : c->info.display_name},
              {"version", c->info.version},
              {"platform", c->info.platform},
              {"mode", c->info.mode},
              {"reason", "connect"},
              {"instanceId", c->info.instance_id.empty() ? c->conn_uuid : c->info.instance_id},
              {"roles", json::array({c->role})},
              {"scopes", c->scopes},
              {"ts", c->connected_at_ms}};
    if (const std::string ip = c->peer.client_ip(); !ip.empty()) e["ip"] = ip;  // OpenClaw: non-empty when present
    if (!c->info.device_family.empty()) e["deviceFamily"] = c->info.device_family;
    if (!c->device_id.empty()) e["deviceId"] = c->device_id;
    entries.push_back(std::move(e));
  }
  return entries;
}

Gateway::~Gateway() {
  if (presence_timer_ && loop_) loop_->cancel(*presence_timer_);
}

void Gateway::presence_changed() {
  presence_dirty_ = true;
  // One flush kPresenceFlushMs after the first change (changes in between coalesce); nothing is
  // armed while presence does not change, so an idle gateway sleeps.
  if (loop_ && !presence_timer_) {
    presence_timer_ = loop_->after(kPresenceFlushMs, [this] {
      presence_timer_.reset();
      flush_presence();
    });
  }
}

void Gateway::flush_presence() {
  if (!presence_dirty_) return;
  presence_dirty_ = false;
  ++presence_version_;
  broadcast("presence", json_dump::compact(json{{"presence", presence()}}),
            /*drop_if_slow=*/true, state_version());
}

void Gateway::tick() { broadcast("tick", json{{"ts", clock_.wall_ms()}}.dump(), /*drop_if_slow=*/true); }

void Gateway::shutdown(const std::string& reason, std::optional<int64_t> restart_expected_ms) {
  if (shutting_down_) return;
  shutting_down_ = true;
  if (agents_) agents_->drain();  // GW-10: running turns finish, queued ones wait for the next start
  // 1012 tells clients to reconnect soon; 1001 that this gateway is going away.
  shutdown_close_code_ = restart_expected_ms ? kCloseServiceRestart : kCloseGoingAway;
  // OpenClaw's ShutdownEvent: restartExpectedMs is an integer when present, absent otherwise.
  json shutdown_payload = {{"reason", reason}};
  if (restart_expected_ms) shutdown_payload["restartExpectedMs"] = *restart_expected_ms;
  const std::string payload = shutdown_payload.dump();
  for (auto& [id, client] : clients_) {
    if (client->connected && !client->closing) send_event(*client, "shutdown", payload);
    else close_client(*client, shutdown_close_code_, restart_expected_ms ? "service restart" : "going away");
  }
}

void Gateway::close_clients() {
  const char* reason = shutdown_close_code_ == kCloseServiceRestart ? "service restart" : "going away";
  for (auto& [id, client] : clients_) close_client(*client, shutdown_close_code_, reason);
}

}  // namespace pincer::gateway
