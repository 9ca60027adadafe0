// Dreaming's machine state (SPEC DR-2) under `<workspace>/memory/.dreams/`, in OpenClaw's shapes:
//   short-term-recall.json  {version: 1, updatedAt, entries: {<key>: {key, path, startLine,
//                           endLine, source: "memory", snippet, recallCount, groundedCount?, totalScore, maxScore,
//                           firstRecalledAt, lastRecalledAt, queryHashes[], recallDays["YYYY-MM-DD"],
//                           conceptTags[], promotedAt?}}}; key = "memory:<path>:<start>:<end>"
//   phase-signals.json      {version: 1, updatedAt, entries: {<key>: {key, lightHits, remHits,
//                           lastLightAt?, lastRemAt?}}}
//   short-term-promotion.lock  held (flock) by the one sweep that may promote
//   recall-store.lock          held (flock) for each short read-modify-write of the two files
// Writes are atomic (a temp file renamed over the target). A file that is not valid JSON is
// never overwritten: the call fails with DREAMING_STATE_INVALID naming it.
//
// Blocking file I/O on small files; safe from any thread and process (the flocks serialise).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::memory::dreaming {

inline constexpr std::size_t kMaxQueryHashes = 32;
inline constexpr std::size_t kMaxRecallDays = 16;

struct RecallEntry {
  std::string key;
  std::string path;  ///< workspace-relative
  int start_line = 1, end_line = 1;
  std::string snippet;  ///< normalised
  int recall_count = 0;
  int grounded_count = 0;  ///< of recall_count, staged by `rem-backfill --stage-short-term` (groundedCount)
  double total_score = 0, max_score = 0;
  std::string first_recalled_at, last_recalled_at;  ///< ISO 8601 UTC
  std::vector<std::string> query_hashes;
  std::vector<std::string> recall_days;  ///< "YYYY-MM-DD" in the dreaming zone, oldest first
  std::vector<std::string> concept_tags;
  std::string promoted_at;  ///< "" = not promoted
  double avg_score() const { return recall_count > 0 ? total_score / recall_count : 0.0; }
};

struct RecallStore {
  std::string updated_at;
  std::map<std::string, RecallEntry> entries;
};

struct PhaseEntry {
  int light_hits = 0, rem_hits = 0;
  std::string last_light_at, last_rem_at;  ///< ISO 8601 UTC, "" = never
};

struct PhaseStore {
  std::string updated_at;
  std::map<std::string, PhaseEntry> entries;
};

/// One memory_search hit as the tool returned it.
struct RecallHit {
  std::string path;
  int start_line = 1, end_line = 1;
  double score = 0;
  std::string snippet;
  std::string source = "memory";
};

std::filesystem::path dreams_dir(const std::filesystem::path& workspace);
std::filesystem::path recall_store_path(const std::filesystem::path& workspace);
std::filesystem::path phase_store_path(const std::filesystem::path& workspace);
std::filesystem::path promotion_lock_path(const std::filesystem::path& workspace);

/// "memory:<path>:<start>:<end>".
std::string entry_key(std::string_view path, int start_line, int end_line);
/// The first 12 hex digits of SHA-256 of the lowercased, trimmed query.
std::string query_hash(std::string_view query);
/// ISO 8601 UTC with milliseconds ("2026-03-01T12:00:00.000Z").
std::string iso_utc(int64_t unix_ms);
/// Unix ms of an ISO instant written by iso_utc (or any ISO 8601 form); nullopt when malformed.
std::optional<int64_t> parse_iso_ms(std::string_view iso);
/// "YYYY-MM-DD" of `unix_ms` in IANA `zone` (UTC for an unknown zone).
std::string day_in_zone(int64_t unix_ms, std::string_view zone);

/// An exclusive flock on a lock file, released by the destructor (and by the kernel when the
/// process dies: a crash leaves no stale lock).
class FileLock {
 public:
  /// `wait` false: fails at once with DREAMING_LOCKED when another holder has it.
  static Result<FileLock> acquire(const std::filesystem::path& path, bool wait);
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// Takes the short store lock (blocking) of `workspace`.
Result<FileLock> lock_store(const std::filesystem::path& workspace);

/// The stores (missing file = empty). Errors: DREAMING_STATE_INVALID, IO_ERROR, naming the file.
Result<RecallStore> load_recall_store(const std::filesystem::path& workspace);
Result<PhaseStore> load_phase_store(const std::filesystem::path& workspace);
/// Atomic writes (IO_ERROR naming the file). Call with the store lock held.
Status save_recall_store(const std::filesystem::path& workspace, const RecallStore& store);
Status save_phase_store(const std::filesystem::path& workspace, const PhaseStore& store);

/// DR-2: adds the hits of one memory_search to the recall store: per entry recallCount + 1,
/// totalScore/maxScore, the query's hash, today's day (in `zone`), concept tags, the snippet.
/// Only short-term daily notes (snippet_rules.h) count; untrusted or unpromotable snippets and
/// an empty query are skipped. Writes nothing when no hit counts. Takes the store lock.
Status record_recalls(const std::filesystem::path& workspace, std::string_view query, const std::vector<RecallHit>& hits,
                      int64_t now_ms, std::string_view zone);

/// Adds one Light or REM hit (`phase` "light" | "rem") at `now_ms` to each known key. Takes the
/// store lock.
Status record_phase_signals(const std::filesystem::path& workspace, std::string_view phase,
                            const std::vector<std::string>& keys, int64_t now_ms);

}  // namespace pincer::memory::dreaming
