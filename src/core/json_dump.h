// Fast compact JSON serialization for the per-turn hot path (provider request bodies, prompt-size
// estimates). nlohmann's serializer validates UTF-8 through a per-byte state machine and appends
// one byte at a time; a turn serializes the whole history (tens of KB) more than once, so it was
// the largest CPU cost of a turn. These functions walk the same tree and copy runs of plain bytes
// at once, and produce byte for byte what
//   j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
// produces (checked by the `json_dump_fuzz` differential fuzzer and unit tests).
//
// Strings that are not valid UTF-8, floating-point numbers and binary values are handed to
// nlohmann itself (rare in requests), so its exact formatting and its U+FFFD replacement rules
// apply unchanged. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::json_dump {

/// Appends the compact serialization of `j` to `out`.
void append_compact(std::string& out, const nlohmann::json& j);

/// The compact serialization of `j` (see the file comment for the exact format).
std::string compact(const nlohmann::json& j);

/// compact(j).size(), in bytes, without building the string.
std::size_t compact_size(const nlohmann::json& j);

/// Makes `j` what parsing compact(j) with nlohmann gives back, so that a caller holding both the
/// dump and the tree need not parse the dump: non-negative signed integers become unsigned (as
/// the parser reads them). Returns false (with `j` partly converted) when only the dump can say
/// what the parser would read: a string or key that is not valid UTF-8 (replaced by U+FFFD), a
/// floating-point number that is not finite (written as null), a binary value, or arrays and
/// objects nested deeper than `max_depth` (a reader's limit; store::kMaxJsonNesting).
bool as_parsed(nlohmann::json& j, std::size_t max_depth = 512);

/// Appends `s` as a JSON string literal (quoted and escaped as nlohmann does; invalid UTF-8
/// replaced as nlohmann's `replace` handler does).
void append_string(std::string& out, std::string_view s);

/// The JSON string literal of the last string given (append_string's output), kept until a
/// different string is given: for a long text sent again and again, such as a session's system
/// prompt in every request body (a compare instead of an escaping pass). One per thread (not
/// synchronised).
class StringMemo {
 public:
  const std::string& literal(std::string_view s);

 private:
  std::string text_, literal_;
  bool valid_ = false;
};

/// Writes compact JSON straight into a string, for a body that is built once and sent: no tree
/// of nodes is allocated, copied and freed on the way (a request body repeats the whole
/// history). Commas are placed by the writer. Keys are written in the order they are given; a
/// caller whose output must equal a nlohmann dump writes them in sorted order. Misuse (a value
/// without a key inside an object, unbalanced ends) is not detected: callers are fixed code.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  Writer& begin_object();
  Writer& end_object();
  Writer& begin_array();
  Writer& end_array();
  /// The key of the next value, inside an object.
  Writer& key(std::string_view k);
  Writer& string(std::string_view s);
  Writer& integer(std::int64_t v);
  Writer& boolean(bool b);
  Writer& null();
  /// A whole subtree, serialized as append_compact() does.
  Writer& value(const nlohmann::json& j);
  /// A value already serialized as compact JSON (e.g. by compact()), copied as it is.
  Writer& raw(std::string_view json_text);

 private:
  void before_value();
  std::string& out_;
  std::vector<char> first_;  // per open container: no element written yet (1/0; not vector<bool>: hot)
  bool after_key_ = false;
};

}  // namespace pincer::json_dump
