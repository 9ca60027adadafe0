// Incremental newline-delimited JSON parser (one JSON value per line), used for Ollama's streamed
// /api/chat responses (PV-1). Fuzzed by fuzz/ndjson_fuzz.cpp.
//
// Feed the body in chunks of any size; every complete line comes out as one parsed value, in
// order. Lines end with LF (a CR before it is dropped); lines holding only whitespace are skipped.
// The last line may lack its LF: `finish()` parses it.
//
// Errors (sticky: the parser then refuses further input):
//   {code:"NDJSON_PARSE", message:"line <n>: <what>"}  — n is the 1-based line number; a line
//     nesting arrays/objects deeper than kMaxJsonDepth is such an error too (copying or dumping
//     such a value would recurse that deep);
//   {code:"NDJSON_LINE_TOO_LARGE", message:"line <n>: longer than <max> bytes"}.
// Values parsed before the failing line are still appended to `out`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::llm {

/// Deepest array/object nesting accepted in streamed JSON (as json5::kMaxDepth).
inline constexpr int kMaxJsonDepth = 512;

/// Whether `text` nests arrays/objects deeper than `max_depth` (brackets inside strings are
/// ignored). A cheap pre-check before parsing untrusted JSON.
bool json_nesting_exceeds(std::string_view text, int max_depth = kMaxJsonDepth);

class NdjsonParser {
 public:
  /// Default guard: 16 MiB per line.
  static constexpr std::size_t kDefaultMaxLineBytes = 16u << 20;

  explicit NdjsonParser(std::size_t max_line_bytes = kDefaultMaxLineBytes);

  /// Consumes `bytes`, appending the value of every line they complete to `out`.
  Status feed(std::string_view bytes, std::vector<nlohmann::json>& out);

  /// End of stream: parses a final line that has no LF.
  Status finish(std::vector<nlohmann::json>& out);

  /// Lines completed so far.
  std::size_t lines() const { return line_no_; }

 private:
  Status parse_line(std::string_view line, std::vector<nlohmann::json>& out);
  Status fail(Error error);

  std::size_t max_;
  std::string line_;
  std::size_t line_no_ = 0;
  bool failed_ = false;
  Error error_;
};

}  // namespace pincer::llm
