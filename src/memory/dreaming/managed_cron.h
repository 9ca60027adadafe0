// The one cron job that runs the dreaming sweep (SPEC DR-1), managed as OpenClaw's memory-core
// manages its own: marked `declarationKey: "memory-core:memory-dreaming-promotion"`, named
// "Memory Dreaming Promotion", schedule {kind: cron, expr: frequency, tz: timezone}, isolated,
// wakeMode now, delivery none, payload an agentTurn whose message is the sweep token (the cron
// runtime runs the sweep for such a job instead of a model turn). With dreaming on the job is
// added or brought up to date (duplicates removed); with dreaming off it is removed.
// plan_dreaming_cron is pure JSON; apply_dreaming_cron applies it to a scheduler (its thread).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "automation/scheduler.h"
#include "memory/dreaming/dreaming_settings.h"

namespace pincer::memory::dreaming {

inline constexpr const char* kManagedCronKey = "memory-core:memory-dreaming-promotion";
inline constexpr const char* kManagedCronName = "Memory Dreaming Promotion";
inline constexpr const char* kSweepToken = "__pincer_memory_dreaming_sweep__";

/// True for the managed job (its declarationKey), whatever else was edited in it.
bool is_managed_dreaming_job(const nlohmann::json& raw_job);

/// The job as it should be (OpenClaw's job shape without id/timestamps).
nlohmann::json desired_dreaming_job(const DreamingSettings& s);

struct CronPlan {
  std::vector<std::string> remove;                                ///< job ids
  std::optional<nlohmann::json> add;                              ///< a job spec
  std::optional<std::pair<std::string, nlohmann::json>> update;   ///< id, patch
  bool empty() const { return remove.empty() && !add && !update; }
};

/// What to change in `jobs` (each a job as stored: {id, createdAtMs?, …}) so that exactly one
/// managed job matches `s` (none when dreaming is off). The oldest managed job is kept.
CronPlan plan_dreaming_cron(const std::vector<nlohmann::json>& jobs, const DreamingSettings& s);

/// Applies the plan for `s` to `scheduler` (loaded: started or open_offline). Returns one line
/// per change ("added …", "removed …", "updated …") and per failure ("cannot add …: why").
std::vector<std::string> apply_dreaming_cron(automation::CronScheduler& scheduler, const DreamingSettings& s);

}  // namespace pincer::memory::dreaming
