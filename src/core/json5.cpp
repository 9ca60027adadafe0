// JSON5 parser (contract in json5.h; grammar at https://spec.json5.org/).
// Character classes, UTF-8 encoding, message text and out-of-range decimals: json5_text.cpp.
//
// How it works: the whole input is first checked to be well-formed UTF-8, so the parser proper can
// decode a code point anywhere without re-validating. A recursive-descent Parser then walks the
// bytes. Every parse_* function returns false after recording the first error (no exceptions on
// the normal path), and a byte offset is turned into line:col only when an error is reported.
//
// Choices the spec leaves to us:
// - An escaped lone surrogate (\uD800 not followed by \uDC00-\uDFFF, or a lone \uDC00) is an error:
//   UTF-8 cannot hold it, and silently substituting U+FFFD would hide a mistake in the config.
// - Unquoted keys follow ECMAScript exactly for ASCII. For other code points we accept anything but
//   whitespace, line terminators and the main punctuation/symbol blocks rather than carrying Unicode
//   category tables: keys are config names, and being slightly lenient there is harmless.
// - `\q` (any character without a special meaning) stands for itself, as the spec's
//   NonEscapeCharacter says; only \1-\9, \0 before a digit and malformed \x/\u are invalid escapes.
// - Integers too large for (u)int64 become doubles; decimals beyond double's range become
//   +-Infinity or +-0 as in JSON.parse. Hex integers must fit 64 bits (there is no useful rounding).
// - Invalid UTF-8 anywhere (comments included) is reported before any syntax error.
#include "core/json5.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/json5_internal.h"
#include "core/utf8.h"

namespace pincer::json5 {
namespace detail_json5_parser {

using nlohmann::json;
using namespace detail_json5;
using utf8::CodePoint;
using utf8::decode_at;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  /// Parses the whole input as one value. On failure returns false; see error_offset/error_what.
  bool parse_document(json& out) {
    if (const auto bad = utf8::first_invalid(text_)) {
      return fail(*bad, "invalid UTF-8 byte 0x" + hex_string(byte_at(*bad), 2));
    }
    if (!skip_space()) return false;
    if (!parse_value(out, 0)) return false;
    if (!skip_space()) return false;
    if (!at_end()) return fail_unexpected("end of input");
    return true;
  }

  std::size_t error_offset() const { return error_offset_; }
  const std::string& error_what() const { return error_what_; }

  /// Record repeated keys (off by default: the plain parse() pays nothing for it).
  void collect_repeats() { collect_repeats_ = true; }
  const std::vector<KeyRepeat>& repeats() const { return repeats_; }

 private:
  // --- cursor ---

  bool at_end() const { return pos_ >= text_.size(); }
  unsigned char byte_at(std::size_t i) const { return static_cast<unsigned char>(text_[i]); }
  /// The byte at pos_ + ahead, or -1 past the end (so comparisons with characters are safe).
  int peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? byte_at(pos_ + ahead) : -1;
  }
  CodePoint current() const { return decode_at(text_, pos_); }

  // --- errors ---

  bool fail(std::size_t offset, std::string what) {
    error_offset_ = offset;
    error_what_ = std::move(what);
    return false;
  }

  /// "unexpected character X (expected <expected>)" at the cursor, or "unexpected end of input".
  bool fail_unexpected(const std::string& expected) {
    if (at_end()) return fail(pos_, "unexpected end of input (expected " + expected + ")");
    return fail(pos_, "unexpected character " + describe_char(current().cp) + " (expected " +
                          expected + ")");
  }

  // --- whitespace and comments ---

  /// Skips whitespace and comments. Fails only on an unterminated block comment. A '/' that does
  /// not start a comment is left for the caller to report in its own context.
  bool skip_space() {
    while (!at_end()) {
      if (peek() == '/' && peek(1) == '/') {
        skip_line_comment();
      } else if (peek() == '/' && peek(1) == '*') {
        if (!skip_block_comment()) return false;
      } else {
        const CodePoint c = current();
        if (!is_space(c.cp)) return true;
        pos_ += c.len;
      }
    }
    return true;
  }

  void skip_line_comment() {
    pos_ += 2;
    while (!at_end()) {
      const CodePoint c = current();
      if (is_line_terminator(c.cp)) return;  // the terminator itself is whitespace
      pos_ += c.len;
    }
  }

  bool skip_block_comment() {
    const std::size_t start = pos_;
    const std::size_t end = text_.find("*/", pos_ + 2);
    if (end == std::string_view::npos) return fail(start, "unterminated comment (missing '*/')");
    pos_ = end + 2;
    return true;
  }

  // --- values ---

  /// `depth` is the number of arrays/objects enclosing this value.
  bool parse_value(json& out, int depth) {
    if (at_end()) return fail_unexpected("a value");
    switch (peek()) {
      case '{': return parse_object(out, depth);
      case '[': return parse_array(out, depth);
      case '"': case '\'': {
        std::string text;
        if (!parse_string(text)) return false;
        out = std::move(text);
        return true;
      }
      case '+': case '-': case '.': case '0': case '1': case '2': case '3': case '4': case '5':
      case '6': case '7': case '8': case '9':
        return parse_number(out);
      default:
        if (is_identifier_start(current().cp)) return parse_word(out);
        return fail_unexpected("a value");
    }
  }

  bool enter_container(int depth) {
    if (depth < kMaxDepth) return true;
    return fail(pos_, "nesting too deep (more than " + std::to_string(kMaxDepth) + " levels)");
  }

  bool parse_array(json& out, int depth) {
    if (!enter_container(depth)) return false;
    ++pos_;  // '['
    out = json::array();
    while (true) {
      if (!skip_space()) return false;
      if (peek() == ']') break;  // empty array, or a trailing comma
      json element;
      if (!parse_value(element, depth + 1)) return false;
      out.push_back(std::move(element));
      if (!skip_space()) return false;
      if (peek() == ']') break;
      if (peek() != ',') return fail_unexpected("',' or ']'");
      ++pos_;
    }
    ++pos_;  // ']'
    return true;
  }

  bool parse_object(json& out, int depth) {
    if (!enter_container(depth)) return false;
    ++pos_;  // '{'
    out = json::object();
    std::map<std::string, std::size_t> first_offsets;  // filled only when collecting repeats
    while (true) {
      if (!skip_space()) return false;
      if (peek() == '}') break;  // empty object, or a trailing comma
      std::string key;
      const std::size_t key_offset = pos_;
      if (!parse_key(key)) return false;
      if (collect_repeats_) note_key(first_offsets, key, key_offset);
      if (!skip_space()) return false;
      if (peek() != ':') return fail_unexpected("':' after key " + snippet(key));
      ++pos_;
      if (!skip_space()) return false;
      json member;
      if (!parse_value(member, depth + 1)) return false;
      out[key] = std::move(member);  // duplicate keys: the last one wins
      if (!skip_space()) return false;
      if (peek() == '}') break;
      if (peek() != ',') return fail_unexpected("',' or '}'");
      ++pos_;
    }
    ++pos_;  // '}'
    return true;
  }

  void note_key(std::map<std::string, std::size_t>& first_offsets, const std::string& key, std::size_t offset) {
    const auto [it, fresh] = first_offsets.emplace(key, offset);
    if (!fresh) repeats_.push_back(KeyRepeat{key, offset, it->second});
  }

  bool parse_key(std::string& key) {
    if (peek() == '"' || peek() == '\'') return parse_string(key);
    if (peek() == '\\' || (!at_end() && is_identifier_start(current().cp))) {
      return parse_identifier_name(key);
    }
    return fail_unexpected("a key or '}'");
  }

  /// true / false / null / Infinity / NaN; any other bare word is an error.
  bool parse_word(json& out) {
    const std::size_t start = pos_;
    const std::string_view word = scan_word();
    if (word == "true") {
      out = true;
    } else if (word == "false") {
      out = false;
    } else if (word == "null") {
      out = nullptr;
    } else if (word == "Infinity") {
      out = std::numeric_limits<double>::infinity();
    } else if (word == "NaN") {
      out = std::numeric_limits<double>::quiet_NaN();
    } else {
      return fail(start, "unexpected identifier " + snippet(word) +
                             " (expected a value; strings must be quoted)");
    }
    return true;
  }

  /// Consumes an identifier without escapes (for keyword values) and returns its text.
  std::string_view scan_word() {
    const std::size_t start = pos_;
    while (!at_end()) {
      const CodePoint c = current();
      if (!(pos_ == start ? is_identifier_start(c.cp) : is_identifier_part(c.cp))) break;
      pos_ += c.len;
    }
    return text_.substr(start, pos_ - start);
  }

  // --- unquoted keys ---

  /// ECMAScript IdentifierName, with \uXXXX escapes decoded into `out`.
  bool parse_identifier_name(std::string& out) {
    for (bool first = true; !at_end(); first = false) {
      if (peek() == '\\') {
        if (!parse_identifier_escape(out, first)) return false;
        continue;
      }
      const CodePoint c = current();
      if (!(first ? is_identifier_start(c.cp) : is_identifier_part(c.cp))) break;
      out.append(text_.substr(pos_, c.len));
      pos_ += c.len;
    }
    return true;
  }

  bool parse_identifier_escape(std::string& out, bool first) {
    const std::size_t start = pos_;
    ++pos_;  // '\'
    if (peek() != 'u') return fail(start, "invalid escape in key (only \\uXXXX is allowed)");
    ++pos_;
    char32_t cp = 0;
    if (!read_hex(4, cp)) return fail(start, "invalid escape '\\u' (expected 4 hex digits)");
    if (!(first ? is_identifier_start(cp) : is_identifier_part(cp))) {
      return fail(start, "invalid escape '\\u" + hex_string(cp, 4) +
                             "' in key (not an identifier character; quote the key)");
    }
    utf8::append_unchecked(out, cp);
    return true;
  }

  // --- strings ---

  bool parse_string(std::string& out) {
    const std::size_t start = pos_;
    const char quote = static_cast<char>(peek());
    ++pos_;
    while (true) {
      if (at_end()) return fail(start, "unterminated string");
      const int c = peek();
      if (c == quote) break;
      if (c == '\n' || c == '\r') {
        return fail(pos_, "unterminated string (a line break inside a string must be escaped)");
      }
      if (c == '\\') {
        if (!parse_escape(out, start)) return false;
        continue;
      }
      // Copy a run of plain bytes at once. Multi-byte UTF-8 never contains ASCII bytes, and
      // U+2028/U+2029 are allowed unescaped in JSON5 strings.
      const char stops[] = {quote, '\\', '\n', '\r'};
      std::size_t end = text_.find_first_of(std::string_view(stops, sizeof stops), pos_);
      if (end == std::string_view::npos) end = text_.size();
      out.append(text_.substr(pos_, end - pos_));
      pos_ = end;
    }
    ++pos_;  // closing quote
    return true;
  }

  /// One escape sequence inside a string; `string_start` locates an unterminated string.
  bool parse_escape(std::string& out, std::size_t string_start) {
    const std::size_t start = pos_;
    ++pos_;  // '\'
    if (at_end()) return fail(string_start, "unterminated string");
    const int c = peek();
    switch (c) {
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '0':
        if (is_ascii_digit(static_cast<char32_t>(peek(1)))) {
          return fail(start, "invalid escape '\\0" + std::string(1, static_cast<char>(peek(1))) +
                                 "' (octal escapes are not allowed)");
        }
        out.push_back('\0');
        break;
      case 'x': {
        ++pos_;
        char32_t cp = 0;
        if (!read_hex(2, cp)) return fail(start, "invalid escape '\\x' (expected 2 hex digits)");
        utf8::append_unchecked(out, cp);
        return true;
      }
      case 'u': return parse_unicode_escape(out);
      case '\r':
        if (peek(1) == '\n') ++pos_;  // CRLF is one line continuation
        break;
      case '\n': break;  // line continuation: contributes nothing
      default: {
        if (is_ascii_digit(static_cast<char32_t>(c))) {
          return fail(start, "invalid escape '\\" + std::string(1, static_cast<char>(c)) +
                                 "' (octal escapes are not allowed)");
        }
        // Any other character stands for itself (\' \" \\ \/ \q ...); U+2028/U+2029 continue
        // the line like a newline does.
        const CodePoint cp = current();
        if (!is_line_terminator(cp.cp)) out.append(text_.substr(pos_, cp.len));
        pos_ += cp.len;
        return true;
      }
    }
    ++pos_;
    return true;
  }

  /// \uXXXX after the backslash and 'u' have been seen, pairing UTF-16 surrogates.
  bool parse_unicode_escape(std::string& out) {
    const std::size_t start = pos_ - 1;  // the backslash
    ++pos_;                              // 'u'
    char32_t cp = 0;
    if (!read_hex(4, cp)) return fail(start, "invalid escape '\\u' (expected 4 hex digits)");
    const auto lone = [&] {
      return fail(start, "invalid escape '\\u" + hex_string(cp, 4) + "' (lone surrogate)");
    };
    if (cp >= 0xDC00 && cp <= 0xDFFF) return lone();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const std::size_t high_end = pos_;
      char32_t low = 0;
      if (peek() != '\\' || peek(1) != 'u') return lone();
      pos_ += 2;
      if (!read_hex(4, low) || low < 0xDC00 || low > 0xDFFF) {
        pos_ = high_end;
        return lone();
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    utf8::append_unchecked(out, cp);
    return true;
  }

  /// Reads exactly `count` hex digits into `value`; on failure the cursor position is unspecified.
  bool read_hex(int count, char32_t& value) {
    value = 0;
    for (int i = 0; i < count; ++i) {
      const int c = peek();
      if (c < 0 || !is_hex_digit(static_cast<char32_t>(c))) return false;
      value = value * 16 + static_cast<char32_t>(hex_value(static_cast<char32_t>(c)));
      ++pos_;
    }
    return true;
  }

  // --- numbers ---

  /// The number-looking text starting at `start`, for messages.
  std::string number_snippet(std::size_t start) const {
    std::size_t end = start;
    while (end < text_.size()) {
      const unsigned char c = byte_at(end);
      const bool sign_ok = (c == '+' || c == '-') && (end == start || (byte_at(end - 1) | 0x20) == 'e');
      const bool letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
      if (!(sign_ok || letter || c == '.' || is_ascii_digit(c))) break;
      ++end;
    }
    return snippet(text_.substr(start, end - start));
  }

  bool fail_number(std::size_t start, const std::string& why) {
    return fail(start, "invalid number " + number_snippet(start) + " (" + why + ")");
  }

  bool parse_number(json& out) {
    const std::size_t start = pos_;
    const bool negative = peek() == '-';
    if (peek() == '+' || peek() == '-') ++pos_;
    const int c = peek();
    if (c == 'I' || c == 'N') return parse_signed_word(out, start, negative);
    if (c == '0' && (peek(1) == 'x' || peek(1) == 'X')) return parse_hex(out, start, negative);
    if (!is_ascii_digit(static_cast<char32_t>(c)) && c != '.') {
      return fail_unexpected("a number after '" + std::string(1, text_[start]) + "'");
    }
    return parse_decimal(out, start, negative);
  }

  /// +Infinity, -Infinity, +NaN, -NaN.
  bool parse_signed_word(json& out, std::size_t start, bool negative) {
    const std::string_view word = scan_word();
    if (word == "Infinity") {
      const double inf = std::numeric_limits<double>::infinity();
      out = negative ? -inf : inf;
      return true;
    }
    if (word == "NaN") {
      out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    return fail(start, "invalid number " + snippet(text_.substr(start, pos_ - start)) +
                           " (expected Infinity or NaN after the sign)");
  }

  bool parse_hex(json& out, std::size_t start, bool negative) {
    pos_ += 2;  // "0x"
    const std::size_t digits_start = pos_;
    std::uint64_t magnitude = 0;
    bool overflow = false;
    while (!at_end() && is_hex_digit(byte_at(pos_))) {
      if (magnitude > (std::numeric_limits<std::uint64_t>::max() >> 4)) overflow = true;
      magnitude = (magnitude << 4) | static_cast<std::uint64_t>(hex_value(byte_at(pos_)));
      ++pos_;
    }
    if (pos_ == digits_start) return fail_number(start, "expected hex digits after '0x'");
    constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;  // |INT64_MIN|
    if (overflow || (negative && magnitude > kMinMagnitude)) {
      return fail_number(start, "does not fit in 64 bits");
    }
    if (!check_number_end()) return false;
    if (negative) {
      out = magnitude == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                       : -static_cast<std::int64_t>(magnitude);
    } else if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      out = static_cast<std::int64_t>(magnitude);
    } else {
      out = magnitude;
    }
    return true;
  }

  std::size_t skip_digits() {
    const std::size_t start = pos_;
    while (!at_end() && is_ascii_digit(byte_at(pos_))) ++pos_;
    return pos_ - start;
  }

  /// Decimal literal: (0 | [1-9][0-9]*)? ('.' [0-9]*)? ([eE] [+-]? [0-9]+)?, with at least one
  /// mantissa digit. The sign, if any, has already been consumed.
  bool parse_decimal(json& out, std::size_t start, bool negative) {
    const std::size_t int_start = pos_;
    std::size_t mantissa_digits = skip_digits();
    if (mantissa_digits > 1 && byte_at(int_start) == '0') {
      return fail_number(start, "leading zeros are not allowed");
    }
    bool is_integer = true;
    if (peek() == '.') {
      is_integer = false;
      ++pos_;
      mantissa_digits += skip_digits();
    }
    if (mantissa_digits == 0) return fail_number(start, "expected a digit");
    if (peek() == 'e' || peek() == 'E') {
      is_integer = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (skip_digits() == 0) return fail_number(start, "expected digits in the exponent");
    }
    if (!check_number_end()) return false;
    // from_chars takes '-' but not '+'.
    const std::size_t text_start = negative ? start : int_start;
    store_decimal(out, text_.substr(text_start, pos_ - text_start), is_integer, negative);
    return true;
  }

  /// Converts already validated decimal text: int64, else uint64, else double.
  static void store_decimal(json& out, std::string_view text, bool is_integer, bool negative) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (is_integer) {
      std::int64_t as_signed = 0;
      if (std::from_chars(first, last, as_signed).ec == std::errc()) {
        out = as_signed;
        return;
      }
      std::uint64_t as_unsigned = 0;
      if (!negative && std::from_chars(first, last, as_unsigned).ec == std::errc()) {
        out = as_unsigned;
        return;
      }
    }
    double value = 0;
    const auto result = std::from_chars(first, last, value);
    out = result.ec == std::errc() ? value : saturate(negative ? text.substr(1) : text, negative);
  }

  /// A number must not run straight into an identifier character (`5x`, `0x1g`, `1e5e`), as in
  /// ECMAScript. Other trailing characters (`1.5.3`) are left for the caller to report.
  bool check_number_end() {
    if (at_end()) return true;
    const char32_t cp = current().cp;
    if (!is_identifier_part(cp)) return true;
    return fail(pos_, "unexpected character " + describe_char(cp) + " after number");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t error_offset_ = 0;
  std::string error_what_;
  bool collect_repeats_ = false;
  std::vector<KeyRepeat> repeats_;
};


Result<nlohmann::json> parse_collecting(std::string_view text, std::string_view source,
                                        std::vector<DuplicateKey>* duplicates) {
  // Nothing may escape: allocation failures (or a bug surfacing as an exception) become errors.
  try {
    Parser parser(text);
    if (duplicates != nullptr) parser.collect_repeats();
    nlohmann::json value;
    if (!parser.parse_document(value)) return make_error(text, source, parser.error_offset(), parser.error_what());
    if (duplicates != nullptr) {
      for (auto& d : duplicate_keys(text, parser.repeats())) duplicates->push_back(std::move(d));
    }
    return value;
  } catch (const std::bad_alloc&) {
    return Error{"JSON5_PARSE", std::string(source) + (source.empty() ? "" : ": ") + "out of memory"};
  } catch (const std::exception& e) {
    return Error{"JSON5_PARSE",
                 std::string(source) + (source.empty() ? "" : ": ") + "internal error: " + e.what()};
  } catch (...) {
    return Error{"JSON5_PARSE", std::string(source) + (source.empty() ? "" : ": ") + "internal error"};
  }
}

}  // namespace detail_json5_parser

Result<nlohmann::json> parse(std::string_view text, std::string_view source) {
  return detail_json5_parser::parse_collecting(text, source, nullptr);
}

Result<nlohmann::json> parse(std::string_view text, std::string_view source, std::vector<DuplicateKey>* duplicates) {
  return detail_json5_parser::parse_collecting(text, source, duplicates);
}

}  // namespace pincer::json5
