#include "channels/telegram/telegram_channel.h"

#include <sodium.h>

#include <chrono>

#include <spdlog/spdlog.h>

#include "channels/telegram/telegram_api.h"
#include "core/clock.h"
#include "store/atomic_file.h"

namespace pincer::channels::telegram {

using nlohmann::json;

TelegramChannel::TelegramChannel(EventLoop& loop, TelegramSettings settings)
    : loop_(loop),
      settings_(std::move(settings)),
      run_(loop, "telegram[" + settings_.account_id + "]", [this] { stop(); }),
      http_(loop) {
  if (!settings_.offset_file.empty()) {
    if (auto text = store::read_file(settings_.offset_file); text) {
      try {
        offset_ = std::stoll(*text);
      } catch (const std::exception&) {
        spdlog::warn("telegram[{}]: ignoring unreadable offset file {}", settings_.account_id, settings_.offset_file.string());
      }
    }
  }
}

TelegramChannel::~TelegramChannel() { stop(); }

ChannelCapabilities TelegramChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::TelegramHtml;
  c.unit = delivery::LengthUnit::Utf16;
  c.text_limit = delivery::kDefaultTextChunkLimit;  // under Telegram's 4096 after entity parsing
  c.groups = true;
  c.threads = true;
  c.typing = true;
  c.edit = true;
  c.reactions = true;
  c.buttons = true;
  c.media_out = true;
  c.media_max_bytes = kTelegramMaxUploadBytes;
  c.media_caption_limit = 1024;
  c.inbound_debounce_ms = 300;             // OpenClaw's Telegram default quiet window
  c.inbound_debounce_max_wait_ms = 7'500;  // and its bound from the first line
  return c;
}

void TelegramChannel::call(const std::string& method, const json& body, int64_t idle_timeout_ms,
                           std::function<void(int, const json&, const std::string&)> done) {
  call_body(method, "application/json", body.dump(), idle_timeout_ms, std::move(done));
}

void TelegramChannel::call_body(const std::string& method, const std::string& content_type, std::string body,
                                int64_t idle_timeout_ms, std::function<void(int, const json&, const std::string&)> done) {
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = method_url(settings_.api_root, settings_.token, method);
  spec.headers = {{"Content-Type", content_type}};
  spec.body = std::move(body);
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = idle_timeout_ms;
  auto status = std::make_shared<int>(0);
  auto buffer = std::make_shared<std::string>();
  std::weak_ptr<bool> alive = run_.token();
  http_.start(std::move(spec),
              {[status](const net::HttpResponseHead& h) { *status = h.status; },
               [buffer](std::string_view d) {
                 if (buffer->size() < (8u << 20)) buffer->append(d);
               },
               [alive, status, buffer, done = std::move(done)](const std::optional<net::TransportError>& e) {
                 if (!ChannelRun::live(alive)) return;
                 if (e) return done(0, json(), e->what);
                 done(*status, json::parse(*buffer, nullptr, false), "");
               }});
}

void TelegramChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  stop();
  host_ = &host;
  run_.begin(std::move(on_failed));
  poll_failures_ = 0;
  get_me();
}

void TelegramChannel::stop() { run_.end(); }

void TelegramChannel::get_me() {
  call("getMe", json::object(), 15'000, [this](int status, const json& answer, const std::string& transport) {
    if (!transport.empty() || status == 401 || status == 404 || !answer.is_object() || !answer.value("ok", false)) {
      // 401 Unauthorized (404 for a token of the wrong shape): retrying cannot help.
      const bool refused = transport.empty() && (status == 401 || status == 404);
      return run_.fail(!transport.empty() ? transport
                       : refused ? "the bot token was rejected (HTTP " + std::to_string(status) + ")"
                                 : "getMe failed (HTTP " + std::to_string(status) + ")",
                       refused ? FailureKind::Permanent : FailureKind::Transient);
    }
    bot_username_ = answer["result"].value("username", "");
    bot_id_ = answer["result"].value("id", int64_t{0});
    run_.clear_last_error();
    spdlog::info("telegram[{}]: connected as @{}", settings_.account_id, bot_username_);
    sync_command_menu();  // beside the polling, never in its way
    if (!settings_.webhook_url.empty()) return set_webhook();
    // Polling and a webhook exclude each other on Telegram's side: drop any webhook first.
    call("deleteWebhook", json::object(), 15'000, [this](int, const json&, const std::string&) { poll(); });
  });
}

void TelegramChannel::probe(std::function<void(json)> done) {
  if (!run_.running()) return done({{"ok", false}, {"error", run_.last_error().empty() ? "not running" : run_.last_error()}});
  const auto started = std::chrono::steady_clock::now();
  call("getMe", json::object(), 10'000, [started, done = std::move(done)](int status, const json& answer, const std::string& transport) {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    if (!transport.empty()) return done({{"ok", false}, {"error", transport}, {"elapsedMs", elapsed}});
    if (!answer.is_object() || !answer.value("ok", false)) {
      const std::string why = answer.is_object() ? answer.value("description", "") : "";
      return done({{"ok", false}, {"error", "getMe failed (HTTP " + std::to_string(status) + (why.empty() ? "" : ": " + why) + ")"},
                   {"elapsedMs", elapsed}});
    }
    const json& bot = answer["result"];
    done({{"ok", true},
          {"bot", {{"id", bot.value("id", int64_t{0})}, {"username", bot.value("username", "")}}},
          {"elapsedMs", elapsed}});
  });
}

void TelegramChannel::set_webhook() {
  // The secret is required (channel_manager.cpp): Telegram sends it back with every update.
  json body = {{"url", settings_.webhook_url},
               {"allowed_updates", json::array({"message", "callback_query"})},
               {"secret_token", settings_.webhook_secret}};
  call("setWebhook", body, 15'000, [this](int status, const json& answer, const std::string& transport) {
    if (!transport.empty() || !answer.is_object() || !answer.value("ok", false)) {
      return run_.fail("setWebhook failed: " + (!transport.empty()  ? transport
                                                : answer.is_object() ? answer.value("description", "HTTP " + std::to_string(status))
                                                                     : "HTTP " + std::to_string(status)));
    }
    spdlog::info("telegram[{}]: webhook mode, updates arrive at {}", settings_.account_id, settings_.webhook_path);
  });
}

net::HttpRoute TelegramChannel::route() {
  return {settings_.webhook_path, 1 << 20,
          [this](const net::HttpRouteRequest& r, net::HttpResponder respond) { handle_webhook(r, std::move(respond)); }};
}

void TelegramChannel::handle_webhook(const net::HttpRouteRequest& req, net::HttpResponder respond) {
  auto reply = [&](int status, const char* body) { respond({status, "application/json; charset=utf-8", body, {}}); };
  if (req.method != "POST") return reply(405, R"({"ok":false})");
  // Fail closed: without a configured secret no POST is an update.
  auto h = req.headers.find("x-telegram-bot-api-secret-token");
  const std::string& want = settings_.webhook_secret;
  if (want.empty() || h == req.headers.end() || h->second.size() != want.size() ||
      sodium_memcmp(h->second.data(), want.data(), want.size()) != 0) {
    spdlog::warn("telegram[{}]: webhook POST from {} without the right secret token", settings_.account_id, req.remote_address);
    return reply(401, R"({"ok":false})");
  }
  json update = json::parse(req.body, nullptr, false);
  // Telegram retries anything but 2xx: a malformed update is acknowledged and dropped.
  if (!update.is_object() || !run_.running()) return reply(200, R"({"ok":true})");
  auto parsed = parse_updates(json{{"ok", true}, {"result", json::array({update})}}, settings_.account_id, bot_username_, bot_id_);
  if (!parsed) return reply(200, R"({"ok":true})");
  // Photos and documents first (telegram_media.cpp); the answer after the pipeline journaled it.
  auto batch = std::make_shared<std::vector<Update>>(std::move(*parsed));
  fetch_files(batch, 0, [this, batch, respond = std::move(respond)] {
    for (auto& u : *batch) {
      if (!u.message) continue;
      ++updates_seen_;
      if (host_) host_->on_inbound(std::move(*u.message));
    }
    respond({200, "application/json; charset=utf-8", R"({"ok":true})", {}});
  });
}

void TelegramChannel::schedule_poll(int64_t delay_ms) {
  std::weak_ptr<bool> alive = run_.token();
  loop_.after(delay_ms, [this, alive] {
    if (ChannelRun::live(alive)) poll();
  });
}

void TelegramChannel::poll() {
  const int64_t started = SystemClock::instance().steady_ms();
  const int64_t idle = (settings_.poll_timeout_s + 15) * 1000LL;
  call("getUpdates", get_updates_body(offset_, settings_.poll_timeout_s), idle,
       [this, started](int status, const json& answer, const std::string& transport) {
         auto updates = transport.empty() ? parse_updates(answer, settings_.account_id, bot_username_, bot_id_)
                                          : Result<std::vector<Update>>(Error{"UNAVAILABLE", transport});
         if (!updates) {
           if (status == 401) {
             return run_.fail("the bot token was rejected (getUpdates: HTTP 401)",
                              FailureKind::Permanent);
           }
           run_.set_last_error(updates.error().message);
           const int64_t backoff = std::min<int64_t>(30'000, 1000LL << std::min(poll_failures_++, 5));
           spdlog::warn("telegram[{}]: getUpdates failed ({}); retrying in {} ms", settings_.account_id, run_.last_error(), backoff);
           return schedule_poll(backoff);
         }
         if (poll_failures_ > 0) spdlog::info("telegram[{}]: getUpdates works again", settings_.account_id);
         poll_failures_ = 0;
         run_.clear_last_error();  // it works again: status shows no stale error
         if (updates->empty()) {
           // A real Bot API holds the request up to the timeout; an early empty answer means a
           // server that does not long-poll: pace it.
           const bool early = SystemClock::instance().steady_ms() - started < settings_.empty_poll_delay_ms;
           return schedule_poll(early ? settings_.empty_poll_delay_ms : 0);
         }
         // Photos and documents first (telegram_media.cpp), then the batch in order.
         auto batch = std::make_shared<std::vector<Update>>(std::move(*updates));
         fetch_files(batch, 0, [this, batch] { deliver_polled(*batch); });
       });
}

void TelegramChannel::deliver_polled(std::vector<Update>& updates) {
  for (auto& u : updates) offset_ = std::max(offset_, u.update_id + 1);
  for (auto& u : updates) {
    if (!u.message) continue;
    ++updates_seen_;
    if (host_) host_->on_inbound(std::move(*u.message));
  }
  // The offset (the acknowledgement: Telegram forgets what lies before it) is stored after
  // the pipeline journaled the messages (agent/run_journal.h): a crash in between polls
  // them again, and the journal knows them by their message ids, so none is lost or
  // answered twice.
  if (!settings_.offset_file.empty()) {
    if (auto st = store::write_file_atomic(settings_.offset_file, std::to_string(offset_), 0600); !st) {
      spdlog::warn("telegram[{}]: cannot persist offset: {}", settings_.account_id, st.error().message);
    }
  }
  poll();
}

void TelegramChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  send_attempt(message, /*html=*/true, std::move(done));
}

void TelegramChannel::send_attempt(OutboundMessage message, bool html, std::function<void(Result<std::string>)> done) {
  call("sendMessage", send_message_body(message, html), 30'000,
       [this, message, html, done](int status, const json& answer, const std::string& transport) mutable {
         if (!transport.empty()) return done(Error{"UNAVAILABLE", transport});
         if (auto e = parse_error(answer, status)) {
           if (e->parse_entities && html) {
             spdlog::warn("telegram[{}]: HTML rejected ({}); sending as plain text", settings_.account_id, e->description);
             message.text = html_to_plain(message.text);
             return send_attempt(std::move(message), false, std::move(done));
           }
           if (e->code == 429) {
             return done(Error{"RATE_LIMITED", std::to_string(std::max(1, e->retry_after_s))});
           }
           return done(Error{e->code >= 500 ? "UNAVAILABLE" : "REJECTED", e->description});
         }
         ++messages_sent_;
         const json& result = answer.value("result", json::object());
         done(result.contains("message_id") ? result["message_id"].dump() : std::string());
       });
}

void TelegramChannel::edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                                std::function<void(Status)> done) {
  edit_attempt(chat_id, message_id, text, /*html=*/true, std::move(done));
}

void TelegramChannel::edit_attempt(std::string chat_id, std::string message_id, std::string text, bool html,
                                   std::function<void(Status)> done) {
  json body = edit_message_body(chat_id, message_id, text, html);
  call("editMessageText", body, 30'000,
       [this, chat_id = std::move(chat_id), message_id = std::move(message_id), text = std::move(text), html,
        done = std::move(done)](int status, const json& answer, const std::string& transport) mutable {
         if (!transport.empty()) return done(Error{"UNAVAILABLE", transport});
         if (auto e = parse_error(answer, status)) {
           if (e->not_modified) return done(Ok{});
           if (e->parse_entities && html) {
             spdlog::warn("telegram[{}]: HTML rejected in an edit ({}); editing as plain text", settings_.account_id,
                          e->description);
             return edit_attempt(std::move(chat_id), std::move(message_id), html_to_plain(text), false, std::move(done));
           }
           if (e->code == 429) return done(Error{"RATE_LIMITED", std::to_string(std::max(1, e->retry_after_s))});
           return done(Error{e->code >= 500 ? "UNAVAILABLE" : "REJECTED", e->description});
         }
         ++messages_edited_;
         done(Ok{});
       });
}

void TelegramChannel::react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
                            std::function<void(Status)> done) {
  json reaction = json::array();
  if (!remove) reaction.push_back({{"type", "emoji"}, {"emoji", emoji}});
  call("setMessageReaction", {{"chat_id", chat_id}, {"message_id", message_id_value(message_id)}, {"reaction", reaction}}, 15'000,
       [done = std::move(done)](int status, const json& answer, const std::string& transport) {
         if (!transport.empty()) return done(Error{"UNAVAILABLE", transport});
         if (auto e = parse_error(answer, status)) {
           if (e->code == 429) return done(Error{"RATE_LIMITED", std::to_string(std::max(1, e->retry_after_s))});
           return done(Error{e->code >= 500 ? "UNAVAILABLE" : "REJECTED", e->description});
         }
         done(Ok{});
       });
}

void TelegramChannel::send_typing(const std::string& chat_id, const std::string& thread_id) {
  json body = {{"chat_id", chat_id}, {"action", "typing"}};
  if (!thread_id.empty()) body["message_thread_id"] = thread_id;
  call("sendChatAction", body, 15'000, [](int, const json&, const std::string&) {});  // best effort
}

void TelegramChannel::answer_callback(const std::string& callback_id, const std::string& text) {
  json body = {{"callback_query_id", callback_id}};
  if (!text.empty()) body["text"] = text;
  call("answerCallbackQuery", body, 15'000, [this](int status, const json& answer, const std::string& transport) {
    if (!transport.empty() || parse_error(answer, status)) {
      spdlog::warn("telegram[{}]: answerCallbackQuery failed: {}", settings_.account_id,
                   !transport.empty() ? transport : parse_error(answer, status)->description);
    }
  });
}

json TelegramChannel::status() const {
  json s = {{"channel", id_}, {"accountId", settings_.account_id},
            {"mode", settings_.webhook_url.empty() ? "polling" : "webhook"},
            {"bot", bot_username_}, {"offset", offset_}, {"updatesSeen", updates_seen_}, {"messagesSent", messages_sent_},
            {"messagesEdited", messages_edited_},
            {"commands", {{"native", settings_.native_commands}, {"menu", command_menu_}}}};
  run_.add_status(s);
  return s;
}

}  // namespace pincer::channels::telegram
