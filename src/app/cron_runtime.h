// The gateway's cron jobs at run time (AT-2): the scheduler (automation/scheduler.h) wired to
// the agent runtime and the channels. It owns
//   - the runner: a `systemEvent` job queues its text for the main session's next turn
//     (wakeMode next-heartbeat) or runs that turn now (wakeMode now: the event is its message);
//     an `agentTurn` job runs in the isolated session `cron:<jobId>` on the `cron` lane (which
//     never waits for a human approval) with the job's agent, model, thinking and timeout. Each
//     run is recorded in the run journal (source "cron") before it starts; one cut off by a
//     restart is resumed at the next start, once;
//   - delivery: `announce` sends the run's final reply to the job's channel/recipient (`last` =
//     the chat the agent last heard from) through the channels' outbox — durable, and never sent
//     twice; `webhook` POSTs the run's finished record to the job's URL (app/cron_webhook.h);
//     a failed delivery fails the run unless `bestEffort`;
//   - the `cron` tool's backend (the call is handed to the loop; the tool's worker waits);
//   - a watcher of cron/jobs.json (inotify, as the config file's): hand edits apply while running;
//   - the `cron` gateway event;
//   - Dreaming's managed sweep job (app/dreaming_runtime.h): kept in step with the config at
//     start and on reload, and run as a sweep rather than a model turn.
// Loop affinity: event-loop thread, except CronBackend::call (worker threads).
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "app/cron_webhook.h"
#include "app/dreaming_runtime.h"
#include "automation/scheduler.h"
#include "channels/channel_manager.h"
#include "gateway/config_watcher.h"
#include "gateway/gateway.h"

namespace pincer::app {

class CronRuntime {
 public:
  CronRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
              gateway::Gateway& gateway, const nlohmann::json& config, const std::filesystem::path& state_dir);
  ~CronRuntime();

  /// Takes the cron runs the journal holds unfinished, starts the scheduler (errors are logged:
  /// a broken jobs.json does not stop the gateway) and the file watcher. Call before
  /// AgentService::resume_unfinished(), after the channels were built.
  void start();
  /// A hot config reload: cron.* settings.
  void reconfigure(const nlohmann::json& config);
  /// The gateway is stopping: no new run starts.
  void stop();

  automation::CronScheduler& scheduler() { return *scheduler_; }

 private:
  struct Backend;
  void run_job(const automation::CronJob& job, const automation::CronRunRequest& request,
               std::function<void(automation::CronRunResult)> done);

  /// Delivers `result` (of `job`'s run `run_id`) to the job's webhook, then calls `done`.
  void deliver_webhook(const automation::CronJob& job, const std::string& run_id, automation::CronRunResult result,
                       std::function<void(automation::CronRunResult)> done);

  EventLoop& loop_;
  agent::AgentService& agents_;
  channels::ChannelManager& channels_;
  gateway::Gateway& gateway_;
  std::unique_ptr<automation::CronScheduler> scheduler_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<gateway::ConfigWatcher> watcher_;
  CronWebhookSettings webhook_;
  std::unique_ptr<net::HttpClient> http_;  ///< made at the first webhook delivery
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unique_ptr<DreamingRuntime> dreaming_;  ///< declared last: its sweep ends first
};

}  // namespace pincer::app
