// Measuring text in a platform's own units (LESSONS.md 6: limits are counted in the platform's
// units, not in bytes of our UTF-8). Strings are UTF-8; invalid bytes are tolerated.
//
//   Utf16      UTF-16 code units: Telegram's 4096 and Discord's 2000 (JavaScript string length,
//              which is also what OpenClaw's `text.length` counts). Code points above U+FFFF
//              (most emoji) count 2.
//   Utf8Bytes  bytes on the wire: IRC's 512-byte line, of which the channel passes the budget
//              left for the text.
//   CodePoints Unicode scalar values (platforms that count "characters").
//
// An invalid byte (a stray continuation byte, a truncated or overlong sequence, a surrogate or
// a value above U+10FFFF encoded in UTF-8) is one code point of its own: 1 UTF-16 unit, 1 byte.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace pincer::delivery {

enum class LengthUnit { Utf16, Utf8Bytes, CodePoints };

/// Length in bytes of the code point starting at s[i] (1..4), treating an invalid or truncated
/// sequence as a single byte. `i` must be < s.size().
std::size_t code_point_length(std::string_view s, std::size_t i);

/// The size in `unit` of one code point that takes `bytes` bytes in UTF-8 (as returned by
/// code_point_length).
std::size_t code_point_units(std::size_t bytes, LengthUnit unit);

/// Length of `s` in `unit`.
std::size_t measure(std::string_view s, LengthUnit unit);

/// True when `s` is valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

}  // namespace pincer::delivery
