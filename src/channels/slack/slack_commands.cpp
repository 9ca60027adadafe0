#include "channels/slack/slack_commands.h"

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

std::string slash_field(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string slash_trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

Result<SlashCommand> parse_slash_command(const json& payload) {
  if (!payload.is_object()) return Error{"INVALID_REQUEST", "slack: a slash command payload must be an object"};
  SlashCommand c;
  c.command = slash_field(payload, "command");
  c.text = slash_field(payload, "text");
  c.user_id = slash_field(payload, "user_id");
  c.user_name = slash_field(payload, "user_name");
  c.channel_id = slash_field(payload, "channel_id");
  c.channel_name = slash_field(payload, "channel_name");
  c.team_id = slash_field(payload, "team_id");
  c.response_url = slash_field(payload, "response_url");
  c.trigger_id = slash_field(payload, "trigger_id");
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"command", &c.command},
                                    {"user_id", &c.user_id},
                                    {"channel_id", &c.channel_id},
                                    {"trigger_id", &c.trigger_id}}) {
    if (value->empty()) return Error{"INVALID_REQUEST", std::string("slack: a slash command without ") + name};
  }
  if (c.command.front() != '/') c.command.insert(0, "/");
  return c;
}

std::string slash_command_text(const SlashCommand& c, const SlashCommandSettings& settings) {
  if (c.command == "/" + settings.name) {
    std::string text = slash_trim(c.text);
    return text.empty() ? "/help" : text;
  }
  return slash_trim(c.command + " " + c.text);
}

InboundMessage slash_inbound(const SlashCommand& c, const std::string& account_id, std::string text, int64_t now_ms) {
  InboundMessage m;
  m.channel = "slack";
  m.account_id = account_id;
  m.chat_id = c.channel_id;
  const char kind = c.channel_id.front();
  m.is_group = kind != 'D';
  m.channel_peer = m.is_group && !(kind == 'G' && c.channel_name.rfind("mpdm-", 0) == 0);
  m.team_id = c.team_id;
  m.sender_id = c.user_id;
  m.sender_username = c.user_name;
  m.sender_name = c.user_name;
  m.message_id = "slash:" + c.trigger_id;
  m.text = std::move(text);
  m.mentions_bot = true;
  m.ts_ms = now_ms;
  return m;
}

json response_url_body(const std::string& text) {
  return json{{"response_type", "ephemeral"}, {"text", text}};
}

json post_ephemeral_body(const std::string& channel, const std::string& user, const std::string& text) {
  return json{{"channel", channel}, {"user", user}, {"text", text}};
}

}  // namespace pincer::channels::slack
