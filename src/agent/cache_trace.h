// Prompt-cache trace (SPEC CX-11, `diagnostics.cacheTrace`): one JSON line per model call in
// `<state>/cache-trace/<sessionId>.jsonl`, to explain why a provider's prompt cache missed:
//   {ts, runId, sessionKey, provider, model, api, call,
//    stages: {prompt: {systemChars, systemDigest, tools, toolsDigest},
//             messages: {count, digests: [<16 hex per message, in request order>]},
//             request: {bytes, digest}},
//    firstChangedMessage: <index of the first message whose digest differs from the session's
//                          previous call; = count when every earlier message repeats; -1 for the
//                          session's first traced call>,
//    systemChanged, toolsChanged: <vs the previous call>}
// Digests are FNV-1a 64 over the exact bytes (no content is written, so traces hold no secrets).
// Bounded: a file over `max_file_bytes` is renamed to `….jsonl.1` (replacing an older one).
// Off by default; costs nothing when off (no hook is installed).
//
// Thread affinity: a CacheTrace is used by one run on the event-loop thread; appends are small.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "llm/provider.h"

namespace pincer::agent {

/// FNV-1a 64 of `bytes` as 16 lowercase hex digits.
std::string fnv1a_hex(std::string_view bytes);

class CacheTrace {
 public:
  /// `dir`: `<state>/cache-trace`; the file is `<dir>/<session_id>.jsonl`.
  CacheTrace(std::filesystem::path dir, std::string session_id, std::string session_key, std::string run_id,
             int64_t max_file_bytes);
  /// Appends the record of one call (errors are logged, never fatal).
  void record(const llm::Context& context, const llm::HttpRequest& request, const llm::ModelSpec& model,
              int64_t now_ms);
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::string session_key_, run_id_;
  int64_t max_bytes_;
  int calls_ = 0;
  bool loaded_previous_ = false;
  std::vector<std::string> previous_messages_;
  std::string previous_system_, previous_tools_;
};

/// The RunHooks::before_request of a run when `config` (the effective config) has
/// diagnostics.cacheTrace.enabled; an empty function otherwise. `clock` must outlive the run.
std::function<void(const llm::ModelSpec&, const llm::Context&, const llm::HttpRequest&)> make_cache_trace_hook(
    const nlohmann::json& config, const std::filesystem::path& state_dir, const std::string& session_id,
    const std::string& session_key, const std::string& run_id, const Clock& clock);

}  // namespace pincer::agent
