#include "channels/webhook/webhook_channel.h"

#include <sodium.h>

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

namespace pincer::channels::webhook {

using nlohmann::json;

namespace {

net::HttpRouteResponse answer(int status, json body) { return {status, "application/json; charset=utf-8", body.dump(), {}}; }

}  // namespace

std::string signature(const std::string& secret, const std::string& body) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(body.data()), body.size());
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[sizeof mac * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return std::string("sha256=") + hex;
}

bool signature_valid(const std::string& secret, const std::string& body, const std::string& header_value) {
  const std::string expected = signature(secret, body);
  std::string given = header_value;
  for (auto& c : given) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return given.size() == expected.size() && sodium_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

WebhookChannel::WebhookChannel(EventLoop& loop, WebhookSettings settings)
    : loop_(loop), settings_(std::move(settings)), http_(loop) {}

WebhookChannel::~WebhookChannel() { stop(); }

ChannelCapabilities WebhookChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Markdown;  // callers get the agent's Markdown as written
  c.unit = delivery::LengthUnit::CodePoints;
  c.text_limit = 1'000'000;  // one reply, one answer
  c.verified_senders = true;
  c.threads = true;  // conversationId
  c.single_reply = settings_.sync;
  return c;
}

void WebhookChannel::start(ChannelHost& host, std::function<void(const std::string&)>) { host_ = &host; }

void WebhookChannel::stop() {
  host_ = nullptr;
  for (auto& [conversation, queue] : waiting_) {
    for (auto& w : queue) {
      loop_.cancel(w->timer);
      w->respond(answer(503, {{"ok", false}, {"error", "gateway stopping"}}));
    }
  }
  waiting_.clear();
}

net::HttpRoute WebhookChannel::route() {
  return {settings_.path, settings_.max_body_bytes,
          [this](const net::HttpRouteRequest& r, net::HttpResponder respond) { handle(r, std::move(respond)); }};
}

void WebhookChannel::handle(const net::HttpRouteRequest& req, net::HttpResponder respond) {
  if (req.method != "POST") return respond(answer(405, {{"ok", false}, {"error", "use POST"}}));
  auto sig = req.headers.find("x-pincer-signature");
  if (sig == req.headers.end() || !signature_valid(settings_.secret, req.body, sig->second)) {
    ++rejected_;
    spdlog::warn("webhook: request from {} with a missing or wrong X-Pincer-Signature", req.remote_address);
    return respond(answer(401, {{"ok", false}, {"error", "missing or wrong X-Pincer-Signature (sha256=<hex HMAC of the body>)"}}));
  }
  json body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.contains("text") || !body["text"].is_string() || body["text"].get<std::string>().empty()) {
    return respond(answer(400, {{"ok", false}, {"error", "body must be a JSON object with a non-empty string \"text\""}}));
  }
  auto str = [&](const char* key, const std::string& def) {
    return body.contains(key) && body[key].is_string() && !body[key].get<std::string>().empty() ? body[key].get<std::string>() : def;
  };
  if (!host_) return respond(answer(503, {{"ok", false}, {"error", "webhook channel not running"}}));
  ++received_;
  InboundMessage m;
  m.channel = id_;
  m.account_id = settings_.account_id;
  m.sender_id = str("senderId", "webhook");
  m.sender_name = str("senderName", "");
  m.chat_id = str("conversationId", m.sender_id);
  // A conversation is a thread of its sender: its own session (and queue), whoever sends.
  if (m.chat_id != m.sender_id) m.thread_id = m.chat_id;
  m.message_id = str("messageId", "");
  m.text = body["text"].get<std::string>();
  m.mentions_bot = true;
  const std::string conversation = m.chat_id;
  // Register the waiter first: a command's reply may be sent before on_inbound returns.
  std::shared_ptr<Waiting> waiter;
  if (settings_.sync) {
    waiter = std::make_shared<Waiting>();
    waiter->respond = respond;
    std::weak_ptr<Waiting> weak = waiter;
    waiter->timer = loop_.after(settings_.reply_timeout_ms, [this, weak, conversation] {
      auto w = weak.lock();
      if (!w) return;
      auto& q = waiting_[conversation];
      q.erase(std::remove(q.begin(), q.end(), w), q.end());
      w->respond(answer(504, {{"ok", false}, {"error", "no reply within the timeout"}}));
    });
    waiting_[conversation].push_back(waiter);
  }
  const InboundOutcome outcome = host_->on_inbound(std::move(m));
  if (outcome != InboundOutcome::Accepted) {
    if (waiter) {
      loop_.cancel(waiter->timer);
      auto& q = waiting_[conversation];
      q.erase(std::remove(q.begin(), q.end(), waiter), q.end());
    }
    if (outcome == InboundOutcome::Duplicate) return respond(answer(200, {{"ok", true}, {"duplicate", true}}));
    return respond(answer(403, {{"ok", false}, {"error", "refused by the channel's access policy"}}));
  }
  if (!settings_.sync) respond(answer(202, {{"ok", true}, {"accepted", true}, {"conversationId", conversation}}));
}

void WebhookChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (settings_.sync) {
    auto it = waiting_.find(message.chat_id);
    if (it == waiting_.end() || it->second.empty()) {
      last_error_ = "a reply for conversation " + message.chat_id + " came after its caller stopped waiting";
      return done(Error{"REJECTED", last_error_});
    }
    auto w = it->second.front();
    it->second.pop_front();
    if (it->second.empty()) waiting_.erase(it);
    loop_.cancel(w->timer);
    ++replied_;
    w->respond(answer(200, {{"ok", true}, {"conversationId", message.chat_id}, {"reply", message.text}}));
    return done(std::string("http-response"));
  }
  const std::string body = json{{"conversationId", message.chat_id}, {"text", message.text}}.dump();
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = settings_.callback_url;
  spec.headers = {{"Content-Type", "application/json"}, {"X-Pincer-Signature", signature(settings_.secret, body)}};
  spec.body = body;
  spec.connect_timeout_ms = 10'000;
  spec.idle_timeout_ms = 30'000;
  auto status = std::make_shared<int>(0);
  http_.start(std::move(spec), {[status](const net::HttpResponseHead& h) { *status = h.status; }, [](std::string_view) {},
                                [this, status, done](const std::optional<net::TransportError>& e) {
                                  if (e) {
                                    last_error_ = "callback: " + e->what;
                                    return done(Error{"UNAVAILABLE", last_error_});
                                  }
                                  if (*status >= 200 && *status < 300) {
                                    ++replied_;
                                    return done(std::string("callback"));
                                  }
                                  last_error_ = "callback answered HTTP " + std::to_string(*status);
                                  done(Error{*status >= 500 || *status == 429 ? "UNAVAILABLE" : "REJECTED", last_error_});
                                }});
}

json WebhookChannel::status() const {
  json s = {{"channel", id_}, {"accountId", settings_.account_id}, {"running", host_ != nullptr}, {"path", settings_.path},
            {"mode", settings_.sync ? "sync" : "callback"}, {"received", received_}, {"rejected", rejected_}, {"replied", replied_}};
  if (!last_error_.empty()) s["lastError"] = last_error_;
  return s;
}

}  // namespace pincer::channels::webhook
