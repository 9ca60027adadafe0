// Dreaming in the gateway (SPEC DR-1): keeps the managed sweep job (memory/dreaming/managed_cron.h)
// in the cron scheduler in step with the config — added when dreaming is enabled, updated when
// its frequency or zone changes, removed when it is disabled; at start and on every hot reload —
// and runs the sweep when that job fires, over every agent's workspace (each once), on a worker
// thread; the cron run record gets {status, summary} of the sweep. No timer of its own: the cron
// scheduler's timer is the only wake-up.
// Loop affinity: event-loop thread (the sweep itself runs on the worker; `done` is posted back).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "automation/scheduler.h"
#include "core/event_loop.h"

namespace pincer::app {

class DreamingRuntime {
 public:
  DreamingRuntime(EventLoop& loop, nlohmann::json config, std::filesystem::path state_dir);
  ~DreamingRuntime();  ///< waits for a sweep in progress

  /// Brings the managed job in `scheduler` in line with `config` (kept for the next sweep).
  /// Errors are logged (a broken jobs.json refuses changes; the next reload tries again).
  void reconcile(automation::CronScheduler& scheduler, const nlohmann::json& config);

  const nlohmann::json& config() const { return config_; }

  /// True for the managed sweep job.
  static bool owns(const automation::CronJob& job);
  /// Runs one sweep for the job's run; `done` is called on the loop when it ended.
  void run(std::function<void(automation::CronRunResult)> done);

 private:
  EventLoop& loop_;
  nlohmann::json config_;
  std::filesystem::path state_dir_;
  std::thread worker_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::app
