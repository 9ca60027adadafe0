// The request frame (system prompt + tool definitions) a session's turns reuse while neither
// changes. Building one copies every tool's JSON Schema, and freeing it frees them again; a
// session's frame is usually the same turn after turn.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "context/context_engine.h"
#include "tools/tool.h"

namespace pincer::agent {

/// A small LRU of request frames by session key. get() returns the cached frame only when it is
/// equal to what make_request_frame(system_prompt, tools) would build now: the same prompt text,
/// and for every tool the same name, description and schema (compared by value, so a tool object
/// replaced at the same address with another schema is noticed). The returned frame is immutable
/// and may be held past the next get(). Loop thread only.
class RequestFrameCache {
 public:
  explicit RequestFrameCache(std::size_t max_sessions = 16) : max_(max_sessions) {}

  std::shared_ptr<const context::RequestFrame> get(const std::string& session_key, const std::string& system_prompt,
                                                    const std::vector<const tools::Tool*>& tools);

 private:
  struct Entry {
    std::string session_key;
    std::shared_ptr<const context::RequestFrame> frame;
  };
  std::list<Entry> entries_;  ///< most recently used first
  std::size_t max_;
};

}  // namespace pincer::agent
