#include "channels/channel_checks.h"

#include <cctype>
#include <optional>
#include <string_view>

#include "channels/irc/irc_settings.h"
#include "channels/matrix/matrix_settings.h"
#include "channels/email/email_settings.h"
#include "core/json5_edit.h"

namespace pincer::channels {

using nlohmann::json;

namespace {

Error invalid(const std::string& at, const std::string& message) { return Error{"CONFIG_INVALID", at + ": " + message}; }

/// Why `secret` cannot be a Telegram webhook secret_token, or nullopt: at least 16 characters
/// (as every other secret of Pincer), at most 256 of A-Z a-z 0-9 _ - (what Telegram accepts).
std::optional<std::string> telegram_secret_problem(const std::string& secret) {
  const std::string how = " (Telegram sends it back with every update; e.g. `openssl rand -hex 24`)";
  if (secret.size() < 16) return "required with webhookUrl, at least 16 characters" + how;
  if (secret.size() > 256) return "at most 256 characters" + how;
  for (const char c : secret) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return "may contain only letters, digits, _ and - (Telegram's rule)";
    }
  }
  return std::nullopt;
}

/// What two accounts must not share: an HTTP path on the gateway's port, a Telegram bot token (one
/// bot polled twice gets 409 conflicts and splits the updates).
struct Exclusive {
  std::string what;   ///< how the error names it: "the path /x", "the same bot token" …
  std::string value;  ///< "" = nothing taken
  std::string config_path;
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<Exclusive> exclusives(const ChannelAccount& spec, const std::string& route_prefix) {
  std::vector<Exclusive> out = {{"the path " + route_prefix, route_prefix, spec.config_path}};
  const json& c = spec.config;
  if (spec.channel == "telegram") out.push_back({"the same bot token", c.value("botToken", ""), spec.config_path});
  // One Discord bot on two Gateway sessions would answer every message twice.
  if (spec.channel == "discord") out.push_back({"the same Discord bot token", c.value("token", ""), spec.config_path});
  // Two /sync loops of one Matrix login would each answer every message.
  if (spec.channel == "matrix") out.push_back({"the same Matrix access token", c.value("accessToken", ""), spec.config_path});
  // Two Socket Mode connections of one app each get a share of the events.
  if (spec.channel == "slack") out.push_back({"the same Slack app token", c.value("appToken", ""), spec.config_path});
  if (spec.channel == "irc" && c.contains("host") && c.contains("nick")) {
    // Two accounts with one nick on one server would take it from each other at every reconnect.
    out.push_back({"the same nick on the same server",
                   lower(c.value("host", "")) + ":" + std::to_string(c.value("port", 0)) + "/" + lower(c.value("nick", "")),
                   spec.config_path});
  }
  return out;
}

}  // namespace

bool is_unexpanded_env_reference(std::string_view value) {
  if (value.size() < 4 || value.substr(0, 2) != "${" || value.back() != '}') return false;
  const std::string_view name = value.substr(2, value.size() - 3);
  if (std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (const char ch : name) {
    if (!std::isupper(static_cast<unsigned char>(ch)) && !std::isdigit(static_cast<unsigned char>(ch)) && ch != '_') return false;
  }
  return true;
}

std::string route_path_problem(const std::string& path) {
  if (path.size() < 2 || path[0] != '/') return "must start with / and name a path, e.g. /hooks/pincer";
  for (const char c : path) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("/-._~").find(c) == std::string_view::npos) {
      return "may contain only letters, digits and / - . _ ~, got \"" + path + "\"";
    }
  }
  for (const std::string probe : {"/health", "/healthz", "/ready", "/readyz"}) {
    if (path == probe || path.rfind(probe + "/", 0) == 0) return "is the gateway's own " + probe + " endpoint";
  }
  // Routes match by prefix: a channel's path here would take the gateway's own requests.
  for (const std::string own : {"/v1", "/__openclaw__"}) {
    if (path == own || path.rfind(own + "/", 0) == 0) {
      return "is under the gateway's own " + own + (own == "/v1" ? " (the OpenAI-compatible API)" : " (the Control UI)");
    }
  }
  const std::string first = path.substr(1, path.find('/', 1) - 1);
  if (first.find('.') != std::string::npos || first.empty()) return "would shadow a file of the web chat (" + path + ")";
  return "";
}

Result<telegram::TelegramSettings> telegram_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  telegram::TelegramSettings s;
  s.account_id = spec.account_id;
  s.token = c.value("botToken", "");
  if (s.token.empty()) return invalid(at + ".botToken", "required to run the Telegram channel");
  s.api_root = c.value("apiRoot", s.api_root);
  s.poll_timeout_s = c.value("pollTimeoutSeconds", s.poll_timeout_s);
  s.offset_file = state_dir / "channels" / "telegram" / (s.account_id + ".offset");
  s.webhook_url = c.value("webhookUrl", "");
  s.webhook_path = c.value("webhookPath", s.webhook_path);
  s.webhook_secret = c.value("webhookSecret", "");
  if (auto k = c.find("commands"); k != c.end() && k->is_object()) s.native_commands = k->value("native", true);
  if (auto problem = route_path_problem(s.webhook_path); !problem.empty()) return invalid(at + ".webhookPath", problem);
  if (!s.webhook_url.empty()) {
    // Without it anyone who finds the path could post updates in the owner's name (as OpenClaw,
    // webhookUrl requires webhookSecret).
    if (auto problem = telegram_secret_problem(s.webhook_secret)) return invalid(at + ".webhookSecret", *problem);
  }
  return s;
}

Result<webhook::WebhookSettings> webhook_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  webhook::WebhookSettings s;
  s.account_id = spec.account_id;
  s.secret = c.value("secret", "");
  if (s.secret.size() < 16) return invalid(at + ".secret", "required, at least 16 characters (it signs every request)");
  s.path = c.value("path", s.path);
  if (auto problem = route_path_problem(s.path); !problem.empty()) return invalid(at + ".path", problem);
  const std::string mode = c.value("mode", "sync");
  if (mode != "sync" && mode != "callback") return invalid(at + ".mode", "must be \"sync\" or \"callback\" for the webhook channel");
  s.sync = mode == "sync";
  s.callback_url = c.value("callbackUrl", "");
  if (!s.sync && s.callback_url.empty()) return invalid(at + ".callbackUrl", "required when the mode is \"callback\"");
  s.max_body_bytes = c.value("maxBodyBytes", s.max_body_bytes);
  s.reply_timeout_ms = c.value("replyTimeoutSeconds", int64_t{120}) * 1000;
  s.replay_file = state_dir / "channels" / "webhook" / (s.account_id + ".replay.json");
  s.dedupe_file = state_dir / "channels" / "webhook" / (s.account_id + ".dedupe.json");
  return s;
}

Result<discord::DiscordSettings> discord_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  discord::DiscordSettings s;
  s.account_id = spec.account_id;
  s.token = c.value("token", "");
  if (s.token.empty()) return invalid(at + ".token", "required to run the Discord channel (the bot token from the Developer Portal)");
  if (s.token.find_first_of(" \r\n") != std::string::npos) return invalid(at + ".token", "must be the bare bot token (no spaces, no \"Bot \" prefix)");
  s.api_root = c.value("apiRoot", s.api_root);
  if (s.api_root.rfind("http://", 0) != 0 && s.api_root.rfind("https://", 0) != 0) {
    return invalid(at + ".apiRoot", "must be an http(s) URL, e.g. https://discord.com/api");
  }
  s.ack_reaction = c.value("ackReaction", "");
  if (auto k = c.find("commands"); k != c.end() && k->is_object()) s.native_commands = k->value("native", true);
  if (auto k = c.find("slashCommand"); k != c.end() && k->is_object()) s.ephemeral_commands = k->value("ephemeral", true);
  s.config_path = at;
  s.state_file = state_dir / "channels" / "discord" / (s.account_id + ".json");
  return s;
}

Result<slack::SlackSettings> slack_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  slack::SlackSettings s;
  s.account_id = spec.account_id;
  const std::string mode = c.value("mode", "socket");
  if (mode != "socket" && mode != "http") {
    return invalid(at + ".mode", "must be \"socket\" (Socket Mode, the default) or \"http\" (the HTTP Events API), got \"" +
                                     mode + "\"");
  }
  s.http_mode = mode == "http";
  // A token the gateway's environment provides ("${SLACK_BOT_TOKEN}", kept unexpanded by `config
  // set`) is checked when the gateway expands it.
  s.bot_token = c.value("botToken", "");
  if (s.bot_token.rfind("xapp-", 0) == 0) {
    return invalid(at + ".botToken", "must start with xoxb- (the Bot User OAuth Token); this looks like the app token "
                                     "(xapp-…): are botToken and appToken swapped?");
  }
  if (s.bot_token.rfind("xoxb-", 0) != 0 && !is_unexpanded_env_reference(s.bot_token)) {
    return invalid(at + ".botToken", s.bot_token.empty()
                                         ? "required to run the Slack channel: the Bot User OAuth Token (xoxb-…, OAuth & Permissions)"
                                         : "must start with xoxb- (the Bot User OAuth Token, OAuth & Permissions)");
  }
  s.app_token = c.value("appToken", "");
  if (s.app_token.rfind("xoxb-", 0) == 0) {
    return invalid(at + ".appToken", "must start with xapp- (an app-level token with connections:write); this looks like "
                                     "the bot token (xoxb-…): are botToken and appToken swapped?");
  }
  if (s.http_mode) {
    s.signing_secret = c.value("signingSecret", "");
    if (s.signing_secret.empty()) {
      return invalid(at + ".signingSecret", "required with mode \"http\": the app's Signing Secret (Basic Information → "
                                            "App Credentials), which Slack signs its requests with");
    }
    s.webhook_path = c.value("webhookPath", s.webhook_path);
    if (s.webhook_path.size() < 2 || s.webhook_path.front() != '/' || s.webhook_path.back() == '/' ||
        s.webhook_path.find_first_of("?# ") != std::string::npos) {
      return invalid(at + ".webhookPath", "must be a path on the gateway's port such as \"/slack/events\" (the "
                                          "Request URL's path), got \"" + s.webhook_path + "\"");
    }
    if (auto problem = route_path_problem(s.webhook_path); !problem.empty()) return invalid(at + ".webhookPath", problem);
  } else if (s.app_token.rfind("xapp-", 0) != 0 && !is_unexpanded_env_reference(s.app_token)) {
    return invalid(at + ".appToken", s.app_token.empty()
                                         ? "required for Socket Mode: an app-level token with connections:write (xapp-…, Basic Information)"
                                         : "must start with xapp- (an app-level token with connections:write, Basic Information)");
  }
  s.api_root = c.value("apiRoot", s.api_root);
  if (s.api_root.rfind("http://", 0) != 0 && s.api_root.rfind("https://", 0) != 0) {
    return invalid(at + ".apiRoot", "must be an http(s) URL, e.g. https://slack.com/api");
  }
  const json slash = c.value("slashCommand", json::object());
  if (slash.is_object()) {
    s.slash.enabled = slash.value("enabled", s.slash.enabled);
    s.slash.ephemeral = slash.value("ephemeral", s.slash.ephemeral);
    std::string name = slash.value("name", s.slash.name);
    if (!name.empty() && name.front() == '/') name.erase(0, 1);
    if (name.empty() || name.size() > 32 || name.find_first_of(" \t/") != std::string::npos) {
      return invalid(at + ".slashCommand.name", "must be the command's name as created in the Slack app, without "
                                                 "spaces (e.g. \"pincer\" for /pincer)");
    }
    s.slash.name = name;
  }
  s.config_path = at;
  s.state_file = state_dir / "channels" / "slack" / (s.account_id + ".json");
  return s;
}

Result<std::string> check_account(const ChannelAccount& spec) {
  if (spec.channel == "telegram") {
    auto s = telegram_settings_of(spec, {});
    if (!s) return s.error();
    return s->webhook_url.empty() ? std::string() : s->webhook_path;
  }
  if (spec.channel == "email") {
    auto s = email::email_settings_of(spec, {});
    if (!s) return s.error();
    return std::string();
  }
  if (spec.channel == "irc") {
    auto s = irc::irc_settings_from_json(spec.config, spec.config_path);
    if (!s) return s.error();
    return std::string();
  }
  if (spec.channel == "webhook") {
    auto s = webhook_settings_of(spec, {});
    if (!s) return s.error();
    return s->path;
  }
  if (spec.channel == "matrix") {
    auto s = matrix::matrix_settings_of(spec, {});
    if (!s) return s.error();
    return std::string();
  }
  if (spec.channel == "discord") {
    auto s = discord_settings_of(spec, {});
    if (!s) return s.error();
    return std::string();
  }
  if (spec.channel == "slack") {
    auto s = slack_settings_of(spec, {});
    if (!s) return s.error();
    return s->http_mode ? s->webhook_path : std::string();
  }
  return invalid(spec.config_path, "no channel named \"" + spec.channel + "\" (available: telegram, discord, slack, matrix, email, irc, webhook)");
}

std::vector<std::string> channel_problems(const json& effective) {
  std::vector<std::string> out;
  std::vector<Exclusive> taken;
  for (const auto& spec : list_channel_accounts(effective.value("channels", json::object()))) {
    auto route = check_account(spec);
    if (!route) {
      out.push_back(route.error().message);
      continue;
    }
    for (auto& e : exclusives(spec, *route)) taken.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < taken.size(); ++i) {
    for (std::size_t j = i + 1; j < taken.size(); ++j) {
      if (!taken[i].value.empty() && taken[i].what == taken[j].what && taken[i].value == taken[j].value) {
        out.push_back(taken[j].config_path + ": " + taken[j].what + " is already used by " + taken[i].config_path);
      }
    }
  }
  return out;
}

std::vector<std::string> group_role_warnings(const json& effective) {
  std::vector<std::string> out;
  const json channels = effective.value("channels", json::object());
  if (!channels.is_object()) return out;
  auto non_empty_list = [](const json& entry, const char* key) {
    return entry.contains(key) && entry[key].is_array() && !entry[key].empty();
  };
  auto scan = [&](const std::string& channel, const json5::Path& at, const json& block) {
    if (!block.is_object()) return;
    for (const char* key : {"groups", "channels", "rooms"}) {
      const auto it = block.find(key);
      if (it == block.end() || !it->is_object()) continue;
      for (const auto& [chat, entry] : it->items()) {
        if (!entry.is_object() || !non_empty_list(entry, "roles")) continue;
        json5::Path path = at;
        for (const std::string& segment : {std::string(key), chat, std::string("roles")}) path.emplace_back(segment);
        const bool senders = non_empty_list(entry, "allowFrom") || non_empty_list(entry, "users");
        out.push_back(json5::format_path(path) + ": roles are Discord's only (guild role ids); no " + channel +
                      " sender has a role, so " +
                      (senders ? "only the senders of allowFrom/users are let in"
                               : "this entry admits nobody: list the senders in allowFrom (or users) instead"));
      }
    }
  };
  for (const auto& [channel, block] : channels.items()) {
    if (channel == "discord" || !block.is_object()) continue;
    scan(channel, json5::Path{std::string("channels"), channel}, block);
    const auto accounts = block.find("accounts");
    if (accounts == block.end() || !accounts->is_object()) continue;
    for (const auto& [account, settings] : accounts->items()) {
      scan(channel, json5::Path{std::string("channels"), channel, std::string("accounts"), account}, settings);
    }
  }
  return out;
}

}  // namespace pincer::channels
