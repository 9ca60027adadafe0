#include "app/cron_runtime.h"

#include <algorithm>
#include <chrono>
#include <future>

#include <spdlog/spdlog.h>

#include "agent/run_journal.h"
#include "agent/silent_reply.h"
#include "automation/cron_api.h"
#include "core/clock.h"
#include "tools/cron_tool.h"

namespace pincer::app {
namespace {

using nlohmann::json;

/// How often cron/jobs.json is stat'ed for hand edits without inotify, and how long it must be quiet.
constexpr int64_t kJobsFilePollMs = 1000;
constexpr int64_t kJobsFileDebounceMs = 300;
/// How long the cron tool waits for the loop's answer.
constexpr auto kToolCallTimeout = std::chrono::seconds(30);

}  // namespace

struct CronRuntime::Backend : tools::CronBackend {
  EventLoop& loop;
  automation::CronScheduler& scheduler;
  std::shared_ptr<bool> alive;
  Backend(EventLoop& l, automation::CronScheduler& s, std::shared_ptr<bool> a) : loop(l), scheduler(s), alive(std::move(a)) {}

  Result<json> call(const std::string& action, const json& params) override {
    auto promise = std::make_shared<std::promise<Result<json>>>();
    auto answer = promise->get_future();
    loop.post([this, promise, action, params, alive = alive] {
      if (!*alive) return promise->set_value(Error{"UNAVAILABLE", "the gateway is stopping"});
      promise->set_value(automation::cron_call(scheduler, action, params));
    });
    if (answer.wait_for(kToolCallTimeout) != std::future_status::ready)
      return Error{"UNAVAILABLE", "the scheduler did not answer within 30 s"};
    return answer.get();
  }
};

CronRuntime::CronRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
                         gateway::Gateway& gateway, const json& config, const std::filesystem::path& state_dir)
    : loop_(loop), agents_(agents), channels_(channels), gateway_(gateway) {
  scheduler_ = std::make_unique<automation::CronScheduler>(
      loop, [] { return SystemClock::instance().wall_ms(); }, state_dir / "cron",
      automation::cron_settings_from_config(config));
  scheduler_->set_runner([this](const automation::CronJob& job, const automation::CronRunRequest& request,
                                std::function<void(automation::CronRunResult)> done) {
    run_job(job, request, std::move(done));
  });
  scheduler_->set_event_sink([this](const json& event) { gateway_.broadcast_scoped_event("cron", event, "operator.read"); });
  webhook_ = cron_webhook_settings(config);
  backend_ = std::make_unique<Backend>(loop, *scheduler_, alive_);
  agents_.set_cron_backend(backend_.get());
  gateway_.set_cron(scheduler_.get());
  dreaming_ = std::make_unique<DreamingRuntime>(loop, config, state_dir);
}

CronRuntime::~CronRuntime() {
  *alive_ = false;
  agents_.set_cron_backend(nullptr);
  gateway_.set_cron(nullptr);
}

void CronRuntime::start() {
  agent::RunJournal& journal = agents_.journal();
  std::vector<automation::CronInterruptedRun> interrupted;
  for (const agent::JournalEntry& e : agents_.take_unfinished("cron")) {
    const std::string job_id = e.request.value("jobId", "");
    if (e.resumes >= agent::kMaxResumes || job_id.empty()) {
      spdlog::warn("cron: run {} of job {} was cut off by a restart again; not resumed", e.run_id, job_id);
      if (auto st = journal.answered(e.id, "abandoned"); !st) spdlog::error("run journal: {}", st.error().message);
      continue;
    }
    interrupted.push_back({job_id, e.run_id.empty() ? e.id : e.run_id, e.id});
  }
  (void)scheduler_->start(interrupted);  // a broken jobs.json is logged; the gateway runs on
  dreaming_->reconcile(*scheduler_, dreaming_->config());
  for (const auto& run : interrupted) {
    if (scheduler_->store().find(run.job_id)) continue;
    spdlog::warn("cron: run {} was cut off by a restart, and its job {} is gone; not resumed", run.run_id, run.job_id);
    if (auto st = journal.answered(run.journal_id, "abandoned"); !st) spdlog::error("run journal: {}", st.error().message);
  }
  watcher_ = std::make_unique<gateway::ConfigWatcher>(loop_, scheduler_->store().jobs_path(), kJobsFilePollMs,
                                                      kJobsFileDebounceMs, [this] { (void)scheduler_->reload_if_changed(); });
  watcher_->start();
}

void CronRuntime::reconfigure(const json& config) {
  scheduler_->reconfigure(automation::cron_settings_from_config(config));
  webhook_ = cron_webhook_settings(config);
  dreaming_->reconcile(*scheduler_, config);
}

void CronRuntime::deliver_webhook(const automation::CronJob& job, const std::string& run_id, automation::CronRunResult r,
                                  std::function<void(automation::CronRunResult)> done) {
  if (!http_) http_ = std::make_unique<net::HttpClient>(loop_);
  // The run's finished record, as the `cron` event names its fields.
  json payload = {{"ts", SystemClock::instance().wall_ms()}, {"jobId", job.id}, {"jobName", job.name},
                  {"action", "finished"}, {"status", r.status}, {"runId", run_id}};
  if (!r.session_key.empty()) payload["sessionKey"] = r.session_key;
  if (!r.summary.empty() && r.status != "error") payload["summary"] = r.summary;
  if (!r.error.empty()) payload["error"] = r.error;
  const bool best_effort = job.delivery.best_effort;
  post_cron_webhook(*http_, webhook_, job.delivery.to, payload,
                    [alive = alive_, done, r, best_effort, run_id](Status st) mutable {
                      if (!*alive) return;
                      r.delivery_status = st ? "delivered" : "not-delivered";
                      if (!st) {
                        r.delivery_error = st.error().message;
                        spdlog::warn("cron: run {}: the webhook was not delivered: {}", run_id, st.error().message);
                        if (!best_effort && r.status != "error") {
                          r.status = "error";
                          r.error = "delivery failed: " + st.error().message;
                        }
                      }
                      done(r);
                    });
}

void CronRuntime::stop() {
  if (watcher_) watcher_->stop();
  scheduler_->stop();
}

void CronRuntime::run_job(const automation::CronJob& job, const automation::CronRunRequest& request,
                          std::function<void(automation::CronRunResult)> done) {
  using automation::CronDelivery;
  using automation::CronPayload;
  using automation::CronRunResult;
  auto fail = [&](const std::string& why) {
    CronRunResult r;
    r.status = "error";
    r.error = why;
    done(r);
  };
  if (DreamingRuntime::owns(job)) return dreaming_->run(std::move(done));  // a sweep, not a model turn
  const std::string main_key = agents_.canonical_key("main", job.agent_id);
  const bool system_event = job.payload.kind == CronPayload::Kind::SystemEvent;
  if (system_event && !job.wake_now) {
    agents_.add_system_event(main_key, job.payload.text);  // the main session's next turn sees it
    CronRunResult r;
    r.summary = "queued for the next turn of " + main_key;
    r.session_key = main_key;
    r.delivery_status = "not-requested";
    return done(r);
  }
  agent::SendRequest send;
  send.agent_id = job.agent_id;
  send.run_id = request.run_id;
  send.lane = agent::RunLane::Cron;
  if (system_event) {  // wakeMode now: the main session takes a turn on the event at once
    send.session_key = main_key;
    send.message = agent::format_system_event(SystemClock::instance().wall_ms(), job.payload.text);
    while (!send.message.empty() && send.message.back() == '\n') send.message.pop_back();
  } else {
    send.session_key = automation::cron_session_key(job);
    send.message = job.payload.text;
    send.model = job.payload.model;
    send.thinking = job.payload.thinking;
    // At least 1 ms: a positive limit below a millisecond must not become 0, which means "no limit given".
    if (job.payload.timeout_seconds) {
      send.timeout_ms = std::max<int64_t>(1, static_cast<int64_t>(*job.payload.timeout_seconds * 1000));
    }
  }
  agent::RunJournal& journal = agents_.journal();
  if (request.journal_id.empty()) {  // recorded before it starts: a restart resumes it (SS-6)
    json record = agent::send_request_json(send);
    record["jobId"] = job.id;
    auto id = journal.accept("cron", record);
    if (!id) return fail("cannot record the run in the run journal: " + id.error().message);
    send.journal_ids = {*id};
  } else {
    send.journal_ids = {request.journal_id};
    send.resume = true;
    if (auto st = journal.resumed(request.journal_id); !st) spdlog::error("run journal: {}", st.error().message);
  }
  const CronDelivery delivery = job.delivery;
  std::string thread;
  if (auto d = job.raw.find("delivery"); d != job.raw.end() && d->is_object() && d->contains("threadId") &&
                                         (*d)["threadId"].is_string())
    thread = (*d)["threadId"].get<std::string>();
  auto ended = std::make_shared<bool>(false);
  auto sink = [this, alive = alive_, done, ended, delivery, thread, job, run_id = request.run_id](const agent::RunEvent& e) {
    using K = agent::RunEvent::Kind;
    if (*ended || (e.kind != K::End && e.kind != K::Error && e.kind != K::Aborted)) return;
    *ended = true;
    if (e.kind == K::Aborted && e.stop_reason == "shutdown") return;  // resumed at the next start
    CronRunResult r;
    r.session_key = e.session_key;
    if (e.kind == K::End) {
      r.summary = e.text;
      r.delivery_status = "not-requested";
      if (delivery.mode == CronDelivery::Mode::Announce && !e.text.empty()) {
        // Into the outbox now, before the journal marks the run answered (the sink runs first).
        auto st = channels_.announce(e.agent_id, delivery.channel, delivery.account_id, delivery.to, thread, e.text,
                                     "cron-" + run_id);
        r.delivery_status = st ? "delivered" : "not-delivered";
        if (!st) {
          // announce() names no keys: each caller has its own (the heartbeat's are target and to).
          r.delivery_error = st.error().message;
          if (st.error().code == "NOT_FOUND") r.delivery_error += " (set the job's delivery.channel and delivery.to)";
          spdlog::warn("cron: run {}: the reply was not announced: {}", run_id, r.delivery_error);
          if (!delivery.best_effort) {
            r.status = "error";
            r.error = "delivery failed: " + r.delivery_error;
          }
        }
      }
    } else if (e.kind == K::Error) {
      r.status = "error";
      r.error = e.error;
    } else {
      r.status = "error";
      r.error = "aborted (" + e.stop_reason + ")";
    }
    loop_.post([this, alive, done, r, job, run_id, webhook = delivery.mode == CronDelivery::Mode::Webhook] {
      if (!*alive) return;  // (the run is still on the stack where the sink runs)
      if (webhook) return deliver_webhook(job, run_id, r, done);
      done(r);
    });
  };
  auto accepted = agents_.send(send, agent::without_silent_replies(sink));  // a NO_REPLY is not announced (CX-10)
  if (!accepted) {
    for (const auto& id : send.journal_ids)
      if (auto st = journal.answered(id, "error"); !st) spdlog::error("run journal: {}", st.error().message);
    return fail(accepted.error().message);
  }
}

}  // namespace pincer::app
