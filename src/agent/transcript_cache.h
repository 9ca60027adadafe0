// The parsed transcripts of recently active sessions, so that a turn does not read and parse its
// whole session file again (docs/benchmarks.md: that was most of the gateway's work per turn).
//
// A cached transcript is checked against the file on every load: the file is read (no parse) and
// the hash of the part read last time compared. The same bytes → used as it is; the same bytes
// and more after them → only the added lines are parsed; anything else (an edit anywhere, a
// shorter file, another inode, a tail that is not whole new entries) → the whole file is parsed
// again. The rebuilt context and the engine's history are extended the same way when the new
// entries continue the active branch (store::extend_context), and rebuilt from the parsed entries
// otherwise. So a load always returns what reading the file from scratch would (up to a 64-bit
// hash collision), at the cost of a read and a hash instead of a parse.
//
// Memory: at most kMaxSessions transcripts and kMaxBytes of transcript files (least recently used
// dropped first); a file larger than kMaxBytes is never kept. Nothing is held before a session runs.
// Loop affinity: the gateway's event-loop thread (not thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "context/context_engine.h"
#include "core/result.h"
#include "store/transcript.h"

namespace pincer::agent {

/// One transcript as read: its entries, the active branch's context and that context as the
/// engine's history (image references not resolved: attachments.h resolve_image_refs).
struct ParsedTranscript {
  store::TranscriptContents contents;
  store::SessionContext context;
  context::SessionHistory history;
};

class TranscriptCache {
 public:
  static constexpr std::size_t kMaxSessions = 16;
  static constexpr std::size_t kMaxBytes = 4u << 20;  ///< 4 MiB of transcript files in all (a few times that in memory)

  /// The transcript at `file`, current as of this call. Errors: those of store::read_transcript
  /// ("NOT_FOUND", "IO_ERROR", "TOO_LARGE"). The result stays valid while the caller holds it,
  /// whatever later loads do.
  Result<std::shared_ptr<const ParsedTranscript>> load(const std::filesystem::path& file);

  /// Drops what is kept for `file` (a session reset or deleted).
  void forget(const std::filesystem::path& file);

  /// For tests and /status-like reports: how loads were served.
  struct Stats {
    uint64_t full_reads = 0, tail_reads = 0, unchanged = 0, context_rebuilds = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Entry {
    std::shared_ptr<ParsedTranscript> parsed;
    uint64_t dev = 0, ino = 0, size = 0;
    std::size_t lines = 0;      ///< newlines in the first `size` bytes
    uint64_t prefix_hash = 0;  ///< StreamHash (transcript_cache.cpp) of the first `size` bytes
    std::list<std::string>::iterator lru;
  };

  Result<std::shared_ptr<const ParsedTranscript>> read_full(const std::string& key, const std::filesystem::path& file);
  void touch(Entry& e, const std::string& key);
  void evict();

  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  ///< front = most recently used
  std::size_t bytes_ = 0;
  Stats stats_;
};

}  // namespace pincer::agent
