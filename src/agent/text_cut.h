// Small helpers for cutting UTF-8 text by size without splitting a character, shared by the
// bootstrap loader (workspace.h) and the tool-result cap (tool_result_cap.h).
//
// Units: "chars" in the agent context code are UTF-8 bytes. A cut never lands inside a multi-byte
// sequence: it moves back (for an end) or forward (for a start) to the nearest character boundary.
#pragma once

#include <cstddef>
#include <string_view>

namespace pincer::agent::text {

/// True when `c` continues a multi-byte UTF-8 sequence (10xxxxxx).
inline bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// The largest index <= `pos` (clamped to s.size()) that starts a character or is the end.
inline std::size_t floor_boundary(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return s.size();
  while (pos > 0 && is_continuation(s[pos])) --pos;
  return pos;
}

/// The smallest index >= `pos` that starts a character or is the end.
inline std::size_t ceil_boundary(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_continuation(s[pos])) ++pos;
  return pos < s.size() ? pos : s.size();
}

/// At most `n` leading bytes of `s`, cut at a character boundary.
inline std::string_view head(std::string_view s, std::size_t n) { return s.substr(0, floor_boundary(s, n)); }

/// At most `n` trailing bytes of `s`, starting at a character boundary.
inline std::string_view tail(std::string_view s, std::size_t n) {
  if (n >= s.size()) return s;
  return s.substr(ceil_boundary(s, s.size() - n));
}

/// `s` without trailing ASCII whitespace (space, \t, \n, \r, \f, \v) — JavaScript's trimEnd for
/// the characters that matter in files.
inline std::string_view trim_end(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0) {
    char c = s[n - 1];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') break;
    --n;
  }
  return s.substr(0, n);
}

/// True when `s` is empty or only ASCII whitespace.
inline bool is_blank(std::string_view s) { return trim_end(s).empty(); }

}  // namespace pincer::agent::text
