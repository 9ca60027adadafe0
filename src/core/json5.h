// JSON5 parser (https://spec.json5.org/) producing nlohmann::json. Used for pincer.json and any
// user-edited config (SPEC "Config"; issue #2 "Core"). Hand-written because no maintained C++ JSON5
// library is packaged for Debian; fuzzed by fuzz/json5_fuzz.cpp.
//
// Accepts everything JSON5 allows: // and /* */ comments, trailing commas, unquoted (ECMAScript
// identifier) and single-quoted keys, single-quoted strings, line continuations in strings
// (backslash + newline), all JSON5 escapes (\x, \u incl. surrogate pairs, \0, \v ...), hex integers
// (0x...), leading/trailing decimal points, explicit '+', Infinity/-Infinity/NaN.
//
// Numbers: integers that fit become int64 (or uint64 when > INT64_MAX), others double. Duplicate
// keys: the last one wins (as in JSON.parse and OpenClaw's JSON5.parse); the three-argument parse()
// also lists them, so a config loader can warn. Nesting deeper than kMaxDepth is an error (no stack
// overflow on hostile input).
//
// Stricter or more precise than JavaScript where UTF-8 forces a choice: invalid UTF-8 anywhere in
// the input and escaped lone surrogates (\uD800 without its pair) are errors rather than U+FFFD.
// Decimals beyond double's range become +-Infinity or +-0 (as JSON.parse); hex integers must fit
// in 64 bits. `\q` and other escapes without a special meaning stand for the character itself, as
// the spec says; \1-\9 and \0 before a digit (octal) are errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::json5 {

/// Maximum nesting of arrays/objects accepted.
inline constexpr int kMaxDepth = 512;

/// Parses one JSON5 value (surrounded by optional whitespace/comments) from `text` (UTF-8).
/// On failure returns Error{code:"JSON5_PARSE", message:"<source>:<line>:<col>: <what>"} where
/// line and col are 1-based (col counts Unicode code points) and `source` is omitted (with its
/// colon) when empty. Never throws.
Result<nlohmann::json> parse(std::string_view text, std::string_view source = {});

/// A key written more than once in one object: the value parsed keeps the last one.
struct DuplicateKey {
  std::string key;             ///< the key as decoded (escapes resolved)
  std::size_t line = 0;        ///< 1-based line of the repeated key (col as parse()'s errors: code points)
  std::size_t col = 0;
  std::size_t first_line = 0;  ///< 1-based line and column of the same key's first occurrence there
  std::size_t first_col = 0;
};

/// parse(text, source), and every repeated key appended to `*duplicates` (not null) in the order
/// the repeats appear; nothing is appended when parsing fails. The value is the same as parse()'s.
Result<nlohmann::json> parse(std::string_view text, std::string_view source, std::vector<DuplicateKey>* duplicates);

/// JSON5 LineTerminator: LF, CR, U+2028, U+2029 (shared by the parser and json5_edit).
bool is_line_terminator(char32_t cp);
/// JSON5 WhiteSpace plus LineTerminator: ASCII blanks, NBSP, BOM and the Unicode Zs category.
bool is_space(char32_t cp);

}  // namespace pincer::json5
