// One Discord Gateway session (https://discord.com/developers/docs/events/gateway) over
// WebSocketClient: HELLO → IDENTIFY (intents) or RESUME (session_id + seq) → dispatches.
// Heartbeats every heartbeat_interval from HELLO (the first after a random fraction of it);
// a beat whose ACK has not come back by the next beat marks the connection a zombie: it is
// closed (4000, keeping the session) and resumed. RECONNECT (op 7) and any close that keeps the
// session resume on resume_gateway_url; INVALID_SESSION (op 9, d=false) and closes 4007/4009
// identify anew; the fatal closes (4004 bad token, 4014 disallowed intents, …) stop and report.
// Reconnects back off 1 s, 2 s, 4 s … 60 s, back to 1 s after READY or RESUMED; a connection
// without HELLO within 30 s is dropped and resumed.
//
// Loop affinity: event-loop thread only; callbacks on the loop; none after stop().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "channels/discord/websocket_client.h"
#include "core/event_loop.h"

namespace pincer::channels::discord {

/// What a later connection (or process) needs to resume the session; session_id "" = identify.
struct GatewaySession {
  std::string session_id;
  std::string resume_url;  ///< READY's resume_gateway_url ("" = the first URL)
  int64_t seq = -1;        ///< last dispatch sequence number handled (-1 = none)
};

struct GatewayHandlers {
  /// One dispatch (op 0) and its sequence number (-1 = none) — READY and RESUMED are passed on
  /// too. Called before the session's seq advances to it, so on_session after it has that seq.
  std::function<void(const std::string& type, const nlohmann::json& d, int64_t seq)> on_dispatch;
  /// The session changed (READY, each dispatch handled, invalidated): persist it to resume after
  /// a restart.
  std::function<void(const GatewaySession&)> on_session;
  /// The session cannot continue (a fatal close, `code` its close code): once; nothing runs
  /// afterwards.
  std::function<void(int code, const std::string& why)> on_fatal;
};

class DiscordGateway {
 public:
  DiscordGateway(EventLoop& loop, std::string token, int64_t intents);
  ~DiscordGateway();

  /// Connects to `url` (GET /gateway/bot's url), resuming `session` when it has an id.
  void start(std::string url, GatewaySession session, GatewayHandlers handlers);
  void stop();

  /// {connected, sessionId?, seq, heartbeatIntervalMs, reconnects, resumes, zombies}.
  nlohmann::json status() const;

 private:
  void connect();
  void on_message(const std::string& text);
  void on_closed(int code, const std::string& reason);
  void reconnect(bool keep_session, const std::string& why);
  void beat();
  void schedule_beat(int64_t delay_ms);

  EventLoop& loop_;
  std::string token_;
  int64_t intents_;
  std::string url_;
  GatewaySession session_;
  GatewayHandlers handlers_;
  WebSocketClient ws_;
  std::shared_ptr<bool> alive_;
  std::optional<EventLoop::TimerId> beat_timer_, reconnect_timer_, hello_timer_;
  static constexpr int64_t kHelloTimeoutMs = 30'000;  ///< connected but no HELLO: reconnect
  int64_t interval_ms_ = 0;
  bool awaiting_ack_ = false;
  bool connected_ = false;  ///< READY or RESUMED on this connection
  int failures_ = 0;
  int64_t reconnects_ = 0, resumes_ = 0, zombies_ = 0;
};

}  // namespace pincer::channels::discord
