#include "channels/discord/discord_api.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/percent_encoding.h"

namespace pincer::channels::discord {

using nlohmann::json;

namespace detail_discord_api {

std::string str_of(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return "";
  const json& v = o[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return "";
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string trim_copy(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

void erase_all(std::string& text, const std::string& token) {
  if (token.empty()) return;
  for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at)) text.erase(at, token.size());
}

}  // namespace detail_discord_api

using namespace detail_discord_api;

int64_t snowflake_ms(const std::string& id) {
  if (!all_digits(id) || id.size() > 20) return 0;
  try {
    return static_cast<int64_t>(std::stoull(id) >> 22) + kDiscordEpochMs;
  } catch (const std::exception&) {
    return 0;
  }
}

bool snowflake_less(const std::string& a, const std::string& b) {
  if (all_digits(a) && all_digits(b) && a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

std::string gateway_connect_url(const std::string& url) {
  std::string base = url;
  if (auto q = base.find('?'); q != std::string::npos) base.erase(q);
  if (!base.empty() && base.back() != '/') base += '/';
  return base + "?v=10&encoding=json";
}

json identify_payload(const std::string& token, int64_t intents) {
  return {{"op", kOpIdentify},
          {"d",
           {{"token", token},
            {"intents", intents},
            {"properties", {{"os", "linux"}, {"browser", "pincer"}, {"device", "pincer"}}}}}};
}

json resume_payload(const std::string& token, const std::string& session_id, int64_t seq) {
  return {{"op", kOpResume}, {"d", {{"token", token}, {"session_id", session_id}, {"seq", seq}}}};
}

json heartbeat_payload(int64_t seq) { return {{"op", kOpHeartbeat}, {"d", seq < 0 ? json(nullptr) : json(seq)}}; }

std::optional<std::string> fatal_close(int code) {
  switch (code) {
    case 4004: return "the bot token was rejected (close 4004 authentication failed)";
    case 4010: return "invalid shard (close 4010)";
    case 4011: return "the bot needs sharding (close 4011)";
    case 4012: return "invalid API version (close 4012)";
    case 4013: return "invalid intents (close 4013)";
    case 4014:
      return "disallowed intents (close 4014): enable the Message Content Intent for the bot in the Discord "
             "Developer Portal (Bot → Privileged Gateway Intents)";
    default: return std::nullopt;
  }
}

bool close_refuses_token(int code) { return code == 4004; }

bool close_forgets_session(int code) { return code == 4007 || code == 4009 || fatal_close(code).has_value(); }

std::optional<InboundMessage> parse_message_create(const json& d, const std::string& account_id,
                                                   const std::string& bot_user_id) {
  if (!d.is_object()) return std::nullopt;
  const json author = d.value("author", json::object());
  if (!author.is_object() || author.value("bot", false) || d.contains("webhook_id")) return std::nullopt;
  const int type = d.value("type", 0);
  if (type != 0 && type != 19) return std::nullopt;  // DEFAULT and REPLY; the rest are system messages
  InboundMessage m;
  m.channel = "discord";
  m.account_id = account_id;
  m.message_id = str_of(d, "id");
  m.chat_id = str_of(d, "channel_id");
  m.sender_id = str_of(author, "id");
  if (m.message_id.empty() || m.chat_id.empty() || m.sender_id.empty() || m.sender_id == bot_user_id) return std::nullopt;
  m.guild_id = str_of(d, "guild_id");
  m.is_group = !m.guild_id.empty();
  m.channel_peer = m.is_group;  // OpenClaw's keys: agent:<id>:discord:channel:<channelId>
  const json member = d.value("member", json::object());
  if (member.is_object() && member.contains("roles") && member["roles"].is_array()) {
    for (const auto& r : member["roles"]) {
      if (r.is_string()) m.sender_roles.push_back(r.get<std::string>());
    }
  }
  std::string name = member.is_object() ? str_of(member, "nick") : "";
  if (name.empty()) name = str_of(author, "global_name");
  if (name.empty()) name = str_of(author, "username");
  m.sender_name = name;
  std::string text = d.value("content", "");
  if (!bot_user_id.empty()) {
    if (d.contains("mentions") && d["mentions"].is_array()) {
      for (const auto& u : d["mentions"]) m.mentions_bot = m.mentions_bot || str_of(u, "id") == bot_user_id;
    }
    for (const std::string& token : {"<@" + bot_user_id + ">", "<@!" + bot_user_id + ">"}) {
      if (text.find(token) != std::string::npos) m.mentions_bot = true;
      erase_all(text, token);
    }
    const json ref = d.value("referenced_message", json());
    if (ref.is_object() && str_of(ref.value("author", json::object()), "id") == bot_user_id) m.mentions_bot = true;
  }
  m.text = trim_copy(text);
  if (m.text.empty() && message_files(d).empty()) return std::nullopt;
  m.ts_ms = snowflake_ms(m.message_id);
  return m;
}

std::vector<std::pair<std::string, std::string>> announced_threads(const std::string& type, const json& d) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!d.is_object()) return out;
  auto add = [&](const json& t) {
    const std::string id = str_of(t, "id"), parent = str_of(t, "parent_id");
    if (!id.empty() && !parent.empty()) out.emplace_back(id, parent);
  };
  if ((type == "GUILD_CREATE" || type == "THREAD_LIST_SYNC") && d.contains("threads") && d["threads"].is_array()) {
    for (const auto& t : d["threads"]) add(t);
  } else if (type == "THREAD_CREATE" || type == "THREAD_UPDATE") {
    add(d);
  }
  return out;
}

std::vector<DiscordFile> message_files(const json& d) {
  std::vector<DiscordFile> out;
  if (!d.is_object() || !d.contains("attachments") || !d["attachments"].is_array()) return out;
  for (const auto& a : d["attachments"]) {
    if (!a.is_object()) continue;
    DiscordFile f;
    f.url = str_of(a, "url");
    if (f.url.empty()) continue;
    f.filename = str_of(a, "filename");
    f.content_type = str_of(a, "content_type");
    f.size = a.value("size", int64_t{0});
    out.push_back(std::move(f));
  }
  return out;
}

json create_message_body(const std::string& content) {
  return {{"content", content}, {"allowed_mentions", {{"parse", json::array({"users"})}}}};
}

json edit_message_body(const std::string& content) { return create_message_body(content); }

std::string encode_path_segment(const std::string& text) { return percent_encode(text, ":"); }

RateLimitInfo parse_rate_limit(int http_status, const net::HttpResponseHead& head, const json& body) {
  RateLimitInfo r;
  r.bucket = head.header("X-RateLimit-Bucket");
  auto number = [](const std::string& s) -> std::optional<double> {
    if (s.empty()) return std::nullopt;
    try {
      std::size_t used = 0;
      const double v = std::stod(s, &used);
      if (used != s.size() || !std::isfinite(v) || v < 0) return std::nullopt;
      return v;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  if (auto v = number(head.header("X-RateLimit-Remaining"))) r.remaining = static_cast<int>(*v);
  if (auto v = number(head.header("X-RateLimit-Reset-After"))) r.reset_after_ms = static_cast<int64_t>(std::ceil(*v * 1000));
  r.global = head.header("X-RateLimit-Global") == "true" || (body.is_object() && body.value("global", false));
  if (http_status == 429) {
    r.limited = true;
    std::optional<double> seconds;
    if (body.is_object() && body.contains("retry_after") && body["retry_after"].is_number()) {
      const double v = body["retry_after"].get<double>();
      if (std::isfinite(v) && v >= 0) seconds = v;
    }
    if (!seconds) seconds = number(head.header("Retry-After"));
    // Unknown: a second, as most per-route windows; never zero (no hot retry loop).
    r.retry_after_ms = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(seconds.value_or(1.0) * 1000)));
    r.retry_after_ms = std::min<int64_t>(r.retry_after_ms, 3'600'000);
  }
  return r;
}

std::string route_key(const std::string& method, const std::string& path) {
  std::string out = method + " ";
  std::size_t i = 0;
  std::string previous;
  bool major_done = false;
  while (i < path.size()) {
    std::size_t j = path.find('/', i + 1);
    if (j == std::string::npos) j = path.size();
    std::string seg = path.substr(i, j - i);  // "/name"
    const std::string bare = seg.size() > 1 ? seg.substr(1) : "";
    if (previous == "reactions") {
      out += "/:reaction";  // every emoji of a message shares the route
      break;
    }
    if (all_digits(bare)) {
      const bool major = !major_done && (previous == "channels" || previous == "guilds" || previous == "webhooks");
      out += major ? seg : "/:id";
      if (major) major_done = true;
    } else {
      out += seg;
    }
    previous = bare;
    i = j;
  }
  return out;
}

DeliveryTarget parse_delivery_target(std::string_view target) {
  DeliveryTarget t;
  std::string_view id = target;
  if (id.starts_with("user:")) {
    t.user = true;
    id.remove_prefix(5);
  } else if (id.starts_with("channel:")) {
    id.remove_prefix(8);
  } else if (id.starts_with("<@") && id.ends_with(">")) {
    t.user = true;
    id = id.substr(2, id.size() - 3);
    if (id.starts_with("!")) id.remove_prefix(1);
  }
  const bool snowflake = !id.empty() && id.size() <= 20 &&
                         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (snowflake) t.id = std::string(id);
  return t;
}

}  // namespace pincer::channels::discord
