// The wire form of each history message a request body was written with, kept for the next
// request (issue 17): a session's request repeats every earlier message, and escaping them again
// on every call was the largest part of building a body. Keyed by the shared message itself
// (core/identity_memo.h) and a variant — what of the model changes a message's form for the API
// (e.g. whether images are sent) — so a hit is always the bytes the API's writer would produce
// for that message now. One per API per thread (thread_local).
#pragma once

#include <cstdint>
#include <string>

#include "core/identity_memo.h"
#include "llm/messages.h"

namespace pincer::llm::wire {

struct WireForm {
  uint32_t variant = 0;
  std::string text;  ///< the message's element(s) of the API's messages array ("" = none sent)
};

/// At most this much wire text is kept per API per thread (bytes): a few long sessions' histories.
inline constexpr std::size_t kWireMemoBytes = 2 * 1024 * 1024;

using WireMemo = IdentityMemo<Message, WireForm>;

}  // namespace pincer::llm::wire
