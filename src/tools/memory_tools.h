// The memory tools (SPEC MM-6), in OpenClaw's shapes:
//   memory_search {query, maxResults?, minScore?, corpus?} → {results: [{path, startLine, endLine,
//     score, snippet, source, citation?}], provider, model, mode, partial?, warning?}
//   memory_get {path, from?, lines?} → {path, text, from, lines, truncated?, nextFrom?}
// A disabled or broken memory answers {results: [], disabled: true, unavailable: true, error,
// warning, action} — a normal (non-error) tool result the agent can relay, never an exception.
//
// The tools talk to a MemoryBackend (implemented by src/memory/memory_service.h; MM-7: builtin |
// none behind this one interface). Threading: called on tool worker threads.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/tool.h"

namespace pincer::tools {

class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  /// memory_search's result object (see above). Never throws.
  virtual nlohmann::json search(const std::string& agent_id, const std::filesystem::path& workspace,
                                const nlohmann::json& args) = 0;
  /// memory_search on behalf of a run: `session_key` and `lane` (the ToolContext's) say who
  /// asked, so the backend can feed recall tracking from interactive sessions only (Dreaming,
  /// src/memory/dreaming/). Default: search().
  virtual nlohmann::json search_for_session(const std::string& agent_id, const std::filesystem::path& workspace,
                                            const nlohmann::json& args, const std::string& session_key,
                                            const std::string& lane) {
    (void)session_key;
    (void)lane;
    return search(agent_id, workspace, args);
  }
  /// memory_get's result object; `error` set (and is_error) when the path is refused or missing.
  virtual nlohmann::json get(const std::string& agent_id, const std::filesystem::path& workspace,
                             const nlohmann::json& args) = 0;
};

/// memory_search and memory_get (group "memory").
std::vector<std::unique_ptr<Tool>> make_memory_tools();

}  // namespace pincer::tools
