#include "gateway/gateway.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "core/ids.h"
#include "gateway/protocol/constants.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway {

using nlohmann::json;

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

}  // namespace

const std::vector<std::string>& gateway_events() {
  static const std::vector<std::string> events = {"connect.challenge", "tick",     "health", "presence",
                                                  "shutdown",          "agent",    "chat"};
  return events;
}

Gateway::Gateway(GatewaySettings settings, Clock& clock)
    : settings_(std::move(settings)),
      clock_(clock),
      started_steady_ms_(clock.steady_ms()),
      instance_id_(ids::uuid_v4()),
      auth_limiter_(settings_.auth_rate_limit) {
  register_system_methods(methods_);
  register_config_methods(methods_);
  register_chat_methods(methods_);
  register_agent_methods(methods_);
  register_session_methods(methods_);
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
    close_client(c, kCloseServiceRestart, "service restart");
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
  if (auto wait = auth_limiter_.check(client.peer.remote_ip, client.peer.loopback, now)) {
    auto f = rate_limited_failure(*wait);
    return fail_handshake(client, request.id, f.error, f.close_code);
  }
  AuthResult auth = authenticate(req, client.peer, settings_.auth);
  if (!auth.ok) {
    auth_limiter_.record_failure(client.peer.remote_ip, client.peer.loopback, now);
    auto f = auth_failure(auth);
    return fail_handshake(client, request.id, f.error, f.close_code);
  }
  auth_limiter_.record_success(client.peer.remote_ip);

  // Nodes always prove a device identity; device verification and pairing arrive with issue #6.
  if (req.role == "node" && !req.has_device) {
    return fail_handshake(client, request.id,
                          RpcError{"NOT_PAIRED", "device identity required", {{"code", "DEVICE_IDENTITY_REQUIRED"}},
                                   std::nullopt, std::nullopt},
                          kClosePolicy);
  }

  client.connected = true;
  client.protocol = std::get<int>(protocol);
  client.role = req.role;
  client.scopes = req.scopes;  // shared auth succeeded: self-declared scopes are kept (§1.4 step 6)
  client.caps = req.caps;
  client.info = req.client;
  client.connected_at_ms = clock_.wall_ms();
  client.link->set_max_message_bytes(kMaxPayloadBytes);
  spdlog::info("conn {}: connected {} ({}/{}) from {} protocol {} role {}", client.id, client.conn_uuid,
               client.info.id, client.info.mode, client.peer.remote_ip, client.protocol, client.role);

  send_frame(client, build_ok_value(request.id, hello_payload(client)));
  if (client.info.mode != "cli") presence_changed();  // CLI clients are not presence (§1.4 step 13)
}

json Gateway::hello_payload(const Client& client) const {
  json snapshot = {
      {"presence", presence()},
      {"health", health_},
      {"stateVersion", state_version()},
      {"uptimeMs", uptime_ms()},
      {"configPath", settings_.config_path.string()},
      {"stateDir", settings_.state_dir.string()},
      {"sessionDefaults",
       {{"defaultAgentId", "main"}, {"mainKey", "main"}, {"mainSessionKey", "agent:main:main"}, {"scope", "per-sender"}}},
      {"authMode", settings_.auth.mode},
  };
  return json{
      {"type", "hello-ok"},
      {"protocol", client.protocol},
      {"server", {{"version", settings_.version}, {"connId", client.conn_uuid}}},
      {"features", {{"methods", methods_.names()}, {"events", gateway_events()}}},
      {"snapshot", std::move(snapshot)},
      {"auth", {{"method", settings_.auth.mode}, {"role", client.role}, {"scopes", client.scopes}}},
      {"policy",
       {{"maxPayload", kMaxPayloadBytes}, {"maxBufferedBytes", kMaxBufferedBytes}, {"tickIntervalMs", kTickIntervalMs}}},
  };
}

// ---------------------------------------------------------------------------------------------
// Requests after the handshake

std::string Gateway::write_budget_key(const Client& client) const {
  // "<deviceId>|<ip>" as OpenClaw keys it; without device identity all clients of one IP share.
  std::string ip = client.peer.remote_ip.empty() ? "unknown-ip" : client.peer.remote_ip;
  std::string key = "unknown-device|" + ip;
  if (client.peer.remote_ip.empty()) key += "|conn=" + client.conn_uuid;
  return key;
}

void Gateway::dispatch(Client& client, const RequestFrame& request) {
  if (auto denied = authorize(client.role, client.scopes, request.method)) {
    send_frame(client, build_error(request.id, *denied));
    if (denied->message.rfind("unauthorized role", 0) == 0 && ++client.role_denials > kUnauthorizedFloodLimit) {
      close_client(client, kClosePolicy, "repeated unauthorized calls");
    }
    return;
  }
  client.role_denials = 0;

  const MethodSpec* spec = methods_.find(request.method);
  if (!spec) {
    send_frame(client, build_error(request.id, RpcError::invalid("unknown method: " + request.method)));
    return;
  }

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
    cache_body = "0" + error.to_json().dump();
  }
  if (!idem_key.empty()) idempotency_.store(idem_key, std::move(cache_body), now);
  send_frame(client, std::move(frame));
}

// ---------------------------------------------------------------------------------------------
// Outbound

void Gateway::send_frame(Client& client, std::string frame, bool drop_if_slow) {
  if (client.closing) return;
  if (client.link->buffered_bytes() + frame.size() > kMaxBufferedBytes) {
    if (drop_if_slow) return;
    spdlog::warn("conn {}: slow consumer ({} bytes queued); closing", client.id, client.link->buffered_bytes());
    close_client(client, kClosePolicy, "slow consumer");
    return;
  }
  client.link->send(std::move(frame));
}

void Gateway::send_to(ConnId id, std::string frame, bool drop_if_slow) {
  auto it = clients_.find(id);
  if (it != clients_.end() && it->second->connected) send_frame(*it->second, std::move(frame), drop_if_slow);
}

void Gateway::send_event(Client& client, std::string_view event, const std::string& payload_json, bool drop_if_slow,
                         const json& state_version) {
  send_frame(client, build_event(event, payload_json, client.next_seq++, state_version), drop_if_slow);
}

void Gateway::broadcast(std::string_view event, const std::string& payload_json, bool drop_if_slow,
                        const json& state_version) {
  for (auto& [id, client] : clients_) {
    if (client->connected && !client->closing) send_event(*client, event, payload_json, drop_if_slow, state_version);
  }
}

void Gateway::broadcast_run_event(std::string_view event, const std::string& payload_json, bool tool_event) {
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || client->role != "operator") continue;
    if (!operator_scope_allows(client->scopes, kScopeRead)) continue;  // chat/agent need operator.read
    if (tool_event && std::find(client->caps.begin(), client->caps.end(), "tool-events") == client->caps.end()) continue;
    send_event(*client, event, payload_json);
  }
}

std::size_t Gateway::connected_count() const {
  std::size_t n = 0;
  for (const auto& [id, client] : clients_) n += client->connected ? 1 : 0;
  return n;
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
              {"ip", c->peer.remote_ip},
              {"version", c->info.version},
              {"platform", c->info.platform},
              {"mode", c->info.mode},
              {"reason", "connect"},
              {"instanceId", c->info.instance_id.empty() ? c->conn_uuid : c->info.instance_id},
              {"roles", json::array({c->role})},
              {"scopes", c->scopes},
              {"ts", c->connected_at_ms}};
    if (!c->info.device_family.empty()) e["deviceFamily"] = c->info.device_family;
    entries.push_back(std::move(e));
  }
  return entries;
}

void Gateway::presence_changed() { presence_dirty_ = true; }

void Gateway::flush_presence() {
  if (!presence_dirty_) return;
  presence_dirty_ = false;
  ++presence_version_;
  broadcast("presence", json{{"presence", presence()}}.dump(), /*drop_if_slow=*/true, state_version());
}

void Gateway::tick() { broadcast("tick", json{{"ts", clock_.wall_ms()}}.dump(), /*drop_if_slow=*/true); }

void Gateway::refresh_health() {
  const int64_t started = clock_.steady_ms();
  health_ = json{
      {"ok", true},
      {"ts", clock_.wall_ms()},
      {"durationMs", 0},
      {"version", settings_.version},
      {"uptimeMs", uptime_ms()},
      {"plugins", {{"loaded", json::array()}, {"errors", json::array()}, {"unavailable", json::array()}}},
      {"channels", json::object()},
      {"channelOrder", json::array()},
      {"channelLabels", json::object()},
      {"heartbeatSeconds", 0},
      {"defaultAgentId", "main"},
      {"agents", json::array()},
      {"sessions", {{"count", 0}, {"recent", json::array()}}},
      {"connections", {{"clients", connected_count()}}},
  };
  health_["durationMs"] = clock_.steady_ms() - started;
  health_json_ = health_.dump();
  ++health_version_;
  broadcast("health", health_json_, /*drop_if_slow=*/true, state_version());
}

void Gateway::shutdown(const std::string& reason) {
  if (shutting_down_) return;
  shutting_down_ = true;
  const std::string payload = json{{"reason", reason}, {"restartExpectedMs", nullptr}}.dump();
  for (auto& [id, client] : clients_) {
    if (client->connected && !client->closing) send_event(*client, "shutdown", payload);
    close_client(*client, kCloseServiceRestart, "service restart");
  }
}

}  // namespace pincer::gateway
