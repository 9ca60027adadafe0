#include "channels/discord/discord_channel.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "agent/skill_command_input.h"
#include "channels/channel_state_file.h"
#include "channels/discord/discord_api.h"
#include "core/clock.h"

namespace pincer::channels::discord {

using nlohmann::json;

namespace detail_discord_channel {

/// Discord's error answer {code, message} (or the HTTP status) as one line.
std::string api_error_text(const RestAnswer& a) {
  if (!a.transport_error.empty()) return a.transport_error;
  std::string why = "HTTP " + std::to_string(a.status);
  if (a.body.is_object() && a.body.contains("message") && a.body["message"].is_string()) {
    why += ": " + a.body["message"].get<std::string>();
    if (a.body.contains("code") && a.body["code"].is_number_integer()) why += " (code " + std::to_string(a.body["code"].get<int64_t>()) + ")";
  }
  return why;
}

/// The error code the delivery layer retries by (channel.h send_text).
Error delivery_error(const RestAnswer& a) {
  const bool transient = a.status == 0 || a.status >= 500;
  return Error{transient ? "UNAVAILABLE" : "REJECTED", "discord: " + api_error_text(a)};
}

}  // namespace detail_discord_channel

using namespace detail_discord_channel;

DiscordChannel::DiscordChannel(EventLoop& loop, DiscordSettings settings)
    : loop_(loop), settings_(std::move(settings)), run_(loop, "discord[" + settings_.account_id + "]", [this] { stop(); }) {
  if (settings_.intents == 0) settings_.intents = kDefaultIntents;
  const auto state = read_channel_state(settings_.state_file, "discord[" + settings_.account_id + "]");
  if (!state) return;  // memory only, a first run, or unreadable (warned)
  const json& s = *state;
  session_.session_id = s.value("sessionId", "");
  session_.resume_url = s.value("resumeUrl", "");
  session_.seq = s.value("seq", int64_t{-1});
  application_id_ = s.value("applicationId", "");
  const json last = s.value("lastMessageIds", json::object());
  for (const auto& [channel, id] : last.items()) {
    if (id.is_string()) last_message_[channel] = id.get<std::string>();
  }
}

DiscordChannel::~DiscordChannel() { stop(); }

ChannelCapabilities DiscordChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Markdown;
  c.unit = delivery::LengthUnit::Utf16;
  c.text_limit = delivery::kDiscordMessageLimit;
  c.groups = true;
  c.typing = true;
  c.edit = true;
  c.reactions = true;
  c.media_out = true;
  c.media_max_bytes = kDiscordMaxUploadBytes;
  c.media_caption_limit = delivery::kDiscordMessageLimit;
  return c;
}

void DiscordChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  stop();
  host_ = &host;
  run_.begin(std::move(on_failed));
  rest_ = std::make_unique<DiscordRest>(loop_, settings_.api_root, settings_.token);
  DiscordCommands::Options command_options{settings_.native_commands, settings_.ephemeral_commands, settings_.account_id};
  if (settings_.native_commands) command_options.skill_commands = agent::skill_commands_of_all_agents();
  commands_ = std::make_unique<DiscordCommands>(*rest_, std::move(command_options),
                                                [] { return SystemClock::instance().wall_ms(); });
  http_ = std::make_unique<net::HttpClient>(loop_);
  std::weak_ptr<bool> alive = run_.token();
  rest_->call("GET", "/gateway/bot", json(), [this, alive](const RestAnswer& a) {
    if (!ChannelRun::live(alive)) return;
    if (a.status == 401) {
      return run_.fail("Discord refused the bot token (GET /gateway/bot: HTTP 401): check " + settings_.config_path + ".token",
                       FailureKind::Permanent);
    }
    if (!a.transport_error.empty()) {
      return run_.fail("cannot reach Discord's API at " + settings_.api_root + ": " + a.transport_error);
    }
    if (a.status == 404) {  // not Discord's API there (a wrong apiRoot): not a token problem
      return run_.fail("GET " + settings_.api_root + "/v10/gateway/bot answered HTTP 404: check " + settings_.config_path +
                       ".apiRoot (Discord's is https://discord.com/api)");
    }
    if (a.status != 200 || !a.body.is_object() || !a.body.contains("url") || !a.body["url"].is_string()) {
      return run_.fail("GET /gateway/bot failed: " + api_error_text(a));
    }
    gateway_ = std::make_unique<DiscordGateway>(loop_, settings_.token, settings_.intents);
    GatewayHandlers h;
    h.on_dispatch = [this](const std::string& type, const json& d, int64_t seq) { on_dispatch(type, d, seq); };
    h.on_session = [this](const GatewaySession& s) {
      session_ = s;
      save_state();
    };
    h.on_fatal = [this](int code, const std::string& why) {
      if (close_refuses_token(code)) return run_.fail(why + ": check " + settings_.config_path + ".token", FailureKind::Permanent);
      run_.fail(why, FailureKind::Transient);
    };
    gateway_->start(a.body["url"].get<std::string>(), session_, std::move(h));
  });
}

void DiscordChannel::stop() {
  run_.end();
  if (gateway_) gateway_->stop();
  gateway_.reset();
  rest_.reset();
  commands_.reset();
  http_.reset();
  inbound_.clear();  // not acknowledged in the saved seq: replayed by the next resume
  fetching_ = false;
}

void DiscordChannel::on_dispatch(const std::string& type, const json& d, int64_t seq) {
  if (type == "READY") {
    const json user = d.value("user", json::object());
    bot_user_id_ = user.is_object() ? user.value("id", "") : "";
    bot_username_ = user.is_object() ? user.value("username", "") : "";
    run_.clear_last_error();
    spdlog::info("discord[{}]: connected as {} ({})", settings_.account_id, bot_username_, bot_user_id_);
    const json app = d.value("application", json::object());
    if (app.is_object() && app.contains("id") && app["id"].is_string()) application_id_ = app["id"].get<std::string>();
    if (commands_) commands_->on_ready(application_id_);
    return;
  }
  if (type == "RESUMED") return commands_on_resume();
  if (type == "INTERACTION_CREATE") {
    if (commands_) {
      commands_->on_interaction(d, [this](InboundMessage m) {
        if (auto t = thread_parent_.find(m.chat_id); t != thread_parent_.end()) m.parent_chat_id = t->second;
        ++messages_seen_;
        return host_ ? host_->on_inbound(std::move(m)) : InboundOutcome::Dropped;
      });
    }
    return;
  }
  for (auto& [thread, parent] : announced_threads(type, d)) {
    if (thread_parent_.size() < 100'000) thread_parent_[thread] = parent;
  }
  if (type == "THREAD_DELETE" && d.is_object()) thread_parent_.erase(d.value("id", ""));
  if (type != "MESSAGE_CREATE") return;
  auto m = parse_message_create(d, settings_.account_id, bot_user_id_);
  if (!m) return;
  if (auto t = thread_parent_.find(m->chat_id); t != thread_parent_.end()) m->parent_chat_id = t->second;
  // Handled before a restart (a replay of a resumed session): not again.
  if (auto it = last_message_.find(m->chat_id); it != last_message_.end() && !snowflake_less(it->second, m->message_id)) {
    ++replays_ignored_;
    spdlog::debug("discord[{}]: message {} already handled", settings_.account_id, m->message_id);
    return;
  }
  for (const auto& p : inbound_) {
    if (p.message.message_id == m->message_id) return;  // replayed while still waiting
  }
  ++messages_seen_;
  inbound_.push_back({std::move(*m), message_files(d), seq});
  pump_inbound();
}

void DiscordChannel::pump_inbound() {
  std::weak_ptr<bool> alive = run_.token();
  while (!inbound_.empty() && !fetching_) {
    if (!inbound_.front().files.empty()) return fetch_next_file();
    PendingInbound p = std::move(inbound_.front());
    inbound_.pop_front();
    const std::string chat = p.message.chat_id, message_id = p.message.message_id;
    const InboundOutcome outcome = host_ ? host_->on_inbound(std::move(p.message)) : InboundOutcome::Dropped;
    if (!ChannelRun::live(alive)) return;
    last_message_[chat] = message_id;
    save_state();
    if (outcome == InboundOutcome::Accepted && !settings_.ack_reaction.empty()) {
      react(chat, message_id, settings_.ack_reaction, false, [account = settings_.account_id](Status st) {
        if (!st) spdlog::warn("discord[{}]: reaction failed: {}", account, st.error().message);
      });
    }
  }
}

void DiscordChannel::commands_on_resume() {
  if (!commands_ || !commands_->application_id().empty()) return;  // a reconnect of this process
  if (!application_id_.empty()) return commands_->on_ready(application_id_);
  rest_->call("GET", "/applications/@me", json(), [this](const RestAnswer& a) {
    const std::string id = a.status == 200 && a.body.is_object() ? a.body.value("id", "") : "";
    if (id.empty()) {
      spdlog::warn("discord[{}]: GET /applications/@me failed ({}): slash commands wait for the next READY",
                   settings_.account_id, api_error_text(a));
      return;
    }
    application_id_ = id;
    save_state();
    if (commands_) commands_->on_ready(application_id_);
  });
}

void DiscordChannel::save_state() {
  if (settings_.state_file.empty()) return;
  json last = json::object();
  for (const auto& [channel, id] : last_message_) last[channel] = id;
  // A message still waiting (attachments) is not handled yet: a resume must replay it.
  const int64_t seq = inbound_.empty() || inbound_.front().seq < 0 ? session_.seq : std::min(session_.seq, inbound_.front().seq - 1);
  json s = {{"sessionId", session_.session_id}, {"resumeUrl", session_.resume_url}, {"seq", seq},
            {"lastMessageIds", last}};
  if (!application_id_.empty()) s["applicationId"] = application_id_;
  write_channel_state(settings_.state_file, s, "discord[" + settings_.account_id + "]");
}

void DiscordChannel::resolve_target(const std::string& target, std::function<void(Result<std::string>)> done) {
  const DeliveryTarget t = parse_delivery_target(target);
  if (t.id.empty()) return done(Error{"REJECTED", "discord: \"" + target + "\" is not a channel or user id"});
  if (!t.user) return done(t.id);
  if (auto known = dm_channels_.find(t.id); known != dm_channels_.end()) return done(known->second);
  // A DM is a channel of its own, opened (or found) with POST /users/@me/channels.
  rest_->call("POST", "/users/@me/channels", json{{"recipient_id", t.id}},
              [this, user = t.id, done = std::move(done)](const RestAnswer& a) {
                if (a.status / 100 != 2) return done(delivery_error(a));
                const std::string channel = a.body.is_object() ? a.body.value("id", "") : "";
                if (channel.empty()) return done(Error{"UNAVAILABLE", "discord: the opened DM channel has no id"});
                dm_channels_[user] = channel;
                done(channel);
              });
}

void DiscordChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
  const std::string& target = message.thread_id.empty() ? message.chat_id : message.thread_id;
  if (commands_ && commands_->send(message.reply_to, message.text, [this, done](Result<std::string> id) {
        if (id) ++messages_sent_;
        done(std::move(id));
      })) {
    return;
  }
  resolve_target(target,
                 [this, text = message.text, done = std::move(done), life = run_.life()](
                     Result<std::string> channel) mutable {
                   if (life.expired()) return;
                   if (!channel) return done(channel.error());
                   if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
                   rest_->call("POST", "/channels/" + *channel + "/messages", create_message_body(text),
                               [this, done = std::move(done)](const RestAnswer& a) {
                                 if (a.status / 100 != 2) return done(delivery_error(a));
                                 const std::string id = a.body.is_object() ? a.body.value("id", "") : "";
                                 if (id.empty()) return done(Error{"UNAVAILABLE", "discord: the created message has no id"});
                                 ++messages_sent_;
                                 done(id);
                               });
                 });
}

void DiscordChannel::edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                               std::function<void(Status)> done) {
  if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
  if (commands_ && commands_->edit(message_id, text, [this, done](Status st) {
        if (st) ++messages_edited_;
        done(std::move(st));
      })) {
    return;
  }
  const DeliveryTarget t = parse_delivery_target(chat_id);
  auto known = t.user ? dm_channels_.find(t.id) : dm_channels_.end();
  const std::string channel = !t.user ? t.id : known != dm_channels_.end() ? known->second : std::string();
  if (channel.empty()) return done(Error{"REJECTED", "discord: no DM channel of " + chat_id + " to edit in"});
  rest_->call("PATCH", "/channels/" + channel + "/messages/" + message_id, edit_message_body(text),
              [this, done = std::move(done)](const RestAnswer& a) {
                if (a.status / 100 != 2) return done(delivery_error(a));
                ++messages_edited_;
                done(Ok{});
              });
}

void DiscordChannel::send_typing(const std::string& chat_id, const std::string& thread_id) {
  if (!rest_) return;
  resolve_target(thread_id.empty() ? chat_id : thread_id,
                 [this, life = run_.life()](Result<std::string> channel) {
                   if (life.expired() || !channel || !rest_) return;
                   rest_->call("POST", "/channels/" + *channel + "/typing", json(), [](const RestAnswer&) {});
                 });
}

void DiscordChannel::react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
                           std::function<void(Status)> done) {
  if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
  resolve_target(chat_id, [this, life = run_.life(), message_id, emoji, remove,
                           done = std::move(done)](Result<std::string> channel) mutable {
    if (life.expired() || !rest_) return done(Error{"UNAVAILABLE", "discord: not running"});
    if (!channel) return done(channel.error());
    rest_->call(remove ? "DELETE" : "PUT",
                "/channels/" + *channel + "/messages/" + message_id + "/reactions/" + encode_path_segment(emoji) + "/@me",
                json(), [done = std::move(done)](const RestAnswer& a) {
                  if (a.status / 100 != 2) return done(delivery_error(a));
                  done(Ok{});
                });
  });
}

json DiscordChannel::status() const {
  json s = {{"channel", id_},
            {"accountId", settings_.account_id},
            {"mode", "gateway"},
            {"bot", bot_username_},
            {"connected", gateway_ ? gateway_->status().value("connected", false) : false},
            {"messagesSeen", messages_seen_},
            {"messagesSent", messages_sent_},
            {"messagesEdited", messages_edited_},
            {"replaysIgnored", replays_ignored_}};
  if (gateway_) s["gateway"] = gateway_->status();
  if (rest_) s["rest"] = rest_->stats();
  if (commands_) s["commands"] = commands_->status();
  if (!bot_user_id_.empty()) s["botId"] = bot_user_id_;
  run_.add_status(s);
  return s;
}

void DiscordChannel::probe(std::function<void(json)> done) {
  if (!rest_) return done({{"ok", false}, {"error", run_.last_error().empty() ? "not running" : run_.last_error()}});
  const auto started = std::chrono::steady_clock::now();
  rest_->call("GET", "/users/@me", json(), [started, done = std::move(done)](const RestAnswer& a) {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    if (a.status != 200 || !a.body.is_object()) {
      return done({{"ok", false}, {"error", "GET /users/@me failed: " + api_error_text(a)}, {"elapsedMs", elapsed}});
    }
    done({{"ok", true},
          {"bot", {{"id", a.body.value("id", "")}, {"username", a.body.value("username", "")}}},
          {"elapsedMs", elapsed}});
  });
}

}  // namespace pincer::channels::discord
