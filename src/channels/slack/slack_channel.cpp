#include "channels/slack/slack_channel.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "channels/channel_state_file.h"
#include "channels/slack/slack_files.h"
#include "channels/slack/slack_reactions.h"

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

/// Web API errors saying Slack refuses the token itself: the account cannot run until it changes.
bool slack_channel_token_refused(const std::string& e) {
  return e == "invalid_auth" || e == "not_authed" || e == "account_inactive" || e == "token_revoked" ||
         e == "not_allowed_token_type";
}

/// Web API errors after which the account cannot run until its settings change.
bool slack_channel_fatal_error(const std::string& e) {
  return slack_channel_token_refused(e) || e == "missing_scope" || e == "team_access_not_granted";
}

}  // namespace

SlackChannel::SlackChannel(EventLoop& loop, SlackSettings settings)
    : loop_(loop), settings_(std::move(settings)), run_(loop, "slack[" + settings_.account_id + "]", [this] { stop(); }) {
  const auto state = read_channel_state(settings_.state_file, "slack[" + settings_.account_id + "]");
  if (!state) return;  // memory only, a first run, or unreadable (warned)
  const json& s = *state;
  const json handled = s.value("handled", json::object());  // kept: items() refers to it
  for (const auto& [conversation, list] : handled.items()) {
    if (!list.is_array()) continue;
    for (const auto& ts : list) {
      if (ts.is_string()) remember_handled(conversation, ts.get<std::string>());
    }
  }
}

SlackChannel::~SlackChannel() { stop(); }

ChannelCapabilities SlackChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::SlackMrkdwn;
  c.unit = delivery::LengthUnit::Utf16;
  c.text_limit = kSlackMessageLimit;
  c.groups = true;
  c.threads = true;
  c.edit = true;
  c.reactions = true;
  c.media_out = true;
  c.media_max_bytes = kSlackMediaMaxBytes;
  c.media_caption_limit = kSlackMessageLimit;  // the initial_comment is a message of its own
  return c;
}

void SlackChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  stop();
  host_ = &host;
  run_.begin(std::move(on_failed));
  api_ = std::make_unique<SlackWebApi>(loop_, settings_.api_root);
  http_ = std::make_unique<net::HttpClient>(loop_);
  std::weak_ptr<bool> alive = run_.token();
  api_->call("auth.test", settings_.bot_token, json::object(), [this, alive](const WebApiAnswer& a) {
    if (!ChannelRun::live(alive)) return;
    if (!a.ok() && slack_channel_token_refused(a.error())) {
      return run_.fail("Slack refused the bot token (" + a.error() + "): check " + settings_.config_path + ".botToken",
                       FailureKind::Permanent);
    }
    if (!a.transport_error.empty()) {  // not the token's fault: said so (restarted with backoff)
      return run_.fail("cannot reach the Slack Web API at " + settings_.api_root + ": " + a.transport_error);
    }
    if (a.status == 404) {  // not a Slack Web API there (a wrong apiRoot)
      return run_.fail("POST " + settings_.api_root + "/auth.test answered HTTP 404: check " + settings_.config_path +
                       ".apiRoot (Slack's is https://slack.com/api)");
    }
    if (!a.ok()) return run_.fail("auth.test with the bot token failed: " + a.error());  // restarted with backoff
    bot_user_id_ = a.body.value("user_id", "");
    bot_name_ = a.body.value("user", "");
    team_id_ = a.body.value("team_id", "");
    spdlog::info("slack[{}]: bot {} ({}) in team {}", settings_.account_id, bot_name_, bot_user_id_, team_id_);
    if (!settings_.http_mode) return open_connection();
    connected_ = true;  // Slack POSTs to the Request URL from now on
    spdlog::info("slack[{}]: connected (HTTP Events API at {})", settings_.account_id, settings_.webhook_path);
  });
}

void SlackChannel::stop() {
  run_.end();
  if (reconnect_timer_) loop_.cancel(*reconnect_timer_);
  reconnect_timer_.reset();
  ws_.reset();  // no callback afterwards
  api_.reset();
  http_.reset();
  inbound_.clear();
  fetching_ = false;
  connected_ = false;
}

void SlackChannel::open_connection() {
  std::weak_ptr<bool> alive = run_.token();
  api_->call("apps.connections.open", settings_.app_token, json::object(), [this, alive](const WebApiAnswer& a) {
    if (!ChannelRun::live(alive)) return;
    if (!a.ok()) {
      if (slack_channel_token_refused(a.error())) {
        return run_.fail("Slack refused the app token (" + a.error() + "): check " + settings_.config_path + ".appToken",
                         FailureKind::Permanent);
      }
      if (slack_channel_fatal_error(a.error())) {
        return run_.fail("apps.connections.open with the app token failed (" + a.error() + "): check " + settings_.config_path +
                    ".appToken (an app-level token with connections:write)");
      }
      return reconnect("apps.connections.open failed: " + a.error());
    }
    const std::string url = a.body.value("url", "");
    if (url.empty()) return reconnect("apps.connections.open gave no url");
    ws_ = std::make_unique<discord::WebSocketClient>(loop_);
    discord::WebSocketHandlers h;
    h.on_open = [this] { spdlog::debug("slack[{}]: Socket Mode connection open", settings_.account_id); };
    h.on_message = [this](std::string text) { on_frame(text); };
    h.on_close = [this](int code, std::string reason) {
      reconnect("the Socket Mode connection closed (" + std::to_string(code) + (reason.empty() ? "" : ": " + reason) + ")");
    };
    ws_->connect(url, 15'000, std::move(h));
  });
}

void SlackChannel::reconnect(const std::string& why) {
  if (!run_.running() || reconnect_timer_) return;
  connected_ = false;
  run_.set_last_error(why);
  ++reconnects_;
  const int64_t delay = std::min<int64_t>(30'000, int64_t{1000} << std::min(failures_, 5));
  ++failures_;
  spdlog::warn("slack[{}]: {}; reconnecting in {} ms", settings_.account_id, why, delay);
  std::weak_ptr<bool> alive = run_.token();
  reconnect_timer_ = loop_.after(delay, [this, alive] {
    if (!ChannelRun::live(alive)) return;
    reconnect_timer_.reset();
    ws_.reset();
    open_connection();
  });
}

void SlackChannel::on_frame(const std::string& text) {
  const SocketEnvelope e = parse_socket_envelope(text);
  switch (e.kind) {
    case SocketEnvelope::Kind::Hello:
      connected_ = true;
      failures_ = 0;
      run_.clear_last_error();
      spdlog::info("slack[{}]: connected (Socket Mode)", settings_.account_id);
      return;
    case SocketEnvelope::Kind::Disconnect: {
      spdlog::info("slack[{}]: Slack asks to reconnect ({})", settings_.account_id, e.reason);
      connected_ = false;
      ws_->close(1000);  // no callback afterwards; a fresh URL at once (not from inside its callback)
      std::weak_ptr<bool> alive = run_.token();
      loop_.post([this, alive] {
        if (!ChannelRun::live(alive) || reconnect_timer_) return;
        ws_.reset();
        open_connection();
      });
      return;
    }
    case SocketEnvelope::Kind::EventsApi: on_event(e.payload); break;
    case SocketEnvelope::Kind::SlashCommands: {
      std::weak_ptr<bool> alive = run_.token();
      const auto ack = on_slash(e.payload);
      if (!ChannelRun::live(alive)) return;
      if (ack && ws_ && !e.envelope_id.empty()) return ws_->send(json{{"envelope_id", e.envelope_id}, {"payload", *ack}}.dump());
      break;
    }
    case SocketEnvelope::Kind::Other: break;  // interactivity: not handled
    case SocketEnvelope::Kind::Invalid:
      spdlog::warn("slack[{}]: ignoring a Socket Mode frame that is not a JSON envelope", settings_.account_id);
      return;
  }
  if (!e.envelope_id.empty() && ws_) ws_->send(envelope_ack(e.envelope_id));
}

void SlackChannel::on_event(const json& payload) {
  auto m = parse_message_event(payload, settings_.account_id, bot_user_id_);
  if (!m) return;
  if (m->team_id.empty()) m->team_id = team_id_;
  // Handled already: before a restart, or the other event of a mention's message + app_mention pair.
  if (already_handled(m->chat_id, m->message_id) || waiting_inbound(m->chat_id, m->message_id)) {
    ++replays_ignored_;
    spdlog::debug("slack[{}]: message {} in {} already handled", settings_.account_id, m->message_id, m->chat_id);
    return;
  }
  ++messages_seen_;
  inbound_.push_back({std::move(*m), message_files(payload)});
  pump_inbound();
}

bool SlackChannel::already_handled(const std::string& conversation, const std::string& ts) const {
  auto it = handled_.find(conversation);
  if (it == handled_.end() || it->second.empty()) return false;
  const auto& list = it->second;
  if (std::find(list.begin(), list.end(), ts) != list.end()) return true;
  // Older than everything still remembered of a full list: it cannot be told apart, treat it as handled.
  return list.size() >= kHandledPerConversation && slack_ts_less(ts, list.front());
}

void SlackChannel::remember_handled(const std::string& conversation, const std::string& ts) {
  auto& list = handled_[conversation];
  list.insert(std::upper_bound(list.begin(), list.end(), ts, slack_ts_less), ts);
  while (list.size() > kHandledPerConversation) list.pop_front();
}

void SlackChannel::save_state() {
  if (settings_.state_file.empty()) return;
  json last = json::object();
  for (const auto& [conversation, list] : handled_) last[conversation] = json(std::vector<std::string>(list.begin(), list.end()));
  write_channel_state(settings_.state_file, json{{"handled", last}}, "slack[" + settings_.account_id + "]");
}

void SlackChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (!api_) return done(Error{"UNAVAILABLE", "slack[" + settings_.account_id + "]: not running"});
  if (send_slash_reply(message, done)) return;
  api_->call("chat.postMessage", settings_.bot_token, post_message_body(message.chat_id, message.text, message.thread_id),
             [this, to = message.chat_id, done = std::move(done)](const WebApiAnswer& a) {
               if (!a.ok()) return done(delivery_error("chat.postMessage", a));
               const std::string ts = a.body.value("ts", "");
               if (ts.empty()) return done(Error{"UNAVAILABLE", "slack: chat.postMessage answered without a ts"});
               const std::string channel = a.body.value("channel", "");
               if (!channel.empty() && channel != to) dm_channels_[to] = channel;  // a user id: their DM
               ++messages_sent_;
               done(ts);
             });
}

void SlackChannel::edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                             std::function<void(Status)> done) {
  if (!api_) return done(Error{"UNAVAILABLE", "slack[" + settings_.account_id + "]: not running"});
  auto dm = dm_channels_.find(chat_id);
  const std::string channel = dm != dm_channels_.end() ? dm->second : chat_id;
  api_->call("chat.update", settings_.bot_token, update_message_body(channel, message_id, text),
             [this, done = std::move(done)](const WebApiAnswer& a) {
               if (!a.ok()) return done(delivery_error("chat.update", a));
               ++messages_edited_;
               done(Ok{});
             });
}

void SlackChannel::react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
                         std::function<void(Status)> done) {
  if (!api_) return done(Error{"UNAVAILABLE", "slack[" + settings_.account_id + "]: not running"});
  auto name = slack_reaction_name(emoji);
  if (!name) return done(name.error());
  auto dm = dm_channels_.find(chat_id);
  const std::string channel = dm != dm_channels_.end() ? dm->second : chat_id;
  const std::string method = remove ? "reactions.remove" : "reactions.add";
  api_->call(method, settings_.bot_token, reaction_body(channel, message_id, *name),
             [this, method, remove, done = std::move(done)](const WebApiAnswer& a) {
               // Already as asked: the reaction is there (adding) or is not (removing).
               const bool as_asked = a.status == 200 && (a.error() == (remove ? "no_reaction" : "already_reacted"));
               if (!a.ok() && !as_asked) return done(delivery_error(method, a));
               ++reactions_;
               done(Ok{});
             });
}

json SlackChannel::status() const {
  json s = {{"channel", id_},
            {"accountId", settings_.account_id},
            {"mode", settings_.http_mode ? "http" : "socket"},
            {"bot", bot_name_},
            {"connected", connected_},
            {"messagesSeen", messages_seen_},
            {"messagesSent", messages_sent_},
            {"messagesEdited", messages_edited_},
            {"reactions", reactions_},
            {"filesSent", files_sent_},
            {"slashCommands", slash_commands_},
            {"replaysIgnored", replays_ignored_},
            {"reconnects", reconnects_}};
  if (api_) s["webApi"] = api_->stats();
  if (settings_.http_mode) {
    s["http"] = {{"path", settings_.webhook_path}, {"requests", http_requests_}, {"refused", http_refused_}, {"retries", http_retries_}};
  }
  if (!bot_user_id_.empty()) s["botId"] = bot_user_id_;
  if (!team_id_.empty()) s["teamId"] = team_id_;
  run_.add_status(s);
  return s;
}

void SlackChannel::probe(std::function<void(json)> done) {
  if (!api_) return done({{"ok", false}, {"error", run_.last_error().empty() ? "not running" : run_.last_error()}});
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed_ms = [started] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  };
  std::weak_ptr<bool> alive = run_.token();
  api_->call("auth.test", settings_.bot_token, json::object(), [this, alive, elapsed_ms, done = std::move(done)](const WebApiAnswer& a) {
    if (!a.ok()) return done({{"ok", false}, {"error", "auth.test failed: " + a.error()}, {"elapsedMs", elapsed_ms()}});
    json result = {{"ok", true},
                   {"bot", {{"id", a.body.value("user_id", "")}, {"username", a.body.value("user", "")}}},
                   {"teamId", a.body.value("team_id", "")}};
    if (settings_.http_mode || !ChannelRun::live(alive) || !api_) {  // HTTP mode has no app token
      result["elapsedMs"] = elapsed_ms();
      return done(std::move(result));
    }
    // Socket Mode needs the app token too: the bot token can be fine while no connection opens.
    // (apps.connections.open only hands out a URL; the one not used expires.)
    api_->call("apps.connections.open", settings_.app_token, json::object(),
               [this, elapsed_ms, result = std::move(result), done = std::move(done)](const WebApiAnswer& o) mutable {
                 result["elapsedMs"] = elapsed_ms();
                 if (!o.ok()) {
                   result["ok"] = false;
                   result["error"] = "apps.connections.open failed (" + o.error() + "): Socket Mode cannot connect; check " +
                                     settings_.config_path + ".appToken";
                 }
                 done(std::move(result));
               });
  });
}

}  // namespace pincer::channels::slack
