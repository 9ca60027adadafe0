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
#include <string>

#include <nlohmann/json.hpp>

namespace pincer::json_dump {

/// Appends the compact serialization of `j` to `out`.
void append_compact(std::string& out, const nlohmann::json& j);

/// The compact serialization of `j` (see the file comment for the exact format).
std::string compact(const nlohmann::json& j);

/// compact(j).size(), in bytes, without building the string.
std::size_t compact_size(const nlohmann::json& j);

}  // namespace pincer::json_dump
