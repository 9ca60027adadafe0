// Fast path for the common request frame `{"type":"req","id":"…","method":"…","params":…}`:
// a single pass over the bytes without building a DOM for the frame itself, so that small RPCs
// (health at ~100k/s, docs/benchmarks.md) do not pay for a general JSON parse. It only accepts
// what it is sure of — plain keys, escape-free strings, each key once — and returns nullopt for
// anything else, leaving the strict parser (frames.cpp) to accept or reject it with its message.
// fuzz/frame_fuzz.cpp checks that both agree on every input.
#pragma once

#include <optional>
#include <string_view>

#include "gateway/protocol/frames.h"

namespace pincer::gateway {

/// The frame when `text` is a well-formed, valid request frame of the simple shape; nullopt when
/// unsure (the caller falls back to the strict parser). `params` is parsed with nlohmann::json
/// unless it is `{}`/absent.
std::optional<RequestFrame> try_parse_simple_request(std::string_view text);

}  // namespace pincer::gateway
