// ASCII text helpers shared by the routing files (internal; not part of the routing API).
// OpenClaw's `trim().toLowerCase()` on ids: ids are ASCII in practice; other bytes pass unchanged.
#pragma once

#include <string>
#include <string_view>

namespace pincer::routing::text {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// trim + lowercase (OpenClaw normalizeToken).
inline std::string token(std::string_view s) { return lower(trim(s)); }

}  // namespace pincer::routing::text
