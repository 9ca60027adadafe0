#include "channels/slack/slack_api.h"

#include <cstdlib>

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

std::string slack_api_str(const json& o, const char* key) {
  if (!o.is_object()) return {};
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string slack_api_trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

/// Removes every `<@bot>` and `<@bot|name>` token; true when there was one.
bool slack_api_strip_mention(std::string& text, const std::string& bot) {
  if (bot.empty()) return false;
  bool found = false;
  for (const std::string& open : {"<@" + bot + ">", "<@" + bot + "|"}) {
    for (auto at = text.find(open); at != std::string::npos; at = text.find(open)) {
      auto end = open.back() == '>' ? at + open.size() : text.find('>', at);
      if (end == std::string::npos) break;
      if (open.back() != '>') ++end;
      text.erase(at, end - at);
      found = true;
    }
  }
  return found;
}

/// Seconds and microseconds of a ts; nullopt when not "<digits>[.<digits>]".
std::optional<std::pair<std::string, std::string>> slack_api_ts_parts(const std::string& ts) {
  const auto dot = ts.find('.');
  std::string sec = ts.substr(0, dot), frac = dot == std::string::npos ? std::string() : ts.substr(dot + 1);
  if (sec.empty()) return std::nullopt;
  for (const char c : sec + frac) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  sec.erase(0, std::min(sec.find_first_not_of('0'), sec.size() - 1));
  frac.resize(std::max<std::size_t>(frac.size(), 6), '0');
  return std::make_pair(sec, frac);
}

}  // namespace

SocketEnvelope parse_socket_envelope(std::string_view text) {
  SocketEnvelope e;
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return e;
  e.type = j["type"].get<std::string>();
  e.envelope_id = slack_api_str(j, "envelope_id");
  if (j.contains("retry_attempt") && j["retry_attempt"].is_number_integer()) e.retry_attempt = j["retry_attempt"].get<int>();
  if (e.type == "hello") {
    e.kind = SocketEnvelope::Kind::Hello;
  } else if (e.type == "disconnect") {
    e.kind = SocketEnvelope::Kind::Disconnect;
    e.reason = slack_api_str(j, "reason");
  } else {
    e.kind = e.type == "events_api"       ? SocketEnvelope::Kind::EventsApi
             : e.type == "slash_commands" ? SocketEnvelope::Kind::SlashCommands
                                          : SocketEnvelope::Kind::Other;
    e.payload = j.value("payload", json::object());
  }
  return e;
}

std::string envelope_ack(const std::string& envelope_id) { return json{{"envelope_id", envelope_id}}.dump(); }

std::optional<InboundMessage> parse_message_event(const json& payload, const std::string& account_id,
                                                  const std::string& bot_user_id) {
  if (!payload.is_object()) return std::nullopt;
  const json event = payload.value("event", json::object());
  const std::string type = slack_api_str(event, "type");
  if (type != "message" && type != "app_mention") return std::nullopt;
  const std::string subtype = slack_api_str(event, "subtype");
  if (!subtype.empty() && subtype != "thread_broadcast" && subtype != "file_share") return std::nullopt;
  if (event.contains("bot_id") && !event["bot_id"].is_null()) return std::nullopt;
  InboundMessage m;
  m.channel = "slack";
  m.account_id = account_id;
  m.sender_id = slack_api_str(event, "user");
  m.chat_id = slack_api_str(event, "channel");
  m.message_id = slack_api_str(event, "ts");
  if (m.sender_id.empty() || m.chat_id.empty() || m.message_id.empty()) return std::nullopt;
  if (!bot_user_id.empty() && m.sender_id == bot_user_id) return std::nullopt;
  std::string channel_type = slack_api_str(event, "channel_type");
  if (channel_type.empty()) {  // app_mention carries none: the id's first letter tells
    channel_type = m.chat_id[0] == 'D' ? "im" : m.chat_id[0] == 'G' ? "group" : "channel";
  }
  m.is_group = channel_type != "im";
  m.channel_peer = channel_type == "channel" || channel_type == "group";
  m.team_id = slack_api_str(payload, "team_id");
  if (m.team_id.empty()) m.team_id = slack_api_str(event, "team");
  const std::string thread_ts = slack_api_str(event, "thread_ts");
  if (!thread_ts.empty()) m.thread_id = thread_ts;
  m.text = slack_api_str(event, "text");
  m.mentions_bot = slack_api_strip_mention(m.text, bot_user_id) || type == "app_mention";
  m.text = slack_api_trim(std::move(m.text));
  if (m.text.empty() && message_files(payload).empty()) return std::nullopt;  // a file alone is a message
  m.ts_ms = static_cast<int64_t>(std::strtod(m.message_id.c_str(), nullptr) * 1000.0);
  return m;
}

std::vector<InboundFile> message_files(const json& payload) {
  std::vector<InboundFile> out;
  const json event = payload.is_object() ? payload.value("event", json::object()) : json::object();
  if (!event.is_object() || !event.contains("files") || !event["files"].is_array()) return out;
  for (const json& f : event["files"]) {
    if (!f.is_object()) continue;
    std::string url = slack_api_str(f, "url_private_download");
    if (url.empty()) url = slack_api_str(f, "url_private");
    if (url.empty()) continue;
    InboundFile file{url, slack_api_str(f, "name"), slack_api_str(f, "mimetype")};
    if (f.contains("size") && f["size"].is_number_integer()) file.size = f["size"].get<int64_t>();
    out.push_back(std::move(file));
  }
  return out;
}

bool slack_ts_less(const std::string& a, const std::string& b) {
  auto pa = slack_api_ts_parts(a), pb = slack_api_ts_parts(b);
  if (!pa || !pb) return a < b;
  if (pa->first.size() != pb->first.size()) return pa->first.size() < pb->first.size();
  if (pa->first != pb->first) return pa->first < pb->first;
  return pa->second < pb->second;
}

std::string WebApiAnswer::error() const {
  if (!transport_error.empty()) return transport_error;
  const std::string e = slack_api_str(body, "error");
  if (!e.empty()) return e;
  return "HTTP " + std::to_string(status);
}

std::optional<int64_t> retry_after_ms(const WebApiAnswer& answer, const net::HttpResponseHead& head) {
  const bool limited = answer.status == 429 || slack_api_str(answer.body, "error") == "ratelimited";
  if (!limited) return std::nullopt;
  const std::string h = head.header("Retry-After");
  char* end = nullptr;
  const double s = h.empty() ? -1 : std::strtod(h.c_str(), &end);
  if (h.empty() || end == h.c_str() || s < 0 || s > 3600) return int64_t{1000};
  return static_cast<int64_t>(s * 1000.0);
}

Error delivery_error(const std::string& method, const WebApiAnswer& answer) {
  const std::string e = answer.error();
  const bool transient = answer.status == 0 || answer.status >= 500 || e == "internal_error" || e == "fatal_error" ||
                         e == "service_unavailable" || e == "request_timeout";
  return Error{transient ? "UNAVAILABLE" : "REJECTED", "slack: " + method + " failed: " + e};
}

json post_message_body(const std::string& channel, const std::string& text, const std::string& thread_ts) {
  json b = {{"channel", channel}, {"text", text}, {"mrkdwn", true}, {"unfurl_links", false}};
  if (!thread_ts.empty()) b["thread_ts"] = thread_ts;
  return b;
}

json update_message_body(const std::string& channel, const std::string& ts, const std::string& text) {
  return json{{"channel", channel}, {"ts", ts}, {"text", text}};
}

}  // namespace pincer::channels::slack
