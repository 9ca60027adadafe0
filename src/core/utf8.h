// UTF-8 validity for bytes that come from outside (command-line arguments, standard input,
// terminal lines, environment, files) before they are put into JSON: nlohmann::json throws
// type_error 316 when it serialises a string that is not well-formed UTF-8, so every path that
// turns user bytes into a JSON document checks them here first and either refuses them with a
// message naming where the bad byte is, or replaces them deliberately (replace_invalid_utf8).
//
// Well-formed means RFC 3629: no overlong forms, no UTF-16 surrogates (U+D800..U+DFFF), nothing
// above U+10FFFF, no truncated sequence. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pincer::utf8 {

/// Length in bytes (1..4) of the well-formed sequence that starts at bytes[i], or 0 when the byte
/// there does not begin one (a continuation byte, an overlong form, a surrogate, beyond U+10FFFF,
/// or a sequence cut short by the end). Precondition: i < bytes.size().
std::size_t sequence_length(std::string_view bytes, std::size_t i);

/// Byte offset of the first byte that does not begin a well-formed sequence, or nullopt when all
/// of `bytes` is well-formed UTF-8.
std::optional<std::size_t> first_invalid(std::string_view bytes);

inline bool is_valid(std::string_view bytes) { return !first_invalid(bytes).has_value(); }

/// One decoded code point and the number of bytes (1..4) it took.
struct CodePoint {
  char32_t cp;
  std::size_t len;
};

/// The code point at bytes[pos] (precondition: pos < bytes.size()). Lenient, for scanners that
/// must make progress on any input: a byte that does not begin a well-formed sequence is returned
/// as a code point of its own (its byte value, len 1). On well-formed text it is exact.
CodePoint decode_at(std::string_view bytes, std::size_t pos);

/// Appends `cp` as UTF-8; NUL, a UTF-16 surrogate or a value above U+10FFFF becomes U+FFFD.
void append(std::string& out, char32_t cp);

/// Appends `cp` as UTF-8 as it is, NUL included (a JSON5 "\u0000" is a NUL character).
/// Precondition: cp <= U+10FFFF and not a surrogate (the caller has decoded or combined it).
void append_unchecked(std::string& out, char32_t cp);

/// `bytes` with every byte that does not begin a well-formed sequence replaced by U+FFFD (one
/// replacement per bad byte, as nlohmann's error_handler_t::replace and JavaScript's decoder).
std::string replace_invalid(std::string_view bytes);

/// "invalid UTF-8 at byte 3 (0xff)" for `bytes` (offset 0-based), or "" when it is valid. For
/// messages such as "--message: invalid UTF-8 at byte 3 (0xff)".
std::string describe_invalid(std::string_view bytes);

/// The first string (or object key) in `value` that is not well-formed UTF-8, as a JSON-pointer-
/// like path ("" = the value itself, "/params/message", "/items/2"), with describe_invalid's text;
/// nullopt when every string is valid (then value.dump() cannot throw).
struct InvalidString {
  std::string path;
  std::string problem;
};
std::optional<InvalidString> find_invalid(const nlohmann::json& value);

}  // namespace pincer::utf8
