// The memory of every agent of one process (SPEC MM-6..MM-8): opens each agent's index on first
// use, keeps it fresh with a MemoryWatcher (gateway only), and answers the memory tools.
//
// Isolation (MM-8): an index is keyed by agent id and holds only that agent's workspace files, so
// a search in one agent's session never sees another agent's memory.
//
// Threading: all methods are thread-safe (tools call them on worker threads; reconfigure() on
// the event loop). Costs nothing until memory is used: no index, thread or watch before then.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "memory/memory_config.h"
#include "memory/memory_index.h"
#include "memory/memory_watcher.h"
#include "tools/memory_tools.h"

namespace pincer::memory {

class MemoryService : public tools::MemoryBackend {
 public:
  /// `watch`: keep indexes fresh with inotify (the gateway); the CLI passes false.
  MemoryService(nlohmann::json config, std::filesystem::path state_dir, std::map<std::string, std::string> env,
                bool watch);
  ~MemoryService() override;

  /// New settings (a config reload): an index whose resolved settings changed in any way is
  /// dropped (unwatched and freed as soon as no search still holds it) and opened again with the
  /// new settings on next use; the others stay. Settings read per call (enabled, citations) apply
  /// at once.
  void reconfigure(nlohmann::json config);

  /// The settings of `agent_id` with `workspace`.
  MemorySettings settings_for(const std::string& agent_id, const std::filesystem::path& workspace) const;
  /// False when memory is off for this agent (memory.backend none, memory.search.enabled false).
  bool enabled(const std::string& agent_id, const std::filesystem::path& workspace) const;

  /// The agent's index, opened (and first synced) on first use. Error "MEMORY_INDEX_OPEN". The
  /// caller shares ownership: a search keeps the index alive while a reload replaces it.
  Result<std::shared_ptr<MemoryIndex>> index(const std::string& agent_id, const std::filesystem::path& workspace);

  /// How many indexes are open (for tests and status).
  std::size_t open_indexes() const;

  nlohmann::json search(const std::string& agent_id, const std::filesystem::path& workspace,
                        const nlohmann::json& args) override;
  /// search(), then (Dreaming enabled, an interactive session: dreaming/snippet_rules.h) the
  /// hits are added to `memory/.dreams/short-term-recall.json` (SPEC DR-2). With Dreaming off
  /// nothing is written.
  nlohmann::json search_for_session(const std::string& agent_id, const std::filesystem::path& workspace,
                                    const nlohmann::json& args, const std::string& session_key,
                                    const std::string& lane) override;
  /// The wall clock of recall tracking (Unix ms); tests inject one to recall on different days.
  void set_clock(std::function<int64_t()> now_ms);

  nlohmann::json get(const std::string& agent_id, const std::filesystem::path& workspace,
                     const nlohmann::json& args) override;

  /// Closes the agent's index and deletes its file (`pincer memory reset`).
  Status reset(const std::string& agent_id, const std::filesystem::path& workspace);

 private:
  mutable std::mutex mu_;
  nlohmann::json config_;
  std::filesystem::path state_dir_;
  std::map<std::string, std::string> env_;
  /// settings_for's results by (agent id, workspace) for the current config_ (resolved once per
  /// config, not per turn); cleared by reconfigure.
  mutable std::map<std::pair<std::string, std::string>, MemorySettings> settings_cache_;
  bool watch_;
  std::function<int64_t()> now_ms_;
  void drop_locked(std::map<std::string, std::shared_ptr<MemoryIndex>>::iterator it);

  std::map<std::string, std::shared_ptr<MemoryIndex>> indexes_;  // by agent id
  std::unique_ptr<MemoryWatcher> watcher_;  // created on first index (declared last: stops first)
};

}  // namespace pincer::memory
