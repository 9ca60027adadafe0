// Token and cost usage from what Pincer records, for OpenClaw's `usage.cost` and `sessions.usage`
// (methods/usage.cpp): the `usage` of each message in the session transcripts (`<sessionId>.jsonl`
// and their `.reset.` / `.deleted.` archives, as OpenClaw counts them), in OpenClaw's
// CostUsageTotals and session-summary shapes (its infra/session-cost-usage-*.ts).
//
// Cost: a message's recorded `usage.cost` when its total is above 0 (transcripts imported from
// OpenClaw carry them); Pincer keeps no model prices, so a message with tokens and no cost counts
// in `missingCostEntries` / `missingCostByModel` ("provider/model"), as OpenClaw counts a model it
// has no price for. Left out (Pincer does not record them): latency, the quarter-hour series,
// creators (every session's creatorKey is OpenClaw's unknown key) and context weight.
//
// Days are calendar days in the range's zone: UTC (default), the gateway's local zone
// (mode "gateway"), or mode "specific" with an IANA timeZone or a utcOffset ("UTC+5:30").
//
// Pure apart from reading files; any thread (the handlers run it on a worker).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::gateway::usage {

/// How instants map to calendar days.
struct DayZone {
  enum class Mode { Utc, Gateway, Fixed, Zone } mode = Mode::Utc;
  int fixed_offset_minutes = 0;  ///< Fixed
  std::string zone;              ///< Zone: an IANA name
  /// Minutes east of UTC at `unix_ms`.
  int offset_at(int64_t unix_ms) const;
  /// "YYYY-MM-DD" of `unix_ms` in this zone.
  std::string day_key(int64_t unix_ms) const;
};

/// The instants a report covers: [start_ms, end_ms], whole days in `zone`.
struct Range {
  int64_t start_ms = 0, end_ms = 0;
  bool include_untimestamped = false;  ///< range "all": entries without a timestamp count too
  DayZone zone;
};

/// OpenClaw's date params (startDate/endDate YYYY-MM-DD together, else range 7d|30d|90d|1y|all,
/// else days; 30 days by default; mode utc|gateway|specific with timeZone or utcOffset) at
/// `now_ms`. Errors "INVALID_INPUT" with OpenClaw's messages ("invalid startDate: expected a
/// valid YYYY-MM-DD calendar date", "startDate and endDate must be provided together", …).
Result<Range> parse_range(const nlohmann::json& params, int64_t now_ms);

/// OpenClaw's CostUsageTotals.
struct Totals {
  int64_t input = 0, output = 0, cache_read = 0, cache_write = 0, total_tokens = 0;
  double total_cost = 0, input_cost = 0, output_cost = 0, cache_read_cost = 0, cache_write_cost = 0;
  int64_t missing_cost_entries = 0;
  std::map<std::string, int64_t> missing_cost_by_model;
  void add(const Totals& o);
  nlohmann::json to_json() const;  ///< {input, output, cacheRead, …, missingCostEntries, missingCostByModel?}
};

/// One transcript file that counts for usage.
struct TranscriptFile {
  std::string session_id;
  std::filesystem::path path;
  bool primary = false;  ///< `<sessionId>.jsonl` (not an archive)
  int64_t mtime_ms = 0;
};
/// The transcripts of one agent's sessions directory (primaries and reset/deleted archives).
std::vector<TranscriptFile> list_transcripts(const std::filesystem::path& sessions_dir);

/// Adds every message of `file` within `range` to `daily` (by day key) and `totals`.
void add_cost_usage(const std::filesystem::path& file, const Range& range, std::map<std::string, Totals>& daily, Totals& totals);

/// One session's summary over `files` (its transcript and archives) within `range`, in OpenClaw's
/// SessionCostSummary shape: the totals' fields, sessionId, sessionFile, firstActivity?,
/// lastActivity?, durationMs?, activityDates, dailyBreakdown, dailyMessageCounts,
/// dailyModelUsage?, messageCounts, toolUsage, modelUsage. nullopt when nothing of it is in range.
std::optional<nlohmann::json> session_summary(const std::string& session_id, const std::vector<TranscriptFile>& files,
                                              const Range& range);

/// OpenClaw's sessions.usage aggregates over the summaries of the listed sessions (each with its
/// agentId and channel, "" when unknown): sessionCount, longestSessionDurationMs?, messages,
/// tools, byModel, byProvider, byAgent, byChannel, costDaily, modelDaily, daily.
class Aggregate {
 public:
  void add(const nlohmann::json& summary, const std::string& agent_id, const std::string& channel);
  nlohmann::json finish() const;
  const Totals& totals() const { return totals_; }

 private:
  Totals totals_;
  int64_t sessions_ = 0, longest_ms_ = 0;
  nlohmann::json messages_ = {{"total", 0}, {"user", 0}, {"assistant", 0}, {"toolCalls", 0}, {"toolResults", 0}, {"errors", 0}};
  std::map<std::string, int64_t> tools_;
  std::map<std::string, nlohmann::json> models_, providers_, model_daily_, days_;
  std::map<std::string, Totals> agents_, channels_, cost_daily_;
};

/// Totals from the JSON of a summary (its top-level totals' fields).
Totals totals_from_json(const nlohmann::json& j);

}  // namespace pincer::gateway::usage
