// Internals of the JSON5 parser shared by json5.cpp (the parser), json5_text.cpp (the
// character-level pieces) and json5_position.cpp (line:col). Not for use outside
// src/core/json5*.cpp. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json5.h"
#include "core/result.h"

namespace pincer::json5::detail_json5 {

// ---- character classes (JSON5 / ECMAScript 5.1) ----------------------------------------------
bool is_ascii_digit(char32_t cp);
bool is_hex_digit(char32_t cp);
/// Value 0..15 of a hex digit (precondition: is_hex_digit(cp)).
int hex_value(char32_t cp);
/// ECMAScript IdentifierStart: ASCII letters, '$', '_'; non-ASCII approximated (see json5.cpp).
bool is_identifier_start(char32_t cp);
/// ECMAScript IdentifierPart: IdentifierStart, digits, combining marks, ZWNJ, ZWJ.
bool is_identifier_part(char32_t cp);

// ---- text for messages ------------------------------------------------------------------------
/// Upper-case hex of `value`, at least `min_digits` digits.
std::string hex_string(std::uint32_t value, int min_digits);
/// How a character is named in a message: 'x' for printable ASCII, U+000A for controls and
/// blanks, and 'é' (U+00E9) for other code points.
std::string describe_char(char32_t cp);
/// A piece of text (valid UTF-8) quoted for a message: at most 32 code points, controls as \u
/// escapes, "..." when cut.
std::string snippet(std::string_view text);

// ---- numbers ----------------------------------------------------------------------------------
/// A decimal literal (digits, '.', exponent; no sign) out of double's range: +-Infinity or +-0
/// from its decimal order of magnitude.
double saturate(std::string_view digits, bool negative);

// ---- positions (json5_position.cpp) -----------------------------------------------------------
/// A key repeated in one object, as the parser records it: byte offsets of the repeat and of the
/// key's first occurrence in that object.
struct KeyRepeat {
  std::string key;
  std::size_t offset = 0;
  std::size_t first_offset = 0;
};
/// The repeats with their offsets turned into 1-based line:col (one pass over `text`).
std::vector<DuplicateKey> duplicate_keys(std::string_view text, const std::vector<KeyRepeat>& repeats);
/// Error{"JSON5_PARSE", "<source>:<line>:<col>: <what>"} for byte `offset` of `text` (no
/// "<source>:" when source is empty).
Error make_error(std::string_view text, std::string_view source, std::size_t offset, const std::string& what);

}  // namespace pincer::json5::detail_json5
