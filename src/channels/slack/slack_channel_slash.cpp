// SlackChannel's slash commands (slack_channel.h "Slash commands", slack_commands.h).
#include <chrono>

#include <spdlog/spdlog.h>

#include "channels/slack/slack_channel.h"

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

int64_t slack_slash_steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int64_t slack_slash_wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<json> SlackChannel::on_slash(const json& payload) {
  auto c = parse_slash_command(payload);
  if (!c) {
    spdlog::warn("slack[{}]: ignoring a slash command: {}", settings_.account_id, c.error().message);
    return std::nullopt;
  }
  if (!settings_.slash.enabled) {
    spdlog::info("slack[{}]: {} from {} ignored: {}.slashCommand.enabled is false", settings_.account_id, c->command,
                 c->user_id, settings_.config_path);
    return json{{"text", "Slash commands are off for this app: set " + settings_.config_path +
                             ".slashCommand.enabled to true in Pincer's config."}};
  }
  ++slash_commands_;
  InboundMessage m = slash_inbound(*c, settings_.account_id, slash_command_text(*c, settings_.slash), slack_slash_wall_ms());
  if (m.team_id.empty()) m.team_id = team_id_;
  const int64_t now = slack_slash_steady_ms();
  std::erase_if(slash_replies_, [now](const auto& e) { return e.second.expires_ms < now; });
  if (settings_.slash.ephemeral && !c->response_url.empty()) {
    slash_replies_[m.message_id] = SlashReply{c->response_url, c->user_id, now + kResponseUrlLifetimeMs, 0};
  }
  spdlog::debug("slack[{}]: {} from {} in {}", settings_.account_id, c->command, c->user_id, c->channel_id);
  if (host_) host_->on_inbound(std::move(m));  // journaled before it returns
  return std::nullopt;
}

bool SlackChannel::send_slash_reply(const OutboundMessage& message, std::function<void(Result<std::string>)>& done) {
  if (!message.thread_id.empty() || message.reply_to.empty()) return false;
  auto it = slash_replies_.find(message.reply_to);
  if (it == slash_replies_.end()) return false;
  if (slack_slash_steady_ms() > it->second.expires_ms) {
    slash_replies_.erase(it);
    return false;
  }
  if (message.preview) {  // an ephemeral message cannot be edited: the final reply comes whole
    done(std::string());
    return true;
  }
  SlashReply& r = it->second;
  auto sent = [this, done = std::move(done)](const std::string& how, const WebApiAnswer& a, bool ok) {
    if (!ok) return done(delivery_error(how, a));
    ++messages_sent_;
    done(std::string());  // an ephemeral message has no id to edit
  };
  if (r.uses < kResponseUrlUses) {
    ++r.uses;
    api_->call_url(r.response_url, response_url_body(message.text), [sent = std::move(sent)](const WebApiAnswer& a) {
      sent("the slash command's response_url POST", a, a.status == 200);
    });
  } else {
    api_->call("chat.postEphemeral", settings_.bot_token, post_ephemeral_body(message.chat_id, r.user_id, message.text),
               [sent = std::move(sent)](const WebApiAnswer& a) { sent("chat.postEphemeral", a, a.ok()); });
  }
  return true;
}

}  // namespace pincer::channels::slack
