// Grounded backfill (SPEC DR-5; OpenClaw's `memory rem-backfill`): replays historical daily notes
// (`YYYY-MM-DD.md`, `YYYY-MM-DD-slug.md`) into the DREAMS.md diary, one reversible block per day
// between `<!-- pincer-dreaming:backfill:start DAY -->` and `<!-- pincer-dreaming:backfill:end DAY -->`
// (a second run replaces the day's block). Each block lists the note's grounded lines (list items
// and sentences; headings, untrusted and dreaming text left out; at most 12 a day).
// `stage_short_term`: those lines of notes inside `<workspace>/memory/` also become recall entries
// (one grounded recall each, query "__dreaming_grounded_backfill__", the note's day), so the next
// sweeps weigh them with the live recalls; notes elsewhere cannot be re-read by Deep and are
// reported as not staged. Rollback removes the diary blocks and/or the grounded recalls (an entry
// also recalled live keeps its live recalls). Blocking file I/O; takes the store lock.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::memory::dreaming {

inline constexpr const char* kBackfillQuery = "__dreaming_grounded_backfill__";
inline constexpr std::size_t kBackfillLinesPerDay = 12;

struct BackfillResult {
  std::vector<std::string> source_files;  ///< the notes read, sorted
  int written = 0, replaced = 0;          ///< diary blocks
  int staged = 0;                         ///< recall entries (stage_short_term)
  std::vector<std::string> not_staged;    ///< notes outside <workspace>/memory/
  std::filesystem::path dreams_path;
  nlohmann::json to_json() const;
};

/// Replays the notes at `path` (a note file or a folder of them). Errors: NOT_FOUND (no such path,
/// or no dated note in it), IO_ERROR, DREAMING_STATE_INVALID — each naming the path.
Result<BackfillResult> rem_backfill(const std::filesystem::path& workspace, const std::filesystem::path& path,
                                    bool stage_short_term, int64_t now_ms);

struct BackfillRollback {
  int removed_diary_blocks = 0;
  int removed_recalls = 0;  ///< entries removed or reduced
};

/// Removes what rem_backfill wrote: its DREAMS.md blocks (`diary`) and its grounded recalls
/// (`short_term`). Errors as above.
Result<BackfillRollback> rem_backfill_rollback(const std::filesystem::path& workspace, bool diary, bool short_term);

}  // namespace pincer::memory::dreaming
