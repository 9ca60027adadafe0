// The cron job file (AT-2): `<state>/cron/jobs.json` in OpenClaw's legacy v1 shape
// `{"version": 1, "jobs": [ … ]}`, human-editable, written atomically (temp + fsync + rename);
// run history in `<state>/cron/runs/<id>.jsonl`, one JSON object a line, bounded.
//
// A job is never silently dropped: one that fails validation is kept as written, treated as
// disabled and listed in `issues()` with a message naming the job and the field. A file that is
// not JSON at all is an error and stays untouched (nothing is rewritten over it).
//
// Blocking file I/O on small files; not thread-safe (one owner, e.g. the gateway loop).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "automation/cron_job.h"
#include "core/result.h"

namespace pincer::automation {

/// Run history lines kept per job (older lines are dropped when the file is rewritten).
inline constexpr std::size_t kCronRunHistoryLines = 200;

class CronStore {
 public:
  /// `dir` is `<state>/cron`; `default_zone` the zone of schedules without `tz` (empty = host's).
  CronStore(std::filesystem::path dir, std::string default_zone);

  /// (Re)reads jobs.json; a missing file is an empty store. Errors: CRON_FILE_INVALID (not JSON —
  /// naming the line and column —, two jobs with one id — naming the line of the second —,
  /// or no `jobs` array) naming the path; the jobs in memory are then unchanged.
  Status load();
  /// Writes jobs.json atomically (IO_ERROR naming the path).
  Status save() const;

  const std::vector<CronJob>& jobs() const { return jobs_; }
  /// The jobs to bring their state up to date in place (the scheduler's plan_startup); save() after.
  std::vector<CronJob>& mutable_jobs() { return jobs_; }
  /// One line per invalid job, as in CronJob::invalid.
  std::vector<std::string> issues() const;
  const CronJob* find(std::string_view id) const;

  /// Validates `spec` (OpenClaw's job shape without id/timestamps), gives it an id (uuid) when it
  /// has none, stamps createdAtMs/updatedAtMs = `now_ms`, computes the next run, saves. A schedule
  /// that can never fire — an `at` more than a minute ago, a cron expression without a run in 5
  /// years — is refused (check_cron_job_fires, as OpenClaw's cron.add); an `at` up to a minute ago
  /// is due at once.
  Result<CronJob> add(nlohmann::json spec, int64_t now_ms);
  /// Merges `patch` into the job (objects merged, `null` removes), revalidates, saves. The run
  /// record (lastRunAtMs, lastStatus, lastError, consecutiveErrors) is kept; the next run is
  /// computed again from `now_ms`. A patch with a `schedule` is refused as add() refuses one.
  Result<CronJob> update(std::string_view id, const nlohmann::json& patch, int64_t now_ms);
  /// Removes the job and its run history. NOT_FOUND for an unknown id.
  Status remove(std::string_view id);
  /// Replaces the state of a job (after a run) and saves.
  Status set_state(std::string_view id, const CronJobState& state);

  /// Appends one run record to runs/<id>.jsonl (no fsync: history, not state); the file is cut
  /// to the newest kCronRunHistoryLines whenever it reaches twice that.
  Status append_run(std::string_view id, const nlohmann::json& entry);
  /// The newest `limit` (at most kCronRunHistoryLines) run records, newest last; a torn line is skipped.
  std::vector<nlohmann::json> runs(std::string_view id, std::size_t limit) const;

  const std::filesystem::path& jobs_path() const { return jobs_path_; }
  /// The zone of schedules without `tz` from the next load() on (agents.defaults.userTimezone).
  void set_default_zone(std::string zone) { default_zone_ = std::move(zone); }
  const std::string& default_zone() const { return default_zone_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path jobs_path_;
  std::string default_zone_;
  std::vector<CronJob> jobs_;
  nlohmann::json extra_ = nlohmann::json::object();  // top-level keys other than version/jobs
};

}  // namespace pincer::automation
