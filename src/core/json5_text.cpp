// The character-level pieces of the JSON5 parser (json5.cpp): UTF-8 encoding, the JSON5 /
// ECMAScript character classes, characters and snippets as error messages show them, and the
// saturation of decimals beyond double's range. Contracts in json5_internal.h and json5.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "core/json5.h"
#include "core/json5_internal.h"
#include "core/utf8.h"

namespace pincer::json5 {

namespace detail_json5 {

namespace {

/// Non-ASCII code points that cannot be part of an identifier: whitespace and the main
/// punctuation/symbol blocks (an approximation of "not a letter, mark, digit or connector").
bool is_non_ascii_non_identifier(char32_t cp) {
  if (is_space(cp)) return true;
  if (cp >= 0x80 && cp <= 0xBF) return cp != 0xAA && cp != 0xB5 && cp != 0xBA;  // Latin-1 symbols
  if (cp == 0xD7 || cp == 0xF7) return true;                                      // × ÷
  if (cp >= 0x2010 && cp <= 0x205E) return cp != 0x203F && cp != 0x2040;  // punctuation (‿ ⁀ ok)
  if (cp >= 0x2190 && cp <= 0x2BFF) return true;    // arrows, math, technical, box, shapes, dingbats
  if (cp >= 0x3001 && cp <= 0x3004) return true;    // CJK comma, full stop, ditto, JIS mark
  if (cp >= 0x3008 && cp <= 0x3020) return true;    // CJK brackets and marks
  if (cp >= 0xE000 && cp <= 0xF8FF) return true;    // private use
  if (cp >= 0xFFF0 && cp <= 0xFFFF) return true;    // specials incl. U+FFFD
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return true;  // emoji and pictographs
  return cp >= 0xF0000;                             // supplementary private use
}

/// Combining marks that may continue but not start an identifier (most common block only).
bool is_combining_mark(char32_t cp) { return cp >= 0x0300 && cp <= 0x036F; }

}  // namespace

bool is_ascii_digit(char32_t cp) { return cp >= '0' && cp <= '9'; }

bool is_hex_digit(char32_t cp) {
  return is_ascii_digit(cp) || (cp >= 'a' && cp <= 'f') || (cp >= 'A' && cp <= 'F');
}

int hex_value(char32_t cp) {
  if (is_ascii_digit(cp)) return static_cast<int>(cp - '0');
  if (cp >= 'a' && cp <= 'f') return static_cast<int>(cp - 'a' + 10);
  return static_cast<int>(cp - 'A' + 10);
}

bool is_identifier_start(char32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '$' || cp == '_';
  return !is_non_ascii_non_identifier(cp) && !is_combining_mark(cp) && cp != 0x200C && cp != 0x200D;
}

bool is_identifier_part(char32_t cp) {
  if (is_identifier_start(cp) || is_ascii_digit(cp)) return true;
  return is_combining_mark(cp) || cp == 0x200C || cp == 0x200D;  // ZWNJ, ZWJ
}

std::string hex_string(std::uint32_t value, int min_digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const auto nibble = (value >> shift) & 0xF;
    if (!out.empty() || nibble != 0 || shift < min_digits * 4) out.push_back(kDigits[nibble]);
  }
  return out;
}

/// How a character is named in a message: 'x' for printable ASCII, U+000A for controls and
/// blanks, and 'é' (U+00E9) for other code points.
std::string describe_char(char32_t cp) {
  if (cp == '\'') return "\"'\"";
  if (cp > 0x20 && cp < 0x7F) return std::string("'") + static_cast<char>(cp) + "'";
  const std::string code = "U+" + hex_string(cp, 4);
  if (cp < 0xA0 || is_space(cp)) return code;
  std::string out = "'";
  utf8::append_unchecked(out, cp);
  return out + "' (" + code + ")";
}

/// Quotes a piece of text (valid UTF-8) for a message: cut short and with control characters
/// shown as \u escapes, so the message stays one readable line.
std::string snippet(std::string_view text) {
  constexpr std::size_t kMaxCodePoints = 32;
  std::string out = "'";
  std::size_t pos = 0;
  for (std::size_t count = 0; pos < text.size() && count < kMaxCodePoints; ++count) {
    const utf8::CodePoint c = utf8::decode_at(text, pos);
    if (c.cp < 0x20 || c.cp == 0x7F || is_line_terminator(c.cp)) {
      out += "\\u" + hex_string(c.cp, 4);
    } else {
      out.append(text.substr(pos, c.len));
    }
    pos += c.len;
  }
  return out + (pos < text.size() ? "...'" : "'");
}

/// Numbers out of double's range: from_chars gives no value, so decide between +-Infinity and +-0
/// from the decimal order of magnitude (the two cases are hundreds of orders apart).
double saturate(std::string_view digits, bool negative) {
  const std::size_t exp_at = digits.find_first_of("eE");
  const std::string_view mantissa = digits.substr(0, exp_at);
  const std::size_t point = mantissa.find('.');
  const std::string_view int_part = mantissa.substr(0, point);
  long long order = 0;
  if (!int_part.empty() && int_part != "0") {
    order = static_cast<long long>(int_part.size()) - 1;  // JSON5 has no leading zeros here
  } else if (point != std::string_view::npos) {
    const std::string_view frac = mantissa.substr(point + 1);
    order = -static_cast<long long>(std::min(frac.find_first_not_of('0'), frac.size())) - 1;
  }
  if (exp_at != std::string_view::npos) {
    long long exponent = 0;
    bool exp_negative = false;
    for (char c : digits.substr(exp_at + 1)) {
      if (c == '-') exp_negative = true;
      if (is_ascii_digit(static_cast<unsigned char>(c)) && exponent < 1'000'000'000) {
        exponent = exponent * 10 + (c - '0');
      }
    }
    order += exp_negative ? -exponent : exponent;
  }
  const double magnitude = order > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return negative ? -magnitude : magnitude;
}

}  // namespace detail_json5

bool is_line_terminator(char32_t cp) {
  return cp == '\n' || cp == '\r' || cp == 0x2028 || cp == 0x2029;
}

/// JSON5 WhiteSpace plus LineTerminator: ASCII blanks, NBSP, BOM and the Unicode Zs category.
bool is_space(char32_t cp) {
  switch (cp) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
    case 0x00A0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

}  // namespace pincer::json5
