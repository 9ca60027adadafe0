// The read-only views of Dreaming (SPEC DR-1): `pincer memory promote` (preview),
// `pincer memory promote-explain "…"` and the dreaming part of `pincer memory status --deep`.
// Blocking file reads; any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "memory/dreaming/dreaming_settings.h"

namespace pincer::memory::dreaming {

/// The ranked candidates as `promote` previews them: {candidates: [{key, path, startLine, endLine,
/// snippet, score, recallCount, uniqueQueries, passes}], storePath}, best first, at most `limit`
/// (0 = all), only those passing every gate unless `include_failing`.
Result<nlohmann::json> promotion_preview(const std::filesystem::path& workspace, const DreamingSettings& s,
                                         int64_t now_ms, int limit, bool include_failing);

/// Why the entries matching `text` (a case-insensitive substring of the snippet, the path or the
/// key) would or would not be promoted: {query, matches: [{key, path, startLine, endLine, snippet,
/// recallCount, uniqueQueries, recallDays, conceptTags, score, components{frequency, relevance,
/// diversity, recency, consolidation, conceptual, lightBoost, remBoost}, gates: [{name, value,
/// threshold, passed}], promotedAt?, untrusted, sourcePresent, wouldPromote, reasons[]}]}.
Result<nlohmann::json> explain_promotion(const std::filesystem::path& workspace, const DreamingSettings& s,
                                         int64_t now_ms, const std::string& text);

/// The text form of explain_promotion's result (one block per match; "no recall entry matches").
std::string format_explanation(const nlohmann::json& explained);

/// When the next sweep runs, or why none will: {enabled, frequency, timezone, nonDurable,
/// nextSweepAtMs + nextSweepAt (ISO UTC) | noSweepReason}. `cron_enabled`: the config's cron.enabled.
nlohmann::json dreaming_schedule(const DreamingSettings& s, bool cron_enabled, int64_t now_ms);

/// Dreaming's status for `status --deep`: dreaming_schedule's members and {entries, promoted,
/// storePath} (or storeError) of the workspace's recall store.
nlohmann::json dreaming_status(const std::filesystem::path& workspace, const DreamingSettings& s, bool cron_enabled,
                               int64_t now_ms);

}  // namespace pincer::memory::dreaming
