#include "automation/heartbeat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>

#include "automation/schedule.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string hb_string(const json& block, const char* key) {
  if (!block.is_object()) return "";
  auto it = block.find(key);
  return it != block.end() && it->is_string() ? it->get<std::string>() : "";
}

// Merges `over` onto `base` key by key (OpenClaw's {...defaults, ...overrides}).
json merge_heartbeat_blocks(const json& base, const json& over) {
  json out = base.is_object() ? base : json::object();
  if (over.is_object())
    for (const auto& [k, v] : over.items()) out[k] = v;
  return out;
}

// Removes leading/trailing `HEARTBEAT_OK` (the end one may carry up to 4 non-word characters
// after it) until none is left at an edge; whitespace runs become one space. `stripped` says
// whether any was removed.
std::string strip_token_at_edges(std::string text, bool& stripped) {
  stripped = false;
  const std::string token(kHeartbeatToken);
  for (bool changed = true; changed;) {
    changed = false;
    std::string t(trim_view(text));
    if (t.starts_with(token)) {
      text = t.substr(token.size());
      stripped = changed = true;
      continue;
    }
    const std::size_t at = t.rfind(token);
    if (at == std::string::npos) {
      text = t;
      break;
    }
    const std::string_view tail = std::string_view(t).substr(at + token.size());
    const bool edge = tail.size() <= 4 && std::none_of(tail.begin(), tail.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                      });
    if (!edge) {
      text = t;
      break;
    }
    text = std::string(trim_view(std::string_view(t).substr(0, at)));
    stripped = changed = true;
  }
  std::string collapsed;
  bool space = false;
  for (char c : std::string(trim_view(text))) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !collapsed.empty()) collapsed += ' ';
    space = false;
    collapsed += c;
  }
  return collapsed;
}

// HTML tags and `&nbsp;` become spaces, Markdown emphasis at the ends goes: "**HEARTBEAT_OK**".
std::string strip_markup(std::string_view text) {
  static const std::regex tag("<[^>]*>"), nbsp("&nbsp;", std::regex::icase);
  std::string out = std::regex_replace(std::string(text), tag, " ");
  out = std::regex_replace(out, nbsp, " ");
  auto emphasis = [](char c) { return c == '*' || c == '`' || c == '~' || c == '_'; };
  std::size_t b = 0, e = out.size();
  while (b < e && emphasis(out[b])) ++b;
  while (e > b && emphasis(out[e - 1])) --e;
  return out.substr(b, e - b);
}

}  // namespace

std::string default_heartbeat_prompt() {
  return "Heartbeat check. If HEARTBEAT.md exists in your workspace, read it and do what it asks, "
         "exactly; do not bring back tasks from earlier conversations that it does not list. "
         "When nothing needs the user's attention, answer only HEARTBEAT_OK.";
}

std::optional<int64_t> parse_heartbeat_duration_ms(std::string_view text) {
  std::string s(trim_view(text));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::regex form(R"(^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)?$)");
  std::smatch m;
  if (!std::regex_match(s, m, form)) return std::nullopt;
  const double value = std::stod(m[1].str());
  const std::string unit = m[2].matched ? m[2].str() : "m";
  const double factor = unit == "ms" ? 1 : unit == "s" ? 1000 : unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : 86'400'000;
  const double ms = value * factor;
  if (!std::isfinite(ms) || ms > 3.0e13) return std::nullopt;  // about 950 years: a typo
  return static_cast<int64_t>(std::llround(ms));
}

std::optional<int> parse_active_hours_time(std::string_view text, bool allow_24) {
  if (text.size() != 5 || text[2] != ':') return std::nullopt;
  for (std::size_t i : {0u, 1u, 3u, 4u})
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  const int h = (text[0] - '0') * 10 + (text[1] - '0'), m = (text[3] - '0') * 10 + (text[4] - '0');
  if (h == 24 && m == 0 && allow_24) return 1440;
  if (h > 23 || m > 59) return std::nullopt;
  return h * 60 + m;
}

std::vector<std::string> heartbeat_problems(const json& block, const std::string& where) {
  std::vector<std::string> out;
  if (!block.is_object()) return out;
  if (block.contains("every") && block["every"].is_string()) {
    const auto ms = parse_heartbeat_duration_ms(block["every"].get<std::string>());
    if (!ms) {
      out.push_back(where + ".every: '" + block["every"].get<std::string>() +
                    "' is not a duration (a number with ms, s, m, h or d, e.g. \"30m\"; \"0m\" turns heartbeats off)");
    } else if (*ms > 0 && *ms < kHeartbeatMinEveryMs) {
      out.push_back(where + ".every: '" + block["every"].get<std::string>() +
                    "' is shorter than 1s, the shortest interval (as cron's); \"0m\" turns heartbeats off");
    }
  }
  if (block.contains("activeHours") && block["activeHours"].is_object()) {
    const json& a = block["activeHours"];
    const std::string start = hb_string(a, "start"), end = hb_string(a, "end"), zone = hb_string(a, "timezone");
    if (a.contains("start") && !parse_active_hours_time(start, false))
      out.push_back(where + ".activeHours.start: '" + start + "' is not a time HH:MM from 00:00 to 23:59");
    if (a.contains("end") && !parse_active_hours_time(end, true))
      out.push_back(where + ".activeHours.end: '" + end + "' is not a time HH:MM from 00:00 to 24:00");
    if (!zone.empty() && zone != "user" && zone != "local" && !is_known_zone(zone))
      out.push_back(where + ".activeHours.timezone: unknown time zone '" + zone + "' (an IANA name, \"user\" or \"local\")");
  }
  return out;
}

std::vector<HeartbeatSettings> heartbeat_settings_from_config(const json& config, const std::vector<HeartbeatAgent>& agents) {
  const json agents_cfg = config.is_object() ? config.value("agents", json::object()) : json::object();
  const json defaults = agents_cfg.is_object() ? agents_cfg.value("defaults", json::object()) : json::object();
  const json default_block = defaults.is_object() ? defaults.value("heartbeat", json()) : json();
  const std::string user_zone = defaults.is_object() ? defaults.value("userTimezone", "") : "";
  std::map<std::string, json> own_blocks;  // agents.list[].heartbeat
  if (agents_cfg.is_object() && agents_cfg.contains("list") && agents_cfg["list"].is_array())
    for (const auto& entry : agents_cfg["list"])
      if (entry.is_object() && entry.contains("heartbeat") && entry["heartbeat"].is_object())
        own_blocks[entry.value("id", "")] = entry["heartbeat"];

  std::vector<HeartbeatSettings> out;
  for (const HeartbeatAgent& agent : agents) {
    HeartbeatSettings s;
    s.agent_id = agent.id;
    s.workspace = agent.workspace;
    s.user_zone = user_zone;
    const bool enrolled = own_blocks.empty() ? agent.is_default : own_blocks.contains(agent.id);
    const json block = merge_heartbeat_blocks(default_block, own_blocks.contains(agent.id) ? own_blocks[agent.id] : json());
    if (!heartbeat_problems(block, "heartbeat").empty()) s.enabled = false;
    if (block.contains("every") && block["every"].is_string()) {
      s.every = block["every"].get<std::string>();
      s.every_ms = parse_heartbeat_duration_ms(s.every).value_or(0);
    }
    if (!enrolled || s.every_ms <= 0) {
      s.enabled = false;
      s.every = "disabled";
      s.every_ms = 0;
    }
    s.prompt = std::string(trim_view(hb_string(block, "prompt")));
    if (s.prompt.empty()) s.prompt = default_heartbeat_prompt();
    if (const std::string t = hb_string(block, "target"); !t.empty()) s.target = t;
    s.to = hb_string(block, "to");
    s.account_id = hb_string(block, "accountId");
    s.model = hb_string(block, "model");
    if (block.contains("ackMaxChars") && block["ackMaxChars"].is_number_integer())
      s.ack_max_chars = std::max<int64_t>(0, block["ackMaxChars"].get<int64_t>());
    if (block.contains("timeoutSeconds") && block["timeoutSeconds"].is_number_integer())
      s.timeout_seconds = std::max<int64_t>(0, block["timeoutSeconds"].get<int64_t>());
    if (block.contains("activeHours") && block["activeHours"].is_object()) {
      const json& a = block["activeHours"];
      auto start = parse_active_hours_time(hb_string(a, "start"), false);
      auto end = parse_active_hours_time(hb_string(a, "end"), true);
      if (start && end) s.active_hours = ActiveHours{*start, *end, hb_string(a, "timezone")};  // as OpenClaw: both or none
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool within_active_hours(const std::optional<ActiveHours>& window, const std::string& user_zone, int64_t now_ms) {
  if (!window) return true;
  if (window->start_min == window->end_min) return false;
  std::string zone = window->timezone;
  if (zone.empty() || zone == "user") zone = user_zone.empty() ? host_zone() : user_zone;
  else if (zone == "local") zone = host_zone();
  const auto offset = zone_offset_seconds(zone, now_ms);
  if (!offset) return true;
  const int64_t local_s = now_ms / 1000 - (now_ms % 1000 < 0 ? 1 : 0) + *offset;
  const int64_t day_s = ((local_s % 86400) + 86400) % 86400;
  const int now_min = static_cast<int>(day_s / 60);
  if (window->end_min > window->start_min) return now_min >= window->start_min && now_min < window->end_min;
  return now_min >= window->start_min || now_min < window->end_min;  // wraps past midnight
}

bool heartbeat_content_empty(std::string_view content) {
  static const std::regex header(R"(^#+(\s|$))"), list_stub(R"(^[-*+]\s*(\[[\sXx]?\]\s*)?$)"), fence(R"(^```[A-Za-z0-9_-]*$)");
  bool in_comment = false;
  std::size_t pos = 0;
  while (pos <= content.size()) {
    std::size_t nl = content.find('\n', pos);
    if (nl == std::string_view::npos) nl = content.size();
    std::string line(content.substr(pos, nl - pos));
    pos = nl + 1;
    // HTML comments, also over several lines, are blank.
    std::string kept;
    std::size_t i = 0;
    while (i < line.size()) {
      if (in_comment) {
        const std::size_t close = line.find("-->", i);
        if (close == std::string::npos) {
          i = line.size();
          break;
        }
        in_comment = false;
        i = close + 3;
        continue;
      }
      const std::size_t open = line.find("<!--", i);
      if (open == std::string::npos) {
        kept += line.substr(i);
        break;
      }
      kept += line.substr(i, open - i);
      in_comment = true;
      i = open + 4;
    }
    const std::string t(trim_view(kept));
    if (t.empty() || std::regex_search(t, header) || std::regex_match(t, list_stub) || std::regex_match(t, fence)) continue;
    return false;
  }
  return true;
}

HeartbeatReply classify_heartbeat_reply(std::string_view reply, int64_t ack_max_chars) {
  HeartbeatReply out;
  const std::string trimmed(trim_view(reply));
  if (trimmed.empty()) return out;
  if (trimmed.find(kHeartbeatToken) == std::string::npos) {
    out.deliver = true;
    out.text = trimmed;
    return out;
  }
  bool stripped_original = false, stripped_plain = false;
  std::string original = strip_token_at_edges(trimmed, stripped_original);
  std::string plain = strip_token_at_edges(strip_markup(trimmed), stripped_plain);
  const bool use_original = stripped_original && !original.empty();
  const bool stripped = use_original ? true : stripped_plain;
  std::string rest = use_original ? original : plain;
  if (!stripped) {  // the token only in the middle: an ordinary reply
    out.deliver = true;
    out.text = trimmed;
    return out;
  }
  out.token = true;
  const auto chars = std::count_if(rest.begin(), rest.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  if (rest.empty() || static_cast<int64_t>(chars) <= ack_max_chars) return out;
  out.deliver = true;
  out.text = rest;
  return out;
}

}  // namespace pincer::automation
