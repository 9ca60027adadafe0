// One agent's memory index (SPEC MM-4..MM-6): keeps the SQLite index in step with the Markdown
// files and answers searches and reads.
//
// Threading: every public method may be called from any thread; one mutex serialises the SQLite
// connection. Network calls (embeddings) are made without holding it, so keyword search is never
// blocked by a slow provider. Nothing runs in the background here (see MemoryWatcher).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "memory/embeddings.h"
#include "memory/index_db.h"
#include "memory/memory_config.h"

namespace pincer::memory {

struct SearchHit {
  std::string path;
  int start_line = 1;
  int end_line = 1;
  double score = 0;
  std::string snippet;
  std::string source = "memory";  ///< "memory" | "sessions"
  // Sessions corpus only (session_corpus.h): lines are the transcript's JSONL lines.
  std::string session_key;  ///< "" when unknown
  std::string session_id;
  int turn = 0;      ///< the first user turn of the hit (1-based)
  int turn_end = 0;  ///< the last one
};

/// Which corpus a search looks in: what `memory.search.sources` enables, or one of them.
enum class Corpus { Configured, Memory, Sessions };

struct SearchResponse {
  std::vector<SearchHit> results;
  std::string mode = "keyword";  ///< "keyword" | "hybrid"
  bool partial = false;          ///< vector side missing: keyword hits only
  std::string warning;           ///< why partial; "" = none
  std::string provider;          ///< "none" when keyword-only
  std::string model;
};

struct SyncReport {
  int files = 0;      ///< memory files seen
  int changed = 0;    ///< files (re)chunked
  int removed = 0;    ///< files gone from disk
  int chunks = 0;     ///< chunks in the index afterwards
  bool rebuilt = false;  ///< full rebuild (layout changed or --force)
};

class MemoryIndex {
 public:
  /// Opens (creating or rebuilding a corrupt file, with a warning log line) the index of
  /// `settings.store_path`. Error "MEMORY_INDEX_OPEN".
  static Result<std::unique_ptr<MemoryIndex>> open(MemorySettings settings, std::filesystem::path workspace,
                                                   std::string agent_id);

  /// Brings chunks in step with the files: only files whose size/mtime changed are read, only
  /// those whose content hash changed are re-chunked. A changed layout fingerprint (provider,
  /// model, base URL, chunking) or `force` re-chunks everything. Fast: no network.
  Result<SyncReport> sync(bool force = false);

  /// Embeds up to `max_chunks` chunks that have no cached vector (batched). Returns how many were
  /// embedded. Error from the provider (EMBED_*). No-op without a provider.
  Result<int> embed_pending(int max_chunks = 1 << 30);

  /// Searches (syncing first when files changed since the last sync). Never waits past
  /// `query_timeout_ms` for the vector side: then the keyword hits come back `partial`.
  /// `corpus` narrows the search to one source (a disabled one simply has no chunks).
  Result<SearchResponse> search(const std::string& query, std::optional<int> max_results,
                                std::optional<double> min_score, Corpus corpus = Corpus::Configured);

  /// status for `pincer memory status`: files, chunks, vectors, provider, model, dims, store path.
  nlohmann::json status(bool deep);

  /// Marks the files as changed so the next search syncs (the watcher calls this).
  void mark_dirty() { dirty_.store(true); }
  bool dirty() const { return dirty_.load(); }

  const MemorySettings& settings() const { return settings_; }
  const std::filesystem::path& workspace() const { return workspace_; }
  const std::string& agent_id() const { return agent_id_; }

 private:
  MemoryIndex() = default;
  Result<SyncReport> sync_locked(bool force);
  void load_vectors_locked();

  MemorySettings settings_;
  std::filesystem::path workspace_;
  std::string agent_id_;
  std::shared_ptr<EmbeddingProvider> provider_;
  std::string provider_error_;  ///< why the configured provider is unusable
  std::mutex mu_;
  std::unique_ptr<IndexDb> db_;
  std::atomic<bool> dirty_{true};
  // Vectors of the current provider/model, by chunk id (loaded lazily; dropped on change).
  bool vectors_loaded_ = false;
  struct StoredVector {
    int64_t chunk_id;
    bool session;  ///< a sessions-corpus chunk
    Vector v;
  };
  std::vector<StoredVector> vectors_;
  std::string last_embed_error_;
};

/// Today as days since the epoch (UTC). Used for temporal decay.
int64_t today_days();

}  // namespace pincer::memory
