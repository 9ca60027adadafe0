// Dreaming settings (SPEC DR-1), read from OpenClaw's place for them:
// `plugins.entries.memory-core.config.dreaming` of pincer.json. Pure; thread-safe.
//
//   enabled            false   recall tracking, the managed cron job and sweeps are off
//   frequency          "0 3 * * *"  cron expression of the managed sweep job
//   timezone           ""      IANA zone of the day buckets and the schedule; "" =
//                              agents.defaults.userTimezone, else the host's zone
//   timeoutSeconds     120     longest one sweep may work; the rest waits for the next sweep
//   nonDurable         false   sweeps write their reports and state but never MEMORY.md
//   phases.deep.*      the promotion gates and limits (DR-3): limit 10, minScore 0.75,
//                      minRecallCount 3, minUniqueQueries 2, recencyHalfLifeDays 14,
//                      maxPromotedSnippetTokens 160 (≈ 4 bytes a token)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::memory::dreaming {

struct DreamingSettings {
  bool enabled = false;
  std::string frequency = "0 3 * * *";
  std::string timezone;  ///< resolved: the dreaming zone, else the user's, else the host's
  int64_t timeout_ms = 120'000;
  bool non_durable = false;
  int limit = 10;                       ///< most promotions per sweep
  double min_score = 0.75;              ///< DR-3 gate
  int min_recall_count = 3;             ///< DR-3 gate
  int min_unique_queries = 2;           ///< DR-3 gate
  double recency_half_life_days = 14;   ///< DR-3 recency
  int max_snippet_tokens = 160;         ///< a promoted snippet keeps at most 4× this many bytes
};

/// The settings of a (validated) config; missing or wrong-typed values take the defaults.
DreamingSettings resolve_dreaming_settings(const nlohmann::json& config);

/// What the schema cannot check of the block: a `frequency` that is not a cron expression, a
/// `timezone` that is not a zone of this host's database. One line each, naming the key.
std::vector<std::string> dreaming_problems(const nlohmann::json& config);

/// The config path of the block, for messages: "plugins.entries.memory-core.config.dreaming".
inline constexpr const char* kDreamingConfigPath = "plugins.entries.memory-core.config.dreaming";

}  // namespace pincer::memory::dreaming
