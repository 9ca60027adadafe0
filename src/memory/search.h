// Hybrid ranking of memory hits (SPEC MM-5). Pure functions; thread-safe.
//
//   score   = vectorWeight × cosine + textWeight × bm25Norm     (keyword-only, or a chunk not
//             embedded yet: bm25Norm, so a pending embedding never hides a keyword hit)
//   bm25Norm = r / max r over the keyword candidates, r = −bm25() (the best keyword hit is 1)
//   minScore is applied to `score` (before decay: decay orders, it never hides the best match)
//   decayed = score × max(floor, e^(−λ·ageDays)), λ = ln 2 / halfLifeDays; undated files and
//             MEMORY.md are evergreen (no decay)
//   MMR     picks, one by one, argmax λ·decayed − (1−λ)·max Jaccard(terms, already picked)
//   top maxResults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_config.h"

namespace pincer::memory {

struct Candidate {
  int64_t chunk_id = 0;
  std::string path;            ///< workspace-relative ("memory/2026-01-05.md") or absolute
  std::string source = "memory";
  int start_line = 1;
  int end_line = 1;
  std::string text;
  double text_score = 0;       ///< normalised BM25, 0..1 (0 = not a keyword hit)
  double vector_score = 0;     ///< cosine, clamped to 0..1
  bool has_vector = false;     ///< false: not embedded yet, so ranked by its keyword score alone
  std::optional<int64_t> day;  ///< days since 1970-01-01 of the note's date; nullopt = evergreen
  double score = 0;            ///< filled by rank()
};

/// Ranks `candidates` (any order, unique chunk ids). `hybrid` false = keyword-only scores.
/// `today` in days since the epoch.
std::vector<Candidate> rank(std::vector<Candidate> candidates, const HybridOptions& options, bool hybrid,
                            double min_score, int max_results, int64_t today);

/// The note date of a path: `memory/YYYY-MM-DD.md` or `memory/YYYY-MM-DD-slug.md` (any folder),
/// as days since the epoch; nullopt for MEMORY.md and undated files.
std::optional<int64_t> note_day(const std::string& path);

/// Days since the epoch of a civil date (proleptic Gregorian).
int64_t days_from_civil(int y, unsigned m, unsigned d);

/// A snippet of at most `max_bytes` (cut at a UTF-8 boundary, "…" appended when cut).
std::string make_snippet(const std::string& text, std::size_t max_bytes = 700);

}  // namespace pincer::memory
