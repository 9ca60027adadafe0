// What the scheduler does with the jobs (AT-2), as pure decisions on the clock's value: the
// missed runs at start (once each, never a burst, or skipped), which jobs are due now within
// `maxConcurrentRuns`, and when to wake next (nothing at all when no job is scheduled). The
// scheduler (one timer on the gateway loop) calls these; they do no I/O. Any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "automation/cron_job.h"

namespace pincer::automation {

/// `cron.missedRuns`: a job whose time passed while the gateway was down runs once at start
/// (RunOnce, OpenClaw's behaviour) or waits for its next time (Skip).
enum class MissedRuns { RunOnce, Skip };

/// At start: brings every enabled, valid job's next run up to date and returns the ids of those
/// that missed one or more runs while down and should run now (RunOnce: once each, however many
/// times were missed). A job without a stored next run gets one computed from `now_ms`; an `at`
/// job whose time passed without a run counts as missed. Skipped jobs get lastStatus "skipped"; a
/// skipped `at` job is done, as after its run: it is disabled (kept with its record).
std::vector<std::string> plan_startup(std::vector<CronJob>& jobs, int64_t now_ms, MissedRuns policy);

/// The jobs due at `now_ms` (enabled, valid, next run <= now, not in `running`), earliest first,
/// at most `max_concurrent - running.size()` of them.
std::vector<std::string> due_jobs(const std::vector<CronJob>& jobs, int64_t now_ms,
                                  const std::vector<std::string>& running, int max_concurrent);

/// After a run started at `started_ms`: the job's next run (nullopt for a finished `at` job or a
/// disabled one). Always later than `started_ms` (never due again at once) and at most
/// kScheduleMaxMs, else nullopt; the sum for `every` is checked, never wraps.
std::optional<int64_t> next_after_run(const CronJob& job, int64_t started_ms);

/// The earliest next run of the enabled, valid jobs; nullopt when there is none (then the
/// scheduler arms no timer at all).
std::optional<int64_t> next_wake_ms(const std::vector<CronJob>& jobs);

}  // namespace pincer::automation
