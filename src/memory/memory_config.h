// Memory settings of one agent, resolved from pincer.json (SPEC MM-4..MM-7). Pure; thread-safe.
//
// Keys are OpenClaw's: `memory.backend` (builtin | none), `memory.citations` (auto | on | off),
// `memory.search.*` for every agent, deep-merged with `agents.list[].memory.search` of the agent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memory/chunker.h"

namespace pincer::memory {

/// Hybrid ranking constants (SPEC MM-5).
struct HybridOptions {
  double vector_weight = 0.7;
  double text_weight = 0.3;
  int candidate_multiplier = 4;
  bool mmr = true;
  double mmr_lambda = 0.7;
  bool decay = true;
  double half_life_days = 30;
  double decay_floor = 0.5;  ///< MM-5: decay never takes a score below half
  bool operator==(const HybridOptions&) const = default;
};

struct MemorySettings {
  bool enabled = true;              ///< memory.search.enabled and memory.backend != none
  std::string backend = "builtin";  ///< builtin | none
  std::string citations = "auto";   ///< auto | on | off
  std::string provider = "none";    ///< none | openai | openai-compatible | ollama | gemini
  std::string model;                ///< embedding model; "" = the provider's default
  std::string base_url;             ///< remote.baseUrl; "" = the provider's default
  std::string api_key;              ///< remote.apiKey, else the provider's environment variable
  std::map<std::string, std::string> headers;  ///< remote.headers
  int batch_size = 64;              ///< texts per embeddings request
  int64_t embed_timeout_ms = 30'000;  ///< one indexing embeddings request
  std::vector<std::filesystem::path> extra_paths;  ///< absolute (relative ones: to the workspace)
  ChunkingOptions chunking;
  int max_results = 6;
  double min_score = 0.35;
  int64_t query_timeout_ms = 3000;  ///< memory.search.query.timeoutMs: a search never waits longer
  HybridOptions hybrid;
  bool watch = true;
  int64_t watch_debounce_ms = 1500;
  std::filesystem::path store_path;  ///< the index file
  /// The corpora indexed and searched by default (OpenClaw's memorySearch `sources`): the
  /// Markdown memory files, and past session transcripts. `sessions` needs both `sources`
  /// containing "sessions" and `experimental.sessionMemory: true` (off by default, as OpenClaw).
  bool memory_source = true;
  bool sessions_source = false;
  std::filesystem::path sessions_dir;  ///< `<state>/agents/<agentId>/sessions` (the transcripts)

  bool has_embeddings() const { return provider != "none"; }
  /// Every field equal: a reload that changes any of them reopens the index (memory_service.h).
  bool operator==(const MemorySettings&) const = default;
  /// What changes the index layout: a different fingerprint means a full rebuild (MM-4).
  std::string fingerprint() const;
};

/// Resolves the settings of `agent_id` (workspace for relative extraPaths; state_dir for the
/// default index path `<state dir>/memory/<agentId>.sqlite`). Unknown values fall back to the
/// defaults (the config was validated against the schema at load).
MemorySettings resolve_memory_settings(const nlohmann::json& config, const std::string& agent_id,
                                       const std::filesystem::path& workspace, const std::filesystem::path& state_dir,
                                       const std::map<std::string, std::string>& env);

/// Why the memory tools are off for these settings ("memory.backend is \"none\"" or
/// "memory.search.enabled is false"), or "" when `settings.enabled`.
std::string disabled_reason(const MemorySettings& settings);

/// The variables the settings read (HOME, OPENAI_API_KEY, GEMINI_API_KEY) from this process.
std::map<std::string, std::string> memory_env_from_process();

}  // namespace pincer::memory
