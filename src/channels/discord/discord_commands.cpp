#include "channels/discord/discord_commands.h"

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

#include "agent/chat_commands.h"
#include "channels/discord/discord_api.h"

namespace pincer::channels::discord {

using nlohmann::json;

namespace detail_discord_commands {

constexpr int kInteractionApplicationCommand = 2;
constexpr int kCommandChatInput = 1;
constexpr int kOptionString = 3;
constexpr int kCallbackDeferredMessage = 5;
constexpr int kFlagEphemeral = 64;
constexpr std::size_t kDescriptionLimit = 100;  ///< Discord's limit, characters
constexpr std::size_t kApplicationCommandLimit = 100;  ///< Discord's global CHAT_INPUT commands per application

std::string commands_str(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return "";
  const json& v = o[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return "";
}

/// `text` cut to at most `limit` bytes on a UTF-8 character boundary (bytes ≥ characters).
std::string commands_cut(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

/// The option name a command's usage suggests: "LEVEL" → "level", "[NAME[@PROFILE]]" → "name";
/// a usage with alternatives ("[status|on|off]") → "args".
std::string commands_option_name(const std::string& usage) {
  if (usage.find('|') != std::string::npos) return "args";
  std::string name;
  for (char c : usage) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!name.empty()) break;
  }
  return name.empty() ? "args" : commands_cut(name, 32);
}

json commands_string_option(const std::string& name, const std::string& description, bool required) {
  return {{"type", kOptionString}, {"name", name}, {"description", commands_cut(description, kDescriptionLimit)},
          {"required", required}};
}

/// A command (or option) reduced to what Pincer sets, for comparison with what Discord returns.
json commands_normal_form(const json& c) {
  json out = {{"name", commands_str(c, "name")},
              {"type", c.is_object() ? c.value("type", kCommandChatInput) : kCommandChatInput},
              {"description", commands_str(c, "description")}};
  json options = json::array();
  if (c.is_object() && c.contains("options") && c["options"].is_array()) {
    for (const auto& o : c["options"]) {
      options.push_back({{"name", commands_str(o, "name")},
                         {"type", o.is_object() ? o.value("type", 0) : 0},
                         {"description", commands_str(o, "description")},
                         {"required", o.is_object() ? o.value("required", false) : false}});
    }
  }
  out["options"] = std::move(options);
  return out;
}

Error commands_delivery_error(const RestAnswer& a) {
  std::string why = a.transport_error.empty() ? "HTTP " + std::to_string(a.status) : a.transport_error;
  if (a.body.is_object() && a.body.contains("message") && a.body["message"].is_string()) {
    why += ": " + a.body["message"].get<std::string>();
  }
  const bool transient = a.status == 0 || a.status >= 500;
  return Error{transient ? "UNAVAILABLE" : "REJECTED", "discord interaction: " + why};
}

json commands_message_body(const std::string& content) {
  return {{"content", content}, {"allowed_mentions", {{"parse", json::array({"users"})}}}};
}

}  // namespace detail_discord_commands

using namespace detail_discord_commands;

json native_command_set(bool enabled, const std::vector<skills::SkillCommand>& skill_commands) {
  json set = json::array();
  if (!enabled) return set;
  for (const auto& c : agent::chat_commands()) {
    if (c.terminal_only || c.name.empty() || c.name.size() > 32) continue;
    json cmd = {{"type", kCommandChatInput}, {"name", c.name}, {"description", commands_cut(c.help, kDescriptionLimit)}};
    json options = json::array();
    if (!c.args.empty()) options.push_back(commands_string_option(commands_option_name(c.args), c.args, c.args[0] != '['));
    cmd["options"] = std::move(options);
    set.push_back(std::move(cmd));
  }
  set.push_back({{"type", kCommandChatInput},
                 {"name", "dock"},
                 {"description", "move this conversation's replies to your linked account on another channel"},
                 {"options", json::array({commands_string_option("channel", "the channel to move to (e.g. telegram)", true)})}});
  set.push_back({{"type", kCommandChatInput},
                 {"name", "ask"},
                 {"description", "send a message to the agent"},
                 {"options", json::array({commands_string_option("message", "what to tell the agent", true)})}});
  std::size_t left_out = 0;
  for (const auto& c : skill_commands) {  // the session's agent resolves it (agent/skill_command_input.h)
    if (set.size() >= kApplicationCommandLimit) {
      ++left_out;
      continue;
    }
    set.push_back({{"type", kCommandChatInput},
                   {"name", c.name},
                   {"description", commands_cut(c.description, kDescriptionLimit)},
                   {"options", json::array({commands_string_option("input", "what the skill should work on", false)})}});
  }
  if (left_out > 0) {
    spdlog::warn("discord: {} skill command(s) not registered: Discord allows {} commands per application (they still work "
                 "typed as /name or /skill NAME)", left_out, kApplicationCommandLimit);
  }
  std::sort(set.begin(), set.end(), [](const json& a, const json& b) { return a["name"] < b["name"]; });
  return set;
}

bool command_sets_match(const json& registered, const json& wanted) {
  if (!registered.is_array() || !wanted.is_array() || registered.size() != wanted.size()) return false;
  auto normal = [](const json& list) {
    std::vector<json> out;
    for (const auto& c : list) out.push_back(commands_normal_form(c));
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["name"] < b["name"]; });
    return out;
  };
  return normal(registered) == normal(wanted);
}

std::optional<CommandInteraction> parse_command_interaction(const json& d, const std::string& account_id) {
  if (!d.is_object() || d.value("type", 0) != kInteractionApplicationCommand) return std::nullopt;
  const json data = d.value("data", json::object());
  if (!data.is_object() || data.value("type", kCommandChatInput) != kCommandChatInput) return std::nullopt;
  CommandInteraction out;
  out.id = commands_str(d, "id");
  out.token = commands_str(d, "token");
  InboundMessage& m = out.message;
  m.channel = "discord";
  m.account_id = account_id;
  m.chat_id = commands_str(d, "channel_id");
  if (m.chat_id.empty()) m.chat_id = commands_str(d.value("channel", json::object()), "id");
  m.guild_id = commands_str(d, "guild_id");
  const json member = d.value("member", json::object());
  json user = member.is_object() && member.contains("user") ? member["user"] : d.value("user", json::object());
  if (!user.is_object() || user.value("bot", false)) return std::nullopt;
  m.sender_id = commands_str(user, "id");
  const std::string name = commands_str(data, "name");
  if (out.id.empty() || out.token.empty() || m.chat_id.empty() || m.sender_id.empty() || name.empty()) return std::nullopt;
  if (member.is_object() && member.contains("roles") && member["roles"].is_array()) {
    for (const auto& r : member["roles"]) {
      if (r.is_string()) m.sender_roles.push_back(r.get<std::string>());
    }
  }
  m.sender_name = member.is_object() ? commands_str(member, "nick") : "";
  if (m.sender_name.empty()) m.sender_name = commands_str(user, "global_name");
  if (m.sender_name.empty()) m.sender_name = commands_str(user, "username");
  m.is_group = !m.guild_id.empty();
  m.channel_peer = m.is_group;
  m.mentions_bot = true;
  m.message_id = out.id;
  m.ts_ms = snowflake_ms(out.id);
  std::string args;
  if (data.contains("options") && data["options"].is_array()) {
    for (const auto& o : data["options"]) {
      const std::string v = commands_str(o, "value");
      if (!v.empty()) args += (args.empty() ? "" : " ") + v;
    }
  }
  if (name == "ask") {
    m.text = args;
  } else if (name == "dock") {
    m.text = "/dock_" + args;
  } else {
    m.text = "/" + name + (args.empty() ? "" : " " + args);
  }
  if (m.text.empty()) return std::nullopt;
  return out;
}

DiscordCommands::DiscordCommands(DiscordRest& rest, Options options, std::function<int64_t()> now_ms)
    : rest_(rest), options_(std::move(options)), now_ms_(std::move(now_ms)) {}

void DiscordCommands::on_ready(const std::string& application_id) {
  application_id_ = application_id;
  if (application_id_.empty()) {
    registration_ = "failed: READY named no application id";
    return;
  }
  const std::string path = "/applications/" + application_id_ + "/commands";
  const json wanted = native_command_set(options_.native, options_.skill_commands);
  rest_.call("GET", path, json(), [this, path, wanted](const RestAnswer& got) {
    if (got.status / 100 == 2 && command_sets_match(got.body, wanted)) {
      registration_ = "unchanged";
      spdlog::info("discord[{}]: the {} slash commands are registered already", options_.account_id, wanted.size());
      return;
    }
    rest_.call("PUT", path, wanted, [this, count = wanted.size()](const RestAnswer& a) {
      if (a.status / 100 == 2) {
        registration_ = "updated";
        spdlog::info("discord[{}]: {} slash commands registered", options_.account_id, count);
        return;
      }
      registration_ = "failed: " + commands_delivery_error(a).message;
      spdlog::warn("discord[{}]: registering the slash commands failed: {}", options_.account_id, registration_);
    });
  });
}

std::string DiscordCommands::webhook_path(const std::string& token) const {
  return "/webhooks/" + application_id_ + "/" + token;
}

void DiscordCommands::forget_expired() {
  // A margin before Discord's 15 minutes: a request sent just before expiry must still land.
  const int64_t oldest = now_ms_() - (kInteractionTokenLifeMs - 60'000);
  std::erase_if(live_, [oldest](const auto& e) { return e.second.created_ms < oldest; });
  std::erase_if(messages_, [oldest](const auto& e) { return e.second.second < oldest; });
}

void DiscordCommands::on_interaction(const json& d, std::function<InboundOutcome(InboundMessage)> hand_on) {
  auto parsed = parse_command_interaction(d, options_.account_id);
  if (!parsed) return;
  ++interactions_;
  json data = json::object();
  if (options_.ephemeral) data["flags"] = kFlagEphemeral;
  const std::string callback = "/interactions/" + parsed->id + "/" + parsed->token + "/callback";
  rest_.call("POST", callback, json{{"type", kCallbackDeferredMessage}, {"data", data}},
             [this, p = std::move(*parsed), hand_on = std::move(hand_on)](const RestAnswer& a) mutable {
               if (a.status / 100 != 2) {  // a replay after a resume (already acknowledged) or expired
                 spdlog::warn("discord[{}]: interaction {} not answered ({}); not run", options_.account_id, p.id,
                              commands_delivery_error(a).message);
                 return;
               }
               if (application_id_.empty()) return;
               forget_expired();
               const std::string id = p.id, token = p.token;
               live_[id] = Live{token, now_ms_(), false};
               const InboundOutcome outcome = hand_on(std::move(p.message));
               auto it = live_.find(id);
               if (it == live_.end() || it->second.original_claimed) return;
               if (outcome == InboundOutcome::Accepted) return;
               live_.erase(it);
               const std::string original = webhook_path(token) + "/messages/@original";
               if (outcome == InboundOutcome::Duplicate) {
                 rest_.call("DELETE", original, json(), [](const RestAnswer&) {});
                 return;
               }
               rest_.call("PATCH", original, commands_message_body("🚫 You are not allowed to use commands here."),
                          [](const RestAnswer&) {});
             });
}

std::optional<DiscordCommands::Route> DiscordCommands::route_reply(const std::string& reply_to, json& body) {
  if (reply_to.empty()) return std::nullopt;
  forget_expired();
  auto it = live_.find(reply_to);
  if (it == live_.end() || application_id_.empty()) return std::nullopt;
  Live& live = it->second;
  Route route{"POST", webhook_path(live.token), live.token, live.created_ms};
  if (!live.original_claimed) {
    live.original_claimed = true;
    route.method = "PATCH";
    route.path += "/messages/@original";
  } else if (options_.ephemeral) {
    body["flags"] = kFlagEphemeral;
  }
  return route;
}

void DiscordCommands::answered(const Route& route, const RestAnswer& a,
                               const std::function<void(Result<std::string>)>& done) {
  if (a.status / 100 != 2) return done(commands_delivery_error(a));
  const std::string id = a.body.is_object() ? commands_str(a.body, "id") : "";
  if (id.empty()) return done(Error{"UNAVAILABLE", "discord interaction: the response has no message id"});
  messages_[id] = {route.token, route.created_ms};
  done(id);
}

bool DiscordCommands::send(const std::string& reply_to, const std::string& content,
                           std::function<void(Result<std::string>)> done) {
  json body = commands_message_body(content);
  auto route = route_reply(reply_to, body);
  if (!route) return false;
  rest_.call(route->method, route->path, body, [this, r = *route, done = std::move(done)](const RestAnswer& a) {
    answered(r, a, done);
  });
  return true;
}

bool DiscordCommands::send_media(const std::string& reply_to, json payload, net::FormPart file,
                                 std::function<void(Result<std::string>)> done) {
  auto route = route_reply(reply_to, payload);
  if (!route) return false;
  file.name = "files[0]";
  auto form = net::build_multipart_form({{"payload_json", payload.dump()}, std::move(file)});
  rest_.call_raw(route->method, route->path, std::move(form.content_type), std::move(form.body),
                 [this, r = *route, done = std::move(done)](const RestAnswer& a) { answered(r, a, done); });
  return true;
}

bool DiscordCommands::edit(const std::string& message_id, const std::string& content, std::function<void(Status)> done) {
  forget_expired();
  auto it = messages_.find(message_id);
  if (it == messages_.end()) return false;
  rest_.call("PATCH", webhook_path(it->second.first) + "/messages/" + message_id, commands_message_body(content),
             [done = std::move(done)](const RestAnswer& a) {
               if (a.status / 100 != 2) return done(commands_delivery_error(a));
               done(Ok{});
             });
  return true;
}

json DiscordCommands::status() const {
  return {{"registration", registration_}, {"native", options_.native}, {"interactions", interactions_},
          {"ephemeral", options_.ephemeral}};
}

}  // namespace pincer::channels::discord
