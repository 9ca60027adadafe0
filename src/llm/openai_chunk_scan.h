// The fields of an OpenAI Chat Completions stream chunk that the decoder reads, taken from the
// text without building a JSON tree. A streamed reply is a dozen or more chunks per model call and
// a full parse of each (a node per key and value, allocated and freed) was a large part of a
// turn's CPU cost.
//
// Only the simple, common shape is scanned here; anything else answers "not simple" and the caller
// parses the chunk fully (openai_completions.cpp), so behaviour stays that of a full parse:
//   - the whole text must be valid JSON (RFC 8259), an object at the top, nested at most 8 deep;
//   - strings: ASCII only, escapes limited to \" \\ \/ \b \f \n \r \t (no \u, no byte >= 0x7F);
//   - numbers: integers of at most 15 digits (no fraction or exponent);
//   - no top-level "error" key, no "tool_calls" in the first choice's delta, no repeated key among
//     the ones read (a full parse keeps the last of repeated keys).
// Pure function; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pincer::llm::openai_chunk {

/// What the decoder reads, as str()/int_at() of llm/provider.h would read it from a full parse:
/// a string field that is absent or not a string is "", an integer field absent or not a number
/// is 0.
struct Fields {
  std::string id;  ///< top-level "id"
  bool has_usage = false;  ///< "usage" is an object
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int64_t cached_tokens = 0;  ///< usage.prompt_tokens_details.cached_tokens
  bool has_choice = false;  ///< "choices" is a non-empty array whose first element is an object
  bool has_delta = false;   ///< that choice's "delta" is an object
  std::string reasoning_content, reasoning, content;  ///< the delta's text fields
  std::optional<std::string> finish_reason;           ///< set when the choice's is a string
};

/// The fields of `data` (one SSE event's data), or nullopt when it is not of the simple shape
/// above (invalid JSON included): the caller then parses it fully.
std::optional<Fields> scan(std::string_view data);

}  // namespace pincer::llm::openai_chunk
