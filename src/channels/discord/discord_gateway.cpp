#include "channels/discord/discord_gateway.h"

#include <algorithm>
#include <random>

#include <spdlog/spdlog.h>

#include "channels/discord/discord_api.h"

namespace pincer::channels::discord {

using nlohmann::json;

DiscordGateway::DiscordGateway(EventLoop& loop, std::string token, int64_t intents)
    : loop_(loop), token_(std::move(token)), intents_(intents), ws_(loop) {}

DiscordGateway::~DiscordGateway() { stop(); }

void DiscordGateway::start(std::string url, GatewaySession session, GatewayHandlers handlers) {
  stop();
  url_ = std::move(url);
  session_ = std::move(session);
  handlers_ = std::move(handlers);
  alive_ = std::make_shared<bool>(true);
  failures_ = 0;
  connect();
}

void DiscordGateway::stop() {
  if (alive_) *alive_ = false;
  alive_.reset();
  if (beat_timer_) loop_.cancel(*beat_timer_);
  if (reconnect_timer_) loop_.cancel(*reconnect_timer_);
  if (hello_timer_) loop_.cancel(*hello_timer_);
  beat_timer_.reset();
  reconnect_timer_.reset();
  hello_timer_.reset();
  // 4000 keeps the session resumable (1000 would end it on Discord's side).
  ws_.close(4000);
  connected_ = false;
}

json DiscordGateway::status() const {
  json s = {{"connected", connected_},
            {"seq", session_.seq},
            {"heartbeatIntervalMs", interval_ms_},
            {"reconnects", reconnects_},
            {"resumes", resumes_},
            {"zombies", zombies_}};
  if (!session_.session_id.empty()) s["sessionId"] = session_.session_id;
  return s;
}

void DiscordGateway::connect() {
  const std::string& base = !session_.session_id.empty() && !session_.resume_url.empty() ? session_.resume_url : url_;
  interval_ms_ = 0;
  awaiting_ack_ = false;
  connected_ = false;
  std::weak_ptr<bool> alive = alive_;
  WebSocketHandlers h;
  h.on_message = [this, alive](std::string text) {
    if (auto a = alive.lock(); a && *a) on_message(text);
  };
  h.on_close = [this, alive](int code, std::string reason) {
    if (auto a = alive.lock(); a && *a) on_closed(code, reason);
  };
  ws_.connect(gateway_connect_url(base), 20'000, std::move(h));
  // A server that accepts the connection but never says HELLO would leave the session hanging.
  if (hello_timer_) loop_.cancel(*hello_timer_);
  hello_timer_ = loop_.after(kHelloTimeoutMs, [this, alive] {
    auto a = alive.lock();
    if (!a || !*a) return;
    hello_timer_.reset();
    if (interval_ms_ == 0) reconnect(true, "no HELLO within " + std::to_string(kHelloTimeoutMs) + " ms");
  });
}

void DiscordGateway::on_message(const std::string& text) {
  const json p = json::parse(text, nullptr, false);
  if (!p.is_object() || !p.contains("op") || !p["op"].is_number_integer()) {
    spdlog::warn("discord: ignoring a Gateway frame that is not a payload ({} bytes)", text.size());
    return;
  }
  const int op = p["op"].get<int>();
  const json d = p.contains("d") ? p["d"] : json();
  switch (op) {
    case kOpHello: {
      if (hello_timer_) loop_.cancel(*hello_timer_);
      hello_timer_.reset();
      interval_ms_ = d.is_object() ? d.value("heartbeat_interval", int64_t{41'250}) : 41'250;
      interval_ms_ = std::clamp<int64_t>(interval_ms_, 100, 300'000);
      std::uniform_real_distribution<double> jitter(0.0, 1.0);
      std::random_device rd;
      schedule_beat(static_cast<int64_t>(interval_ms_ * jitter(rd)));
      if (!session_.session_id.empty()) {
        ws_.send(resume_payload(token_, session_.session_id, session_.seq).dump());
      } else {
        ws_.send(identify_payload(token_, intents_).dump());
      }
      return;
    }
    case kOpHeartbeatAck: awaiting_ack_ = false; return;
    case kOpHeartbeat: ws_.send(heartbeat_payload(session_.seq).dump()); return;
    case kOpReconnect: return reconnect(true, "the Gateway asked to reconnect");
    case kOpInvalidSession: {
      const bool resumable = d.is_boolean() && d.get<bool>();
      spdlog::info("discord: session invalidated ({})", resumable ? "resumable" : "identifying anew");
      if (!resumable) {
        session_ = {};
        if (auto f = handlers_.on_session) f(session_);
      }
      // Discord asks for a pause of 1–5 s before identifying again.
      return reconnect(resumable, "invalid session");
    }
    case kOpDispatch: break;
    default: return;
  }
  const std::string type = p.value("t", "");
  const int64_t seq = p.contains("s") && p["s"].is_number_integer() ? p["s"].get<int64_t>() : -1;
  if (type == "READY" && d.is_object()) {
    session_.session_id = d.value("session_id", "");
    session_.resume_url = d.value("resume_gateway_url", "");
    connected_ = true;
    failures_ = 0;
  } else if (type == "RESUMED") {
    connected_ = true;
    failures_ = 0;
    ++resumes_;
    spdlog::info("discord: session resumed at seq {}", session_.seq);
  }
  std::weak_ptr<bool> alive = alive_;
  if (auto f = handlers_.on_dispatch) f(type, d, seq);
  auto a = alive.lock();
  if (!a || !*a) return;
  if (seq >= 0) session_.seq = std::max(session_.seq, seq);
  if (auto f = handlers_.on_session; f && (seq >= 0 || type == "READY")) f(session_);
}

void DiscordGateway::on_closed(int code, const std::string& reason) {
  connected_ = false;
  if (hello_timer_) loop_.cancel(*hello_timer_);
  hello_timer_.reset();
  if (beat_timer_) loop_.cancel(*beat_timer_);
  beat_timer_.reset();
  if (auto fatal = fatal_close(code)) {
    spdlog::error("discord: Gateway closed: {}", *fatal);
    session_ = {};
    if (auto f = handlers_.on_session) f(session_);
    auto f = handlers_.on_fatal;
    stop();
    if (f) f(code, *fatal);
    return;
  }
  const bool keep = !close_forgets_session(code);
  if (!keep) {
    session_ = {};
    if (auto f = handlers_.on_session) f(session_);
  }
  reconnect_timer_.reset();
  ++reconnects_;
  const int64_t backoff = std::min<int64_t>(60'000, 1000LL << std::min(failures_++, 6));
  spdlog::warn("discord: Gateway connection ended ({}{}); reconnecting in {} ms", code ? "close " + std::to_string(code) + ": " : "",
               reason, backoff);
  std::weak_ptr<bool> alive = alive_;
  reconnect_timer_ = loop_.after(backoff, [this, alive] {
    auto a = alive.lock();
    if (!a || !*a) return;
    reconnect_timer_.reset();
    connect();
  });
}

void DiscordGateway::reconnect(bool keep_session, const std::string& why) {
  if (!keep_session) session_ = {};
  if (beat_timer_) loop_.cancel(*beat_timer_);
  beat_timer_.reset();
  ws_.close(4000);
  connected_ = false;
  ++reconnects_;
  std::uniform_int_distribution<int64_t> pause(1000, 5000);
  std::random_device rd;
  const int64_t delay = keep_session ? 0 : pause(rd);
  spdlog::info("discord: {}; {} in {} ms", why, keep_session ? "resuming" : "identifying", delay);
  std::weak_ptr<bool> alive = alive_;
  reconnect_timer_ = loop_.after(delay, [this, alive] {
    auto a = alive.lock();
    if (!a || !*a) return;
    reconnect_timer_.reset();
    connect();
  });
}

void DiscordGateway::schedule_beat(int64_t delay_ms) {
  if (beat_timer_) loop_.cancel(*beat_timer_);
  std::weak_ptr<bool> alive = alive_;
  beat_timer_ = loop_.after(delay_ms, [this, alive] {
    auto a = alive.lock();
    if (!a || !*a) return;
    beat_timer_.reset();
    beat();
  });
}

void DiscordGateway::beat() {
  if (awaiting_ack_) {
    // The last beat was never acknowledged: the connection is a zombie.
    ++zombies_;
    return reconnect(true, "no heartbeat ACK (zombie connection)");
  }
  awaiting_ack_ = true;
  ws_.send(heartbeat_payload(session_.seq).dump());
  schedule_beat(interval_ms_);
}

}  // namespace pincer::channels::discord
