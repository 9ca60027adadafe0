#include "automation/cron_plan.h"

#include <algorithm>

namespace pincer::automation {
namespace {

bool schedulable(const CronJob& job) { return job.enabled && job.invalid.empty(); }

}  // namespace

std::vector<std::string> plan_startup(std::vector<CronJob>& jobs, int64_t now_ms, MissedRuns policy) {
  std::vector<std::string> run_now;
  for (CronJob& job : jobs) {
    if (!schedulable(job)) {
      job.state.next_run_at_ms.reset();
      continue;
    }
    bool missed = false;
    if (job.state.next_run_at_ms) {
      missed = *job.state.next_run_at_ms <= now_ms;
    } else if (job.schedule.kind == Schedule::Kind::At) {
      missed = job.schedule.at_ms <= now_ms && !job.state.last_run_at_ms;  // never ran, time passed
    }
    // Brought up to date from now: the runs in between are not replayed one by one.
    job.state.next_run_at_ms = next_run_after(job.schedule, job.id, now_ms, job.created_at_ms);
    if (!missed) continue;
    if (policy == MissedRuns::RunOnce) {
      run_now.push_back(job.id);
    } else {
      job.state.last_status = "skipped";
      if (job.schedule.kind == Schedule::Kind::At) job.enabled = false;  // its one time is gone
    }
  }
  return run_now;
}

std::vector<std::string> due_jobs(const std::vector<CronJob>& jobs, int64_t now_ms,
                                  const std::vector<std::string>& running, int max_concurrent) {
  std::vector<const CronJob*> due;
  for (const CronJob& job : jobs) {
    if (!schedulable(job) || !job.state.next_run_at_ms || *job.state.next_run_at_ms > now_ms) continue;
    if (std::find(running.begin(), running.end(), job.id) != running.end()) continue;
    due.push_back(&job);
  }
  std::stable_sort(due.begin(), due.end(), [](const CronJob* a, const CronJob* b) {
    return *a->state.next_run_at_ms < *b->state.next_run_at_ms;
  });
  const int free = std::max(0, max_concurrent - static_cast<int>(running.size()));
  std::vector<std::string> out;
  for (const CronJob* job : due) {
    if (static_cast<int>(out.size()) >= free) break;
    out.push_back(job->id);
  }
  return out;
}

std::optional<int64_t> next_after_run(const CronJob& job, int64_t started_ms) {
  if (!schedulable(job) || job.schedule.kind == Schedule::Kind::At) return std::nullopt;
  std::optional<int64_t> next;
  int64_t sum = 0;
  if (job.schedule.kind != Schedule::Kind::Every) next = next_run_after(job.schedule, job.id, started_ms, job.created_at_ms);
  else if (!__builtin_add_overflow(started_ms, job.schedule.every_ms, &sum)) next = sum;  // OpenClaw: from the last run
  // The floor: a next run at or before this run's start (a wrapped sum, a bad value) would be due
  // again at once, a loop of model calls; no next run instead (and none after the schedules' end).
  if (next && (*next <= started_ms || *next > kScheduleMaxMs)) return std::nullopt;
  return next;
}

std::optional<int64_t> next_wake_ms(const std::vector<CronJob>& jobs) {
  std::optional<int64_t> wake;
  for (const CronJob& job : jobs)
    if (schedulable(job) && job.state.next_run_at_ms && (!wake || *job.state.next_run_at_ms < *wake))
      wake = job.state.next_run_at_ms;
  return wake;
}

}  // namespace pincer::automation
