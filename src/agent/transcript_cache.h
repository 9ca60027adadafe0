// The parsed transcripts of recently active sessions, so that a turn does not read and parse its
// whole session file again (docs/benchmarks.md: that was most of the gateway's work per turn).
//
// A cached transcript is checked against the file on every load. When the file's device, inode,
// size and modification time are those recorded after the last read or the gateway's own last
// append (adopt), it is used as it is: one stat(2). Otherwise the file is read (no parse) and the
// hash of the part known so far compared: the same bytes → used as it is; the same bytes and more
// after them → only the added lines are parsed; anything else (an edit anywhere, a shorter file,
// another inode, a tail that is not whole new entries) → the whole file is parsed again. The lines
// the gateway appends itself reach the cache as values (TranscriptWriter's observer → adopt), so
// they are never parsed back. The rebuilt context and the engine's history are extended the same
// way when the new entries continue the active branch (store::extend_context), and rebuilt from
// the parsed entries otherwise. So a load returns what reading the file from scratch would, up to
// a 64-bit hash collision, or another program rewriting the file in place to the same size within
// the same file-system clock tick as the last recorded change (as make and rsync assume).
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
#include <vector>

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

  /// Takes a line the gateway has just appended to `file` (TranscriptWriter::set_observer) as the
  /// next load's, so that load neither reads nor parses it. A line that does not continue the
  /// cached bytes (another writer came between) only makes the next load read the file.
  void adopt(const std::filesystem::path& file, store::AppendedLine& line);

  /// Drops what is kept for `file` (a session reset or deleted).
  void forget(const std::filesystem::path& file);

  /// For tests and /status-like reports: how loads were served.
  struct Stats {
    uint64_t full_reads = 0, tail_reads = 0, unchanged = 0, context_rebuilds = 0, adopted = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  /// A 64-bit hash of a byte stream that can be extended (murmur3-style mixing, 8 bytes per step):
  /// not for adversaries, only to notice that another program rewrote the file.
  class StreamHash {
   public:
    void update(std::string_view s);
    uint64_t value() const;

   private:
    void mix(uint64_t w);
    uint64_t state_ = 0x243F6A8885A308D3ULL, length_ = 0, pending_ = 0;
    unsigned npending_ = 0;
  };

  /// An appended line taken by adopt, not yet in `parsed` (applied by the next load).
  struct Adopted {
    nlohmann::json value;
    std::size_t line_no = 0;
  };

  struct Entry {
    std::shared_ptr<ParsedTranscript> parsed;
    uint64_t dev = 0, ino = 0, size = 0;
    int64_t mtime_ns = -1;      ///< st_mtim when the file was `size` bytes as known; -1: unknown
    std::size_t lines = 0;      ///< newlines in the first `size` bytes
    StreamHash hash;            ///< of the first `size` bytes
    std::vector<Adopted> adopted;  ///< the last of the `size` bytes, as values
    std::list<std::string>::iterator lru;
  };

  Result<std::shared_ptr<const ParsedTranscript>> read_full(const std::string& key, const std::filesystem::path& file);
  /// Applies e.adopted to e.parsed (copied first when a caller still holds it); false when an
  /// entry cannot be taken as it is (then the file must be parsed again).
  bool apply_adopted(Entry& e);
  void touch(Entry& e, const std::string& key);
  void evict();

  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  ///< front = most recently used
  std::size_t bytes_ = 0;
  Stats stats_;
};

}  // namespace pincer::agent
