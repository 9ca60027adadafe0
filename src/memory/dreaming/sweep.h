// A dreaming sweep (SPEC DR-1, DR-3..DR-5) over one workspace, and the promotion CLI's ranking.
//
//   Light  collects the recall entries of short-term daily notes that are not promoted yet and
//          can be (snippet_rules.h), merges near-identical snippets (similarity ≥ 0.88: the one
//          with more recalls stays), stages them and records a Light signal for each.
//   REM    counts concept tags over the staged entries (themes: tags of ≥ 2 entries, top 5),
//          selects the candidate truths (DR-4) and records a REM signal for each.
//   Deep   scores every staged entry (DR-3, with the phase boosts) and promotes, best first and
//          at most `limit`, those passing all gates (score, recalls, unique queries). Before
//          promoting it re-reads the daily note: a deleted note or one that no longer holds the
//          snippet withdraws the candidate. Promotion appends to MEMORY.md (after copying the
//          current file to memory/.dreams/memory-md.prev), never changes a line already there,
//          and marks the entry promoted so no later sweep promotes it again.
//   Reports memory/dreaming/{light,rem,deep}/YYYY-MM-DD.md (a section per sweep) and a diary
//          entry with `## Light Sleep`, `## REM Sleep`, `## Deep Sleep` blocks in DREAMS.md.
//          The diary is written from the sweep's own findings (no model call). A sweep with
//          nothing staged writes no report; a workspace without a recall store is left untouched.
//
// `non_durable`: everything but MEMORY.md (it stays byte-identical; nothing is marked promoted).
// The promotion lock (recall_store.h) is held for the whole sweep: a second sweep at the same
// time fails with DREAMING_LOCKED. Blocking file I/O: run off the event loop.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "memory/dreaming/dreaming_settings.h"
#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/scoring.h"

namespace pincer::memory::dreaming {

/// One gate of DR-3 with its value and threshold.
struct Gate {
  std::string name;  ///< "score" | "recallCount" | "uniqueQueries"
  double value = 0;
  double threshold = 0;
  bool passed = false;
};

/// A ranked entry.
struct Candidate {
  RecallEntry entry;
  DeepScore score;
  int unique_queries = 0;  ///< max(query hashes, recall days): OpenClaw's context diversity
  std::vector<Gate> gates;
  bool passes = false;     ///< every gate passed (and not promoted yet)
};

/// The entries of `store` that may be promoted, scored with `phases` at `now_ms`, best first
/// (score desc, recalls desc, path asc). `include_failing`: also those failing a gate.
std::vector<Candidate> rank_candidates(const RecallStore& store, const PhaseStore& phases, const DreamingSettings& s,
                                       int64_t now_ms, bool include_failing);

struct SweepOptions {
  int64_t now_ms = 0;                     ///< wall clock (Unix ms): days, ages, report names
  std::function<int64_t()> steady_ms;     ///< the timeout's clock; empty = the system's
  bool light_and_rem = true;              ///< false: Deep only, no reports (`pincer memory promote --apply`)
  std::optional<bool> non_durable;        ///< overrides the settings' nonDurable
  std::optional<int> limit;               ///< overrides phases.deep.limit
};

struct Promotion {
  std::string key, path, snippet;
  int start_line = 0, end_line = 0;
  double score = 0;
  std::vector<std::string> triggers;  ///< ≤ 3 concept tags
  int importance = 1;                 ///< 1..10
};

struct SweepResult {
  std::vector<RecallEntry> staged;            ///< Light
  std::vector<std::string> themes;            ///< REM
  std::vector<TruthCandidate> truths;         ///< REM
  std::vector<Candidate> ranked;              ///< Deep, every staged entry
  std::vector<Promotion> promoted;            ///< written to MEMORY.md (or would be: non-durable)
  std::vector<std::pair<std::string, std::string>> withdrawn;  ///< key, why
  bool non_durable = false;
  bool timed_out = false;
  std::filesystem::path memory_file;          ///< MEMORY.md (or memory.md)
  nlohmann::json to_json() const;
};

/// Runs one sweep. Errors: DREAMING_LOCKED (another sweep), DREAMING_STATE_INVALID, IO_ERROR
/// (each naming the file).
Result<SweepResult> run_sweep(const std::filesystem::path& workspace, const DreamingSettings& s, const SweepOptions& o);

// ---- pieces shared with the reports (dreaming_reports.cpp) ----

/// The long-term memory file: MEMORY.md, else an existing memory.md.
std::filesystem::path memory_file_path(const std::filesystem::path& workspace);
/// Appends the promotions to the memory file (after saving the old one to memory-md.prev).
/// Existing bytes are kept; an entry whose marker is already in the file is not written twice.
Status append_promotions(const std::filesystem::path& workspace, const std::vector<Promotion>& promotions,
                         const std::string& day, std::size_t max_snippet_bytes);
/// Writes the phase reports and the DREAMS.md diary entry of `r`.
Status write_reports(const std::filesystem::path& workspace, const SweepResult& r, int64_t now_ms,
                     const std::string& zone);

}  // namespace pincer::memory::dreaming
