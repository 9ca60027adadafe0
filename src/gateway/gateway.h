// The gateway's protocol core (GW-1..6, GW-10, AU-1, AU-2): per-connection state, the connect
// handshake, request dispatch and the event hub. It knows nothing about sockets — the transport
// (net_server.cpp) implements ClientLink and feeds it text frames and timer ticks — so that it is
// testable and fuzzable without a network.
//
// Thread affinity: everything here runs on the gateway's single event-loop thread; no locks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/http_route.h"
#include "gateway/control_ui.h"
#include "gateway/methods/registry.h"
#include "gateway/protocol/auth_rate_limit.h"
#include "gateway/protocol/connect.h"
#include "gateway/protocol/idempotency.h"
#include "gateway/protocol/write_budget.h"
#include "store/device_store.h"

namespace pincer {
class EventLoop;
namespace agent {
class AgentService;
}
namespace automation {
class CronScheduler;
class HeartbeatScheduler;
}
}  // namespace pincer

namespace pincer::gateway {

using ConnId = uint64_t;

/// The transport's side of one WebSocket connection.
class ClientLink {
 public:
  virtual ~ClientLink() = default;
  /// Queues one text message for sending, in order.
  virtual void send(std::string text) = 0;
  /// Bytes queued but not yet written to the socket.
  virtual std::size_t buffered_bytes() const = 0;
  /// Sends what is queued, then a close frame, then ends the connection. Idempotent.
  virtual void close(uint16_t code, std::string reason) = 0;
  /// Sets the largest inbound message accepted (bytes).
  virtual void set_max_message_bytes(std::size_t bytes) = 0;
};

/// One connected (or connecting) client.
struct Client {
  ConnId id = 0;
  ClientLink* link = nullptr;
  PeerInfo peer;
  std::string conn_uuid;   ///< server.connId in hello-ok
  std::string nonce;       ///< connect.challenge nonce
  bool connected = false;  ///< hello-ok sent
  bool closing = false;
  int protocol = 0;
  std::string role;
  std::vector<std::string> scopes;
  std::vector<std::string> caps;
  ConnectRequest::Client info;
  std::string device_id;     ///< verified device identity (empty: device-less connect)
  std::string auth_method;   ///< "token" | "password" | "none" | "trusted-proxy" | "device-token"
  int64_t connected_at_ms = 0;
  int64_t next_seq = 1;    ///< per-connection event sequence
  int role_denials = 0;    ///< consecutive "unauthorized role" answers
  bool session_events = false;  ///< sessions.subscribe: gets sessions.changed / session.message
};

/// Everything the gateway needs to know at start-up.
struct GatewaySettings {
  std::string version = PINCER_VERSION;
  std::filesystem::path state_dir;
  std::filesystem::path config_path;
  std::filesystem::path log_file;
  nlohmann::json config;      ///< effective config (defaults applied)
  nlohmann::json config_written;  ///< the config as written ("${NAME}" kept; config::LoadedConfig::written)
  std::string config_hash;
  bool config_exists = false;
  std::string bind_host = "127.0.0.1";
  int port = 18789;
  AuthSettings auth;
  AuthRateLimitOptions auth_rate_limit;
  ControlUiSettings control_ui;  ///< gateway.controlUi.root/basePath (gateway/control_ui.h)
  /// GW-10 `gateway.drainTimeoutMs`: how long a stopping gateway waits for running turns and
  /// replies in delivery before it aborts them (they are resumed at the next start).
  int64_t drain_timeout_ms = 30'000;
};

class Gateway {
 public:
  Gateway(GatewaySettings settings, Clock& clock);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  /// A socket completed the WebSocket upgrade: registers it and sends `connect.challenge`.
  ConnId open(ClientLink& link, PeerInfo peer);
  /// One inbound text message.
  void on_message(ConnId id, std::string_view text);
  /// A message over the connection's limit, read to its end and not kept: `head` is its first
  /// bytes, `bytes` its size. A connected client's request (its id found in `head`) is answered
  /// INVALID_REQUEST naming the size and the limit (and, for chat.send / agent, the attachment
  /// limits); anything else closes the socket 1009 with that text (gateway_oversized.cpp).
  void on_message_too_large(ConnId id, std::string_view head, std::size_t bytes);
  /// The socket is gone (after close or error); the link must not be used again.
  void on_closed(ConnId id);
  /// The handshake timer fired: closes the client (1008 "handshake timeout") unless connected.
  void on_handshake_timeout(ConnId id);

  /// Periodic duties, called by the transport's timers.
  void tick();             ///< every kTickIntervalMs: `tick` event
  /// Every kHealthRefreshMs: rebuilds the health snapshot (channels, agents, sessions, clients)
  /// and, with `broadcast_event`, sends the `health` event.
  void refresh_health(bool broadcast_event = true);

  /// SIGTERM (GW-10): `shutdown` event to every connected client; clients still in the handshake
  /// (and any that connect from now on) are closed at once. Connected clients stay open while the
  /// running turns drain, so the client that asked for a turn still receives its answer; the
  /// server then calls close_clients(). `restart_expected_ms`: set for an in-process restart, so
  /// that clients reconnect (the event's `restartExpectedMs`, absent otherwise; close 1012
  /// "service restart" instead of 1001 "going away").
  void shutdown(const std::string& reason, std::optional<int64_t> restart_expected_ms = std::nullopt);
  /// After shutdown() and the drain: closes every client with the shutdown's close code.
  void close_clients();
  bool shutting_down() const { return shutting_down_; }

  // ---- for method handlers ----
  const GatewaySettings& settings() const { return settings_; }
  /// Records the port actually bound (differs from settings().port when that was 0), so that
  /// `status` reports where clients can connect. Loop thread.
  void set_listening_port(int port) { settings_.port = port; }
  /// A config reload applied `effective` (from the file whose SHA-256 is `hash`): `config.get`
  /// shows it from now on. Loop thread.
  void set_config(nlohmann::json effective, std::string hash, nlohmann::json written = nullptr) {
    settings_.config = std::move(effective);
    settings_.config_written = std::move(written);
    settings_.config_hash = std::move(hash);
    settings_.config_exists = true;
    reload_rejected_reason_.clear();
    reload_rejected_at_ms_ = 0;
  }
  /// A reload of the config file was rejected (the running config is kept): `status` and the
  /// errors of chat.send/agent say so, with `reason`, until a reload is applied. Loop thread.
  void config_reload_rejected(std::string reason) {
    reload_rejected_reason_ = std::move(reason);
    reload_rejected_at_ms_ = clock_.wall_ms();
  }
  /// `status.config`: {path, hash (of the file the running config came from), fileHash (of the
  /// file now; "" unreadable or missing), matchesFile, lastRejectedReload: {atMs, reason, fix} |
  /// null}. Reads and hashes the file (≤ 2 MiB).
  nlohmann::json config_status() const;
  /// "" while the running config matches the file; else one sentence for a client's error: that
  /// the gateway runs an older config, why its reload was rejected and how to fix it.
  std::string config_drift_note() const;
  Clock& clock() { return clock_; }
  int64_t uptime_ms() const { return clock_.steady_ms() - started_steady_ms_; }
  /// The `health` payload: the snapshot, rebuilt first when `fresh` (probe) or older than
  /// kHealthMaxAgeMs, so that uptime and counts are never more than a second old.
  const std::string& health_json(bool fresh = false);
  /// The `health` method's answer: the snapshot (OpenClaw's HealthSnapshot, as in hello-ok and the
  /// `health` event) plus Pincer's `version`, `uptimeMs` and `connections: {clients}` that
  /// `pincer health` prints. Same freshness rule as health_json().
  nlohmann::json health_answer(bool fresh = false);
  nlohmann::json presence() const;
  /// The payload of the last `heartbeat` event sent (null before the first): `last-heartbeat`.
  const nlohmann::json& last_heartbeat() const { return last_heartbeat_; }
  std::size_t connected_count() const;
  /// All sockets the gateway knows, connected or still in the handshake.
  std::size_t client_count() const { return clients_.size(); }
  /// Sockets still in the handshake (no hello-ok yet).
  std::size_t pending_handshakes() const { return clients_.size() - connected_count(); }
  /// Sockets still in the handshake whose client address (PeerInfo::client_ip) is `client_ip`.
  std::size_t pending_handshakes_from(const std::string& client_ip) const {
    std::size_t n = 0;
    for (const auto& [id, c] : clients_) n += !c->connected && c->peer.client_ip() == client_ip;
    return n;
  }
  /// Sends one `presence` event if presence changed since the last one. Called every
  /// kPresenceFlushMs by the transport: a burst of connects costs one event per client, not one
  /// per connect (which grows with the cube of the client count).
  void flush_presence();
  const MethodRegistry& methods() const { return methods_; }
  /// Sends a response frame to a client if it is still connected (for late/async answers).
  void send_to(ConnId id, std::string frame, bool drop_if_slow = false);
  /// Sends an event to every connected client, each with its own `seq`; `presence` and `health`
  /// only to clients that may read (may_read).
  void broadcast(std::string_view event, const std::string& payload_json, bool drop_if_slow = false,
                 const nlohmann::json& state_version = nullptr);

  /// An operator holding operator.read (or a scope that implies it): may see presence, health,
  /// state paths.
  static bool may_read(const Client& client);

  /// `chat`/`agent` run events: to connected operators with operator.read; tool events only to
  /// clients that declared the `tool-events` capability.
  void broadcast_run_event(std::string_view event, const std::string& payload_json, bool tool_event = false);
  /// `sessions.changed` / `session.message`: to connected operators with operator.read that
  /// subscribed (sessions.subscribe).
  void broadcast_session_event(std::string_view event, const nlohmann::json& payload);
  /// Whether any connection would get broadcast_session_event's events now (callers skip
  /// building a payload nobody receives).
  bool has_session_event_readers() const;
  /// sessions.subscribe / sessions.unsubscribe of one connection.
  void set_session_events(ConnId id, bool on) {
    if (auto it = clients_.find(id); it != clients_.end()) it->second->session_events = on;
  }

  /// The agent runtime and the loop, when this gateway has them (the app attaches both; unit
  /// tests and the fuzzer run without). Methods that need them answer UNAVAILABLE otherwise.
  void attach(EventLoop* loop, agent::AgentService* agents) {
    loop_ = loop;
    agents_ = agents;
    refresh_health(/*broadcast_event=*/false);  // the snapshot names the agents from the first call on
  }
  EventLoop* loop() { return loop_; }
  agent::AgentService* agents() { return agents_; }
  /// The cron scheduler (AT-2) the cron.* methods act on; null = none (they answer UNAVAILABLE).
  void set_cron(automation::CronScheduler* cron) { cron_ = cron; }
  automation::CronScheduler* cron() { return cron_; }
  /// AT-1: one agent's heartbeat summary (HeartbeatScheduler::summary; null = unknown) for health
  /// and status; unset = no heartbeat runtime (shown disabled).
  void set_heartbeat_summary(std::function<nlohmann::json(const std::string&)> fn) { heartbeat_summary_ = std::move(fn); }
  nlohmann::json heartbeat_summary(const std::string& agent_id) const {
    return heartbeat_summary_ ? heartbeat_summary_(agent_id) : nlohmann::json(nullptr);
  }
  /// AT-1: the heartbeat timer `wake` and `set-heartbeats` act on; null = none (wake then only
  /// queues its event, set-heartbeats answers UNAVAILABLE).
  void set_heartbeat(automation::HeartbeatScheduler* heartbeat) { heartbeat_ = heartbeat; }
  automation::HeartbeatScheduler* heartbeat() { return heartbeat_; }
  /// Extra HTTP endpoints on the gateway's port (webhooks); see core/http_route.h.
  net::HttpRoutes& http_routes() { return http_routes_; }
  /// The channel layer's `channels.status` payload, when the app runs channels (loop thread).
  void set_channels_status(std::function<nlohmann::json()> status) { channels_status_ = std::move(status); }
  const std::function<nlohmann::json()>& channels_status() const { return channels_status_; }
  /// `channels.status {probe:true}`: checks every account now (ChannelManager::probe).
  using ChannelsProbe = std::function<void(int64_t timeout_ms, std::function<void(nlohmann::json)> done)>;
  void set_channels_probe(ChannelsProbe probe) { channels_probe_ = std::move(probe); }
  const ChannelsProbe& channels_probe() const { return channels_probe_; }
  /// GW-10: work a stop waits for (running turns, replies in delivery); 0 when none is set.
  void set_pending_work(std::function<std::size_t()> count) { pending_work_ = std::move(count); }
  std::size_t pending_work() const { return pending_work_ ? pending_work_() : 0; }

  /// Device pairing (AU-3): the store under <state>/devices (in memory without a state dir).
  store::DeviceStore& devices() { return *devices_; }
  /// Sends a `device.pair.*` event to connected operators holding operator.pairing (or admin).
  void broadcast_pairing_event(std::string_view event, const nlohmann::json& payload);
  /// Sends an event to connected operators whose scopes allow `scope` (exec.approval.* need
  /// operator.approvals).
  void broadcast_scoped_event(std::string_view event, const nlohmann::json& payload, std::string_view scope);
  /// Whether a connected client authenticated as this device.
  bool device_connected(const std::string& device_id) const;
  /// Closes (1008 `reason`) every connection of this device, of one role when `role` is non-empty;
  /// queued answers are still delivered first.
  void disconnect_device(const std::string& device_id, const std::string& role, const std::string& reason);

  /// An HTTP request's `Authorization: Bearer` credential (may be empty) against the gateway's
  /// auth: the shared token or password, trusted-proxy headers, or an operator device token; failed
  /// guesses count in the auth rate limit as a connect's do (gateway_http_auth.cpp). Loop thread.
  bool authorize_http_bearer(const PeerInfo& peer, std::string_view bearer);

  /// Registry access for tests that add methods, and for runtimes that own one (hooks.status).
  MethodRegistry& mutable_methods() { return methods_; }

 private:
  void handle_connect(Client& client, const RequestFrame& request);
  /// Device proof, device-token auth and pairing (§1.4 steps 6-11). Returns false after refusing.
  bool connect_device(Client& client, const RequestFrame& request, const ConnectRequest& req, AuthResult& auth,
                      std::optional<store::DeviceToken>& issued);
  bool require_pairing(Client& client, const RequestFrame& request, const ConnectRequest& req,
                       const device_auth::VerifiedDevice& device, const std::string& reason, bool silent);
  /// At start: device tokens issued under another auth mode or shared secret are revoked
  /// (store/auth_epoch.h; gateway/device_epoch.cpp).
  void bind_device_tokens_to_auth_epoch();
  void dispatch(Client& client, const RequestFrame& request);
  void fail_handshake(Client& client, const std::string& request_id, const RpcError& error, uint16_t close_code);
  void close_client(Client& client, uint16_t code, const std::string& reason);
  void send_frame(Client& client, std::string frame, bool drop_if_slow = false);
  void send_event(Client& client, std::string_view event, const std::string& payload_json, bool drop_if_slow = false,
                  const nlohmann::json& state_version = nullptr);
  nlohmann::json hello_payload(const Client& client, const store::DeviceToken* device_token) const;
  nlohmann::json state_version() const;
  void presence_changed();
  std::string write_budget_key(const Client& client) const;

  GatewaySettings settings_;
  Clock& clock_;
  int64_t started_steady_ms_;
  std::string instance_id_;
  MethodRegistry methods_;
  std::unordered_map<ConnId, std::unique_ptr<Client>> clients_;
  ConnId next_id_ = 1;
  AuthRateLimiter auth_limiter_;
  IdempotencyCache idempotency_;
  WriteBudget write_budget_;
  std::unique_ptr<store::DeviceStore> devices_;
  nlohmann::json health_;
  nlohmann::json last_heartbeat_;
  std::string health_json_;
  int64_t presence_version_ = 1;
  bool presence_dirty_ = false;
  std::optional<uint64_t> presence_timer_;  ///< the one-shot flush, armed only by a change
  int64_t health_version_ = 1;
  int64_t health_built_ms_ = 0;  ///< steady ms
  bool shutting_down_ = false;
  uint16_t shutdown_close_code_ = 1001;  ///< kCloseGoingAway, or kCloseServiceRestart for a restart
  std::string reload_rejected_reason_;  ///< "" when the last reload was applied (or none failed)
  int64_t reload_rejected_at_ms_ = 0;
  EventLoop* loop_ = nullptr;
  agent::AgentService* agents_ = nullptr;
  automation::CronScheduler* cron_ = nullptr;
  automation::HeartbeatScheduler* heartbeat_ = nullptr;
  std::function<nlohmann::json()> channels_status_;
  std::function<nlohmann::json(const std::string&)> heartbeat_summary_;
  ChannelsProbe channels_probe_;
  std::function<std::size_t()> pending_work_;
  net::HttpRoutes http_routes_;
};

/// The events this gateway emits (hello-ok features.events).
const std::vector<std::string>& gateway_events();
/// The server capabilities in hello-ok features.capabilities (OpenClaw's GATEWAY_SERVER_CAPS).
const std::vector<std::string>& gateway_capabilities();

}  // namespace pincer::gateway
