#include "store/session_keys.h"

#include <cstdio>
#include <vector>

namespace pincer::store {

std::optional<std::string> session_key_problem(std::string_view key) {
  if (key.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos) return "session key is empty";
  if (key.size() > kMaxSessionKeyBytes) {
    return "session key is " + std::to_string(key.size()) + " bytes; at most " + std::to_string(kMaxSessionKeyBytes);
  }
  for (unsigned char c : key) {
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      return std::string("session key contains a control character (") + code + ")";
    }
  }
  return std::nullopt;
}
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

bool is_alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_id_char(char c) { return is_alnum_lower(c) || c == '_' || c == '-'; }

/// ^[a-z0-9][a-z0-9_-]{0,63}$ on an already lowercased string.
bool is_valid_id(std::string_view s) {
  if (s.empty() || s.size() > 64 || !is_alnum_lower(s.front())) return false;
  for (char c : s) {
    if (!is_id_char(c)) return false;
  }
  return true;
}

/// OpenClaw's normalizeAgentId / normalizeAccountId with the given fallback.
std::string normalize_id(std::string_view raw, std::string_view fallback) {
  const std::string lowered = lowercase(trim(raw));
  if (lowered.empty()) return std::string(fallback);
  if (is_valid_id(lowered)) return lowered;

  std::string collapsed;  // each run of invalid characters becomes one "-" (/[^a-z0-9_-]+/g)
  bool in_invalid_run = false;
  for (char c : lowered) {
    if (is_id_char(c)) {
      collapsed += c;
      in_invalid_run = false;
    } else if (!in_invalid_run) {
      collapsed += '-';
      in_invalid_run = true;
    }
  }
  std::string_view view = collapsed;
  while (!view.empty() && view.front() == '-') view.remove_prefix(1);
  while (!view.empty() && view.back() == '-') view.remove_suffix(1);
  std::string out(view.substr(0, 64));
  return out.empty() ? std::string(fallback) : out;
}

std::vector<std::string_view> split_nonempty(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (!s.empty()) {
    const auto pos = s.find(sep);
    const auto part = s.substr(0, pos);
    if (!part.empty()) parts.push_back(part);
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return parts;
}

}  // namespace

std::string normalize_agent_id(std::string_view raw) { return normalize_id(raw, kDefaultAgentId); }

std::string normalize_account_id(std::string_view raw) { return normalize_id(raw, kDefaultAccountId); }

std::string normalize_main_key(std::string_view raw) {
  const std::string lowered = lowercase(trim(raw));
  return lowered.empty() ? std::string(kDefaultMainKey) : lowered;
}

std::string agent_main_session_key(std::string_view agent_id, std::string_view main_key) {
  return "agent:" + normalize_agent_id(agent_id) + ":" + normalize_main_key(main_key);
}

std::optional<ParsedSessionKey> parse_agent_session_key(std::string_view key) {
  const std::string lowered = lowercase(trim(key));
  const auto parts = split_nonempty(lowered, ':');
  if (parts.size() < 3 || parts[0] != "agent") return std::nullopt;
  ParsedSessionKey parsed{std::string(trim(parts[1])), {}};
  for (std::size_t i = 2; i < parts.size(); ++i) {
    if (i > 2) parsed.rest += ':';
    parsed.rest += parts[i];
  }
  if (parsed.agent_id.empty() || trim(parsed.rest).empty()) return std::nullopt;
  return parsed;
}

std::string to_agent_store_session_key(std::string_view agent_id, std::string_view request_key,
                                       std::string_view main_key) {
  const std::string lowered = lowercase(trim(request_key));
  if (lowered.empty() || lowered == kDefaultMainKey) return agent_main_session_key(agent_id, main_key);
  if (lowered.starts_with("agent:")) return lowered;
  return "agent:" + normalize_agent_id(agent_id) + ":" + lowered;
}

std::string to_agent_request_session_key(std::string_view store_key) {
  const std::string_view raw = trim(store_key);
  if (auto parsed = parse_agent_session_key(raw)) return parsed->rest;
  return std::string(raw);
}

std::string agent_id_from_session_key(std::string_view key) {
  const auto parsed = parse_agent_session_key(key);
  return normalize_agent_id(parsed ? std::string_view(parsed->agent_id) : kDefaultAgentId);
}

SessionKeyShape classify_session_key_shape(std::string_view key) {
  const std::string_view raw = trim(key);
  if (raw.empty()) return SessionKeyShape::Missing;
  if (parse_agent_session_key(raw)) return SessionKeyShape::Agent;
  return lowercase(raw).starts_with("agent:") ? SessionKeyShape::MalformedAgent
                                              : SessionKeyShape::LegacyOrAlias;
}

std::string_view to_string(SessionKeyShape shape) {
  switch (shape) {
    case SessionKeyShape::Missing: return "missing";
    case SessionKeyShape::Agent: return "agent";
    case SessionKeyShape::MalformedAgent: return "malformed_agent";
    case SessionKeyShape::LegacyOrAlias: return "legacy_or_alias";
  }
  return "legacy_or_alias";
}

std::string canonical_store_key(std::string_view key) {
  std::string k = lowercase(trim(key));
  // Pincer's old Telegram forum topic key, agent:<a>:telegram:group:<chat>:thread:<topic>, is
  // OpenClaw's agent:<a>:telegram:group:<chat>:topic:<topic> (the topic is part of the peer).
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = k.find(':', start);
    parts.push_back(std::string_view(k).substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos || parts.size() > 7) break;
    start = colon + 1;
  }
  if (parts.size() == 7 && parts[0] == "agent" && parts[2] == "telegram" && parts[3] == "group" && !parts[4].empty() &&
      parts[5] == "thread" && !parts[6].empty()) {
    const std::size_t at = static_cast<std::size_t>(parts[5].data() - k.data());
    k.replace(at, parts[5].size(), "topic");
  }
  return k;
}

bool is_valid_session_id(std::string_view id) {
  if (id.empty() || id.size() > 128 || !is_alnum_lower(lower(id.front()))) return false;
  for (char c : id) {
    const char l = lower(c);
    if (!is_alnum_lower(l) && l != '.' && l != '_' && l != '-') return false;
  }
  return true;
}

std::optional<std::string> reserved_session_namespace(std::string_view key) {
  std::string rest(key);
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto first = rest.find_first_not_of(" \t");
  rest.erase(0, first == std::string::npos ? rest.size() : first);
  if (auto parsed = parse_agent_session_key(rest)) rest = parsed->rest;
  for (std::string_view reserved : {"subagent:", "cron:", "acp:"}) {
    if (rest.rfind(reserved, 0) == 0) return std::string(reserved);
  }
  return std::nullopt;
}

}  // namespace pincer::store
