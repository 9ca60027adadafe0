// One cron job in OpenClaw's shape (AT-2): `{id, name, description?, enabled, agentId?,
// schedule, sessionTarget: main|isolated, wakeMode: now|next-heartbeat, payload:
// {kind:"systemEvent", text} | {kind:"agentTurn", message, model?, thinking?, timeoutSeconds?},
// delivery?: {mode: announce|webhook|none, channel?: last|<id>, to?, accountId?, bestEffort?},
// deleteAfterRun?, createdAtMs, updatedAtMs, state?}`.
//
// The job's JSON is kept as written (`raw`): fields Pincer does not read (OpenClaw's newer
// options) survive a rewrite of the file. Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "automation/schedule.h"
#include "core/result.h"

namespace pincer::automation {

struct CronPayload {
  enum class Kind { SystemEvent, AgentTurn };
  Kind kind = Kind::SystemEvent;
  std::string text;  ///< systemEvent.text or agentTurn.message
  std::string model;
  std::string thinking;
  std::optional<double> timeout_seconds;
};

struct CronDelivery {
  enum class Mode { None, Announce, Webhook };
  Mode mode = Mode::None;
  std::string channel;  ///< "last" or a channel id; empty = last
  std::string to;
  std::string account_id;
  bool best_effort = false;
};

/// Run state kept with the job (OpenClaw's `state`): absolute instants in Unix ms.
struct CronJobState {
  std::optional<int64_t> next_run_at_ms;
  std::optional<int64_t> last_run_at_ms;
  std::string last_status;  ///< "ok" | "error" | "skipped" | ""
  std::string last_error;
  int consecutive_errors = 0;
};

struct CronJob {
  std::string id;
  std::string name;
  bool enabled = true;
  std::string agent_id;  ///< empty = the default agent
  Schedule schedule;
  bool isolated = false;         ///< sessionTarget "isolated" (session `cron:<id>`), else "main"
  bool wake_now = false;         ///< wakeMode "now", else "next-heartbeat"
  CronPayload payload;
  CronDelivery delivery;
  bool delete_after_run = false;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  CronJobState state;
  nlohmann::json raw = nlohmann::json::object();  ///< as written, with state merged on write
  /// Non-empty for a job that failed validation: it is kept (raw), treated as disabled and
  /// reported with this message ("job 'water' (jobs[2]): payload.text: required").
  std::string invalid;
};

/// The shortest `every` interval a job may have (1 s): every run is an agent turn or a wake of the
/// main session, so a sub-second interval is a typo (`everyMs: 20` meant 20 minutes?), never a
/// schedule. One rule for the `cron` tool, cron.add/cron.update and `pincer cron` (parse_cron_job).
inline constexpr int64_t kCronMinEveryMs = 1000;

/// Reads and validates one job. `where` names it in messages ("jobs[2]"); `default_zone` is
/// the zone of schedules without `tz`. Errors (CRON_JOB_INVALID) name the job and the field;
/// `id_generated` (a new job whose id Pincer made up) leaves the id out: the caller never saw it.
Result<CronJob> parse_cron_job(const nlohmann::json& j, std::string_view where, std::string_view default_zone,
                               bool id_generated = false);

/// The check of a job being added, or given a new schedule, through the scheduler (the cron tool,
/// cron.add/cron.update, `pincer cron add|edit`): a schedule that can never fire (schedule_never_fires:
/// a cron expression without a run in 5 years, an `at` in the past) is refused with CRON_JOB_INVALID
/// naming the job as parse_cron_job does, the field and the value ("new job: schedule.expr: '0 0 31 2 *'
/// never runs: …"). A job read from the file is not checked: its one-shot may have run already.
Status check_cron_job_fires(const CronJob& job, std::string_view where, bool id_generated, int64_t now_ms);

/// The job as stored: `raw` with the fields Pincer owns (enabled, timestamps, state) written back.
nlohmann::json cron_job_to_json(const CronJob& job);

/// The isolated session of a job: "cron:<id>".
std::string cron_session_key(const CronJob& job);

}  // namespace pincer::automation
