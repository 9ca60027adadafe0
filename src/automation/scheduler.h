// The cron scheduler (AT-2): one timer on the gateway loop that sleeps until the next due job
// and starts it through a runner (the app hands it the agent's entry point). Nothing is armed
// while no enabled job has a next run — no polling. The job file (cron_store.h) is the truth:
// every change (methods, CLI, the agent's tool) is saved before it is answered, and hand edits of
// cron/jobs.json are picked up by reload_if_changed() (a stat of the file: size, mtime, inode),
// called before every method, when the timer fires and by the app's file watcher.
//
// At start (start()): runs cut off by a restart (the run journal) are resumed first, then each
// job that missed its time while the gateway was down runs once (cron.missedRuns "run-once") or
// is marked skipped ("skip"); never a burst. At most cron.maxConcurrentRuns jobs run at a time;
// a manual run of a busy scheduler waits for a slot. After a run: its history line
// (cron/runs/<id>.jsonl: status ok|error|skipped, durationMs, error, summary), the job's state
// (lastRunAtMs, nextRunAtMs, lastStatus, lastError, consecutiveErrors); a finished `at` job is
// disabled, or removed when deleteAfterRun is set and it succeeded.
//
// Clock seam: `now_ms` gives the wall time in Unix ms (tests use a manual clock and call tick()).
// Loop affinity: event-loop thread only; the runner's `done` must be called on the loop.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "automation/cron_plan.h"
#include "automation/cron_store.h"
#include "core/event_loop.h"
#include "core/result.h"

namespace pincer::automation {

/// The `cron.*` settings (docs/configuration.md).
struct CronSettings {
  bool enabled = true;            ///< cron.enabled: false = no job runs on its schedule (manual runs still do)
  int max_concurrent_runs = 1;    ///< cron.maxConcurrentRuns (>= 1)
  MissedRuns missed_runs = MissedRuns::RunOnce;  ///< cron.missedRuns: "run-once" | "skip"
  std::string default_zone;       ///< zone of schedules without tz (agents.defaults.userTimezone; "" = host)
  /// The agent ids (agents.list[].id, or "main") and channel ids (the keys of `channels`) a job
  /// added or changed through add()/update() may name as agentId / delivery.channel (besides
  /// "last"); nullopt = not checked. Jobs already in the file are never refused for them (the
  /// config may change back); a run of such a job fails with the agent's or channel's error.
  std::optional<std::vector<std::string>> known_agents, known_channels;
  /// The agent a job without `agentId` runs as (agents.list[] with `default: true`, else the first
  /// entry, else "main"; normalised): cron.list and cron.get answer it as `effectiveAgentId`.
  std::string default_agent = "main";
};
/// Reads `cron.*`, agents.defaults.userTimezone, the agent ids and the channel ids from a
/// validated config.
CronSettings cron_settings_from_config(const nlohmann::json& config);

/// The longest the timer sleeps before it looks again (a suspended machine's monotonic clock
/// stops; wall-clock jumps): a due job is at most this late after a resume. Only while jobs exist.
inline constexpr int64_t kCronMaxSleepMs = 10 * 60 * 1000;

/// How one run ended (the runner's answer).
struct CronRunResult {
  std::string status = "ok";  ///< "ok" | "error" | "skipped"
  std::string error;          ///< why, for error/skipped
  std::string summary;        ///< the run's final reply (cut to 2000 chars in the history)
  std::string session_key;    ///< the session the run used
  std::string delivery_status;  ///< "delivered" | "not-delivered" | "not-requested" | ""
  std::string delivery_error;
};

/// What the runner is asked to do.
struct CronRunRequest {
  std::string run_id;      ///< unique ("cron:<jobId>:<startMs>", or the journaled one on resume)
  bool manual = false;     ///< cron.run / `pincer cron run`
  std::string journal_id;  ///< non-empty: resume this run journal entry (cut off by a restart)
};

/// Starts one run of `job`; calls `done` once, on the loop, when it ended.
using CronRunner = std::function<void(const CronJob& job, const CronRunRequest& request,
                                      std::function<void(CronRunResult)> done)>;

/// A run the journal held unfinished at start (resumed before missed runs are planned).
struct CronInterruptedRun {
  std::string job_id, run_id, journal_id;
};

class CronScheduler {
 public:
  /// `dir` is `<state>/cron`. Nothing is read before start().
  CronScheduler(EventLoop& loop, std::function<int64_t()> now_ms, std::filesystem::path dir, CronSettings settings);
  ~CronScheduler();
  CronScheduler(const CronScheduler&) = delete;
  CronScheduler& operator=(const CronScheduler&) = delete;

  void set_runner(CronRunner runner) { runner_ = std::move(runner); }
  /// Receives OpenClaw's `cron` event payloads: {jobId, action: added|updated|removed|started|
  /// finished, runAtMs?, durationMs?, status?, error?, summary?, nextRunAtMs?, runId?}.
  void set_event_sink(std::function<void(const nlohmann::json&)> sink) { events_ = std::move(sink); }

  /// Loads the job file, resumes `interrupted`, runs or skips missed runs, arms the timer. A job
  /// file that is not JSON is an error (CRON_FILE_INVALID naming it): the scheduler then has no
  /// jobs, refuses changes (so the file is never overwritten) and retries on the next reload.
  Status start(const std::vector<CronInterruptedRun>& interrupted = {});
  /// For `pincer cron …` without a gateway: loads the job file for reading and editing only —
  /// nothing runs, no timer, missed runs are left to the gateway. Errors as start().
  Status open_offline();
  /// No new runs start; the timer is cancelled (running ones finish and are recorded).
  void stop();
  /// Applies new settings (hot reload): the limit, the schedule switch, the known agents and
  /// channels and the default zone apply now (jobs without their own `tz` get their next run in
  /// the new zone; the same rule as `pincer cron` computes offline from the config file).
  void reconfigure(CronSettings settings);

  /// Rereads cron/jobs.json when it changed on disk since the scheduler last read or wrote it;
  /// re-arms. Returns the load error, if any (the jobs in memory are then kept).
  Status reload_if_changed();
  /// The timer's work: reload, start due jobs within the limit, re-arm. Public for tests.
  void tick();

  // ---- the surfaces (methods, CLI through the gateway, the agent's tool) ----
  /// OpenClaw's `cron.status`: {enabled, storePath, jobs, nextWakeAtMs, running, issues}.
  nlohmann::json status();
  /// OpenClaw's `cron.list` page (each job with OpenClaw's `effectiveAgentId`: its agentId, else
  /// CronSettings::default_agent): {jobs, total, offset, limit, hasMore, nextOffset, snapshotRevision
  /// (changes when a listed job is added, removed or changed)}; jobs sorted
  /// by next run (none last); disabled ones only with `include_disabled`. Pincer adds `issues`
  /// (the invalid jobs, as status()) and `fileError` (jobs.json is broken: the jobs shown are the
  /// ones loaded before, if any) when there are any.
  nlohmann::json list(bool include_disabled, int64_t limit, int64_t offset);
  /// One job in OpenClaw's shape (with `effectiveAgentId` as list()'s), or NOT_FOUND.
  Result<nlohmann::json> get(const std::string& id);
  /// Adds a job (CronStore::add); errors name the field (CRON_JOB_INVALID also for an agentId or
  /// delivery.channel not in CronSettings::known_agents / known_channels). Emits `added`, re-arms.
  Result<nlohmann::json> add(const nlohmann::json& spec);
  /// Patches a job (CronStore::update); the patch's agentId / delivery.channel are checked as
  /// add()'s, and a schedule.tz on an `every` job is refused. Emits `updated`, re-arms.
  Result<nlohmann::json> update(const std::string& id, const nlohmann::json& patch);
  /// Removes a job and its history: {ok, removed}. NOT_FOUND for an unknown id.
  Result<nlohmann::json> remove(const std::string& id);
  /// `cron.run`: `force` runs now (or as soon as a slot frees), "due" only when due:
  /// {ok, enqueued: true, runId} or {ok, ran: false, reason: "not-due"|"already-running"|"disabled"}.
  Result<nlohmann::json> run(const std::string& id, bool force);
  /// `cron.runs`: {entries (newest first), total, offset, limit, hasMore, nextOffset}.
  Result<nlohmann::json> runs(const std::string& id, int64_t limit, int64_t offset);
  /// cron.runs {scope: "all"}: the run records of every job, newest first (by `ts`), each with
  /// its job's `jobName`; same page shape as runs().
  nlohmann::json runs_all(int64_t limit, int64_t offset);

  /// Job ids running now.
  std::vector<std::string> running() const;
  /// When the timer will fire (wall ms), nullopt when none is armed.
  std::optional<int64_t> armed_at_ms() const { return armed_at_; }
  const CronStore& store() const { return store_; }

 private:
  struct FileStamp {
    bool exists = false;
    std::uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const FileStamp&) const = default;
  };
  FileStamp stamp() const;
  nlohmann::json job_view(const CronJob& job) const;
  Status guard_writable() const;
  void after_write();
  void fill_missing_next(int64_t now);
  void apply_default_zone();
  void start_run(const std::string& id, CronRunRequest request);
  void run_finished(const std::string& id, const CronRunRequest& request, int64_t started, CronRunResult result);
  void pump();
  void arm();
  void emit(nlohmann::json event);

  EventLoop& loop_;
  std::function<int64_t()> now_;
  CronStore store_;
  CronSettings settings_;
  CronRunner runner_;
  std::function<void(const nlohmann::json&)> events_;
  bool started_ = false, stopped_ = false;
  std::string file_error_;  ///< the job file could not be read: changes are refused
  FileStamp seen_;
  std::map<std::string, std::string> running_;   ///< job id → run id
  std::deque<std::pair<std::string, CronRunRequest>> queued_;  ///< runs waiting for a slot
  std::optional<EventLoop::TimerId> timer_;
  std::optional<int64_t> armed_at_;
  int64_t run_seq_ = 0;
};

}  // namespace pincer::automation
