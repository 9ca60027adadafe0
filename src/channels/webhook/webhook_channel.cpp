#include "channels/webhook/webhook_channel.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "core/clock.h"

namespace pincer::channels::webhook {

using nlohmann::json;

namespace {

net::HttpRouteResponse answer(int status, json body) { return {status, "application/json; charset=utf-8", body.dump(), {}}; }

}  // namespace

Result<WebhookMessage> parse_webhook_message(const json& body) {
  auto invalid = [](const std::string& why) { return Error{"INVALID_REQUEST", why}; };
  WebhookMessage out;
  const auto text = body.find("text");
  if (text == body.end() || !text->is_string()) {
    return invalid("body must be a JSON object with a non-empty string \"text\"");
  }
  out.text = text->get<std::string>();
  if (out.text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    return invalid(out.text.empty() ? "\"text\" is empty" : "\"text\" is only whitespace");
  }
  // An id: absent, null or "" = the default; an integer = its decimal string.
  auto id = [&](const char* key, std::string& target) -> Status {
    const auto it = body.find(key);
    if (it == body.end() || it->is_null()) return Ok{};
    std::string v;
    if (it->is_number_integer()) {
      v = it->dump();
    } else if (it->is_string()) {
      v = it->get<std::string>();
    } else {
      return invalid("\"" + std::string(key) + "\" must be a string or an integer, got " + it->type_name());
    }
    if (v.empty()) return Ok{};
    if (v.size() > kWebhookMaxIdBytes) {
      return invalid("\"" + std::string(key) + "\" is " + std::to_string(v.size()) + " bytes; at most " +
                     std::to_string(kWebhookMaxIdBytes));
    }
    if (v.find_first_not_of(" \t") == std::string::npos) return invalid("\"" + std::string(key) + "\" is only whitespace");
    for (const unsigned char c : v) {
      if (c < 0x20 || c == 0x7f) {
        char code[8];
        std::snprintf(code, sizeof code, "0x%02x", c);
        return invalid("\"" + std::string(key) + "\" contains a control character (" + code + ")");
      }
    }
    target = std::move(v);
    return Ok{};
  };
  if (auto st = id("senderId", out.sender_id); !st) return st.error();
  if (auto st = id("conversationId", out.conversation_id); !st) return st.error();
  if (auto st = id("messageId", out.message_id); !st) return st.error();
  if (out.conversation_id.empty()) out.conversation_id = out.sender_id;
  if (const auto name = body.find("senderName"); name != body.end() && !name->is_null()) {
    if (!name->is_string()) return invalid(std::string("\"senderName\" must be a string, got ") + name->type_name());
    out.sender_name = name->get<std::string>();
  }
  return out;
}

WebhookChannel::WebhookChannel(EventLoop& loop, WebhookSettings settings)
    : loop_(loop),
      settings_(std::move(settings)),
      http_(loop),
      replay_(settings_.replay_file),
      message_ids_(settings_.dedupe_file),
      callback_key_(callback_key(settings_.secret)) {}

WebhookChannel::~WebhookChannel() { stop(); }

ChannelCapabilities WebhookChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Markdown;  // callers get the agent's Markdown as written
  c.unit = delivery::LengthUnit::CodePoints;
  c.text_limit = 1'000'000;  // one reply, one answer
  c.verified_senders = true;
  c.sender_sessions = true;
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
  for (auto& [identity, list] : retries_) {
    for (auto& w : list) {
      loop_.cancel(w->timer);
      w->respond(answer(503, {{"ok", false}, {"error", "gateway stopping"}}));
    }
  }
  retries_.clear();
}

net::HttpRoute WebhookChannel::route() {
  return {settings_.path, settings_.max_body_bytes,
          [this](const net::HttpRouteRequest& r, net::HttpResponder respond) { handle(r, std::move(respond)); }};
}

std::optional<WebhookChannel::Refusal> WebhookChannel::authenticate(const net::HttpRouteRequest& req) {
  auto header = [&](const char* name) -> const std::string* {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? nullptr : &it->second;
  };
  const std::string* ts_text = header("x-pincer-timestamp");
  if (!ts_text) {
    return Refusal{401, "missing X-Pincer-Timestamp: send the Unix time in seconds and sign \"<timestamp>.<body>\" "
                        "(X-Pincer-Signature: sha256=<hex HMAC>; docs/channels.md, Webhook)"};
  }
  const auto ts = parse_timestamp(*ts_text);
  // (The value is not echoed: it may be any bytes, and the answer is JSON.)
  if (!ts) return Refusal{401, "X-Pincer-Timestamp must be the Unix time in seconds (1 to 12 decimal digits)"};
  const std::string* sig = header("x-pincer-signature");
  if (!sig || !signature_valid(settings_.secret, *ts_text, req.body, *sig)) {
    return Refusal{401, "missing or wrong X-Pincer-Signature (sha256=<hex HMAC-SHA256 of \"<timestamp>.<body>\">)"};
  }
  const int64_t now = SystemClock::instance().wall_ms() / 1000;
  if (*ts < now - kWebhookWindowS || *ts > now + kWebhookWindowS) {
    return Refusal{401, "stale X-Pincer-Timestamp: " + std::to_string(*ts - now) + " s from the gateway's clock (at most ±" +
                            std::to_string(kWebhookWindowS) + " s); sign the request again with the current time"};
  }
  std::string key = sig->substr(sig->find('=') + 1);
  for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto verdict = replay_.admit(key, *ts, now);
  if (!verdict) return Refusal{503, "cannot record the request for replay protection: " + verdict.error().message};
  if (*verdict == ReplayGuard::Verdict::Replayed) {
    return Refusal{409,
                   "replayed request: this signature was used already (sign each request with a new timestamp; "
                   "a retry keeps its messageId)",
                   true};
  }
  if (*verdict == ReplayGuard::Verdict::Full) {
    return Refusal{429, "too many requests within " + std::to_string(kWebhookWindowS) + " s; try again later"};
  }
  return std::nullopt;
}

void WebhookChannel::handle(const net::HttpRouteRequest& req, net::HttpResponder respond) {
  if (req.method != "POST") return respond(answer(405, {{"ok", false}, {"error", "use POST"}}));
  auto refuse = [&](const Refusal& refused) {
    ++rejected_;
    spdlog::warn("webhook[{}]: request from {} refused ({}): {}", settings_.account_id, req.remote_address, refused.status,
                 refused.error);
    respond(answer(refused.status, {{"ok", false}, {"error", refused.error}}));
  };
  const std::optional<Refusal> refused = authenticate(req);
  if (refused && !refused->replayed) return refuse(*refused);
  json body = json::parse(req.body, nullptr, false);
  Result<WebhookMessage> parsed = body.is_object()
                                      ? parse_webhook_message(body)
                                      : Result<WebhookMessage>(Error{"INVALID_REQUEST", "body must be a JSON object with a "
                                                                                       "non-empty string \"text\""});
  const int64_t now_s = SystemClock::instance().wall_ms() / 1000;
  const std::string identity =
      parsed ? MessageIdRecord::identity(parsed->sender_id, parsed->conversation_id, parsed->message_id) : "";
  if (refused) {
    // A replayed signature: a retry re-sent within the same second signs the same bytes. One whose
    // messageId is already taken is answered as any retry below; anything else stays refused.
    if (!host_ || identity.empty() || !message_ids_.seen(identity, now_s)) return refuse(*refused);
    spdlog::info("webhook[{}]: request from {} repeats a signature of message {}: answered as its retry", settings_.account_id,
                 req.remote_address, parsed->message_id);
  }
  if (!parsed) return refuse(Refusal{400, parsed.error().message});
  if (!host_) return respond(answer(503, {{"ok", false}, {"error", "webhook channel not running"}}));
  // A retry of a message already taken (also before a restart) is answered, never run again.
  if (message_ids_.seen(identity, now_s)) {
    if (settings_.sync) return answer_retry(identity, std::move(respond));
    return respond(answer(200, {{"ok", true}, {"duplicate", true}}));
  }
  if (auto st = message_ids_.record(identity, now_s, MessageIdRecord::answer_key(parsed->conversation_id, parsed->message_id));
      !st) {
    return respond(answer(503, {{"ok", false}, {"error", "cannot record the messageId: " + st.error().message}}));
  }
  ++received_;
  InboundMessage m;
  m.channel = id_;
  m.account_id = settings_.account_id;
  m.sender_id = parsed->sender_id;
  m.sender_name = parsed->sender_name;
  m.chat_id = parsed->conversation_id;
  // A conversation is a thread of its sender: its own session (and queue), whoever sends.
  if (m.chat_id != m.sender_id) m.thread_id = m.chat_id;
  m.message_id = parsed->message_id;
  m.text = std::move(parsed->text);
  m.mentions_bot = true;
  const std::string conversation = m.chat_id;
  // Register the waiter first: a command's reply may be sent before on_inbound returns.
  std::shared_ptr<Waiting> waiter;
  if (settings_.sync) {
    waiter = std::make_shared<Waiting>();
    waiter->respond = respond;
    waiter->identity = identity;
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
    message_ids_.forget(identity);  // refused: a retry is not a duplicate
    return respond(answer(403, {{"ok", false}, {"error", "refused by the channel's access policy"}}));
  }
  if (!settings_.sync) respond(answer(202, {{"ok", true}, {"accepted", true}, {"conversationId", conversation}}));
}

void WebhookChannel::answer_retry(const std::string& identity, net::HttpResponder respond) {
  if (auto stored = message_ids_.reply(identity)) {
    return respond(answer(200, {{"ok", true}, {"duplicate", true}, {"conversationId", stored->conversation_id},
                                {"reply", stored->reply}}));
  }
  // Still being answered (or resumed after a restart): wait for the reply like the request did.
  auto waiter = std::make_shared<Waiting>();
  waiter->respond = std::move(respond);
  waiter->identity = identity;
  std::weak_ptr<Waiting> weak = waiter;
  waiter->timer = loop_.after(settings_.reply_timeout_ms, [this, weak, identity] {
    auto w = weak.lock();
    if (!w) return;
    auto& list = retries_[identity];
    list.erase(std::remove(list.begin(), list.end(), w), list.end());
    if (list.empty()) retries_.erase(identity);
    w->respond(answer(504, {{"ok", false},
                            {"error", "no reply within the timeout; the message is still being answered: retry with the same "
                                      "messageId to get its reply"}}));
  });
  retries_[identity].push_back(waiter);
}

bool WebhookChannel::answer_sync(const OutboundMessage& message) {
  const json reply = {{"ok", true}, {"conversationId", message.chat_id}, {"reply", message.text}};
  // The message this answers, when it had a messageId: its reply is kept for retries.
  const std::string identity =
      message.reply_to.empty() ? "" : message_ids_.awaiting_reply(MessageIdRecord::answer_key(message.chat_id, message.reply_to));
  bool answered = false;
  if (!identity.empty()) {
    if (auto st = message_ids_.store_reply(identity, message.chat_id, message.text); !st) {
      spdlog::warn("webhook[{}]: the reply to message {} in {} is not kept for retries: {}", settings_.account_id,
                   message.reply_to, message.chat_id, st.error().message);
    }
    answered = true;
    if (auto r = retries_.extract(identity)) {
      json dup = reply;
      dup["duplicate"] = true;
      for (auto& w : r.mapped()) {
        loop_.cancel(w->timer);
        w->respond(answer(200, dup));
      }
    }
  }
  auto it = waiting_.find(message.chat_id);
  if (it == waiting_.end() || it->second.empty()) return answered;
  // The request of that message when it still waits, else the conversation's oldest.
  auto& queue = it->second;
  auto pos = identity.empty() ? queue.end()
                              : std::find_if(queue.begin(), queue.end(), [&](const auto& w) { return w->identity == identity; });
  if (pos == queue.end()) pos = queue.begin();
  auto w = *pos;
  queue.erase(pos);
  if (queue.empty()) waiting_.erase(it);
  loop_.cancel(w->timer);
  w->respond(answer(200, reply));
  return true;
}

void WebhookChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (settings_.sync) {
    if (!answer_sync(message)) {
      last_error_ = "a reply for conversation " + message.chat_id + " came after its caller stopped waiting";
      return done(Error{"REJECTED", last_error_});
    }
    ++replied_;
    return done(std::string("http-response"));
  }
  const std::string body = json{{"conversationId", message.chat_id}, {"text", message.text}}.dump();
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = settings_.callback_url;
  // Signed with the callback key, not the inbound secret: a captured callback posted back to the
  // gateway does not verify.
  const std::string ts = std::to_string(SystemClock::instance().wall_ms() / 1000);
  spec.headers = {{"Content-Type", "application/json"},
                  {"X-Pincer-Timestamp", ts},
                  {"X-Pincer-Signature", signature(callback_key_, ts, body)}};
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
