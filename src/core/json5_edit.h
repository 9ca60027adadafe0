// Editing JSON5 source text in place (issue #4 §1): change one value of a user-edited file such as
// pincer.json while keeping every comment, blank line, key order, quoting and indentation outside
// the edited span exactly as the user wrote them. Used by `pincer config set|unset` and by
// `pincer onboard` when it re-runs over an existing file.
//
// Paths name one value of the document:
//   path    := first ( "." key | "[" index "]" | "[" quoted "]" )*
//   first   := key | "[" index "]" | "[" quoted "]"
//   key     := one or more characters other than ".", "[" and "]"   (taken literally, no escapes)
//   index   := decimal array index without leading zeros, e.g. 0, 12
//   quoted  := a JSON5 string literal, for keys holding ".", "[" or "]": models.providers["a.b"]
// Examples: `gateway.auth.token`, `agents.list[0].id`, `models.providers["my.lab"].baseUrl`.
//
// Semantics (applied to the parsed document; "last wins" for duplicate keys, as json5::parse):
//   set:   walks the path; a missing object key is created, together with every missing object
//          below it ({} for a key segment; [] for an index segment, which must then be 0); an
//          array index equal to the array's size appends. Walking through a value that is not an
//          object (for a key) or not an array (for an index) is an error, as is an index past
//          the end. The value at the path is replaced by `value`.
//   unset: removes the member (every duplicate of it) or the array element at the path; a path
//          that does not exist is an error (code PATH_NOT_FOUND).
//
// Formatting of the edit:
//   * A replaced value is written in place of the old value's text (comments inside the old
//     value go with it). Objects and non-empty arrays of containers are written over several
//     lines, indented one step below the line the value starts on; arrays of scalars on one line.
//   * An inserted member goes after the last member of the object, on its own line with the
//     indentation of its siblings (or inline, ", key: value", when the object is written on one
//     line). An empty object `{}` is opened onto several lines. The object's trailing-comma style
//     is kept: a comma is added after the inserted member only when the previous last member had
//     one.
//   * Style is read from the document: indentation step (2 spaces when unknown), unquoted keys
//     when most keys are unquoted, single-quoted strings when most strings are, trailing commas in
//     newly written multi-line containers when most multi-line containers have them.
//   * A removed member takes its comma and, when it starts its own line, the whole line(s) and
//     the comment lines directly above it (up to a blank line); removing the last member of an
//     object without a trailing comma also drops the comma before it.
//
// Guarantee: the returned text parses with json5::parse to exactly the edited document (types of
// numbers included; NaN compares equal to NaN). This is checked on every call; if the check ever
// fails the call returns Error{"EDIT_FAILED"} instead of text.
//
// Errors (Error::code; the message names the path and the reason, on one line):
//   "JSON5_PARSE"    the input text is not JSON5 (json5::parse's message)
//   "PATH_INVALID"   the path does not follow the syntax above, e.g. `a..b: empty key at offset 2`
//   "PATH_NOT_FOUND" unset: nothing at the path, e.g. `gateway.auth.token: not set`
//   "PATH_CONFLICT"  set: the path goes through a value of the wrong kind or past an array's end,
//                    e.g. `gateway.port.x: gateway.port is a number, not an object`
//   "INVALID_VALUE"  set: `value` holds a string that is not valid UTF-8
//   "EDIT_FAILED"    internal: the edit could not be made safely (never expected)
// Pure functions; never throw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::json5 {

/// One step of a path: an object key or an array index.
using PathSegment = std::variant<std::string, std::size_t>;
using Path = std::vector<PathSegment>;

/// Parses a path (syntax above). Errors: "PATH_INVALID", message `<path>: <why> at offset <n>`.
Result<Path> parse_path(std::string_view text);

/// The canonical text of a path: keys joined by ".", indexes as "[n]", keys that are empty or
/// hold ".", "[", "]" as ["..."] (JSON string syntax). parse_path(format_path(p)) == p.
std::string format_path(const Path& path);

/// The value at `path` in `doc`, or nullptr when absent (or when the path goes through a value
/// of another kind).
const nlohmann::json* find(const nlohmann::json& doc, const Path& path);

/// `doc` with `value` set at `path` (semantics above): the document that set() must produce.
/// Errors: "PATH_CONFLICT", "PATH_INVALID" (empty path).
Result<nlohmann::json> apply_set(nlohmann::json doc, const Path& path, const nlohmann::json& value);

/// `doc` without the value at `path`. Errors: "PATH_NOT_FOUND", "PATH_INVALID" (empty path).
Result<nlohmann::json> apply_unset(nlohmann::json doc, const Path& path);

/// Sets `path` to `value` in the JSON5 source `text`, returning the new text.
Result<std::string> set(std::string_view text, const Path& path, const nlohmann::json& value);
Result<std::string> set(std::string_view text, std::string_view path, const nlohmann::json& value);

/// Removes the value at `path` from the JSON5 source `text`, returning the new text.
Result<std::string> unset(std::string_view text, const Path& path);
Result<std::string> unset(std::string_view text, std::string_view path);

/// 1-based line in the JSON5 source `text` where the value at `path` is written (its key's line
/// for an object member; of a key written twice, the later one, which parse() keeps); the
/// value's own line for the empty path; 0 when `path` is not in `text` or `text` does not scan.
std::size_t line_of(std::string_view text, const Path& path);

/// Deep equality that also compares number kinds (integer vs unsigned vs float) and treats NaN as
/// equal to NaN — the equality the guarantee above is checked with.
bool same_json(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace pincer::json5
