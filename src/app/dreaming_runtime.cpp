#include "app/dreaming_runtime.h"

#include <set>

#include <spdlog/spdlog.h>

#include "agent/agents_config.h"
#include "core/clock.h"
#include "core/config.h"
#include "memory/dreaming/managed_cron.h"
#include "memory/dreaming/sweep.h"

namespace pincer::app {

using nlohmann::json;
namespace dreaming = memory::dreaming;

DreamingRuntime::DreamingRuntime(EventLoop& loop, json config, std::filesystem::path state_dir)
    : loop_(loop), config_(std::move(config)), state_dir_(std::move(state_dir)) {}

DreamingRuntime::~DreamingRuntime() {
  *alive_ = false;
  if (worker_.joinable()) worker_.join();
}

bool DreamingRuntime::owns(const automation::CronJob& job) { return dreaming::is_managed_dreaming_job(job.raw); }

void DreamingRuntime::reconcile(automation::CronScheduler& scheduler, const json& config) {
  config_ = config;
  for (const auto& line : dreaming::apply_dreaming_cron(scheduler, dreaming::resolve_dreaming_settings(config))) {
    if (line.rfind("cannot", 0) == 0) spdlog::warn("dreaming: {}", line);
    else spdlog::info("dreaming: {}", line);
  }
}

void DreamingRuntime::run(std::function<void(automation::CronRunResult)> done) {
  const dreaming::DreamingSettings s = dreaming::resolve_dreaming_settings(config_);
  if (!s.enabled) {
    automation::CronRunResult r;
    r.status = "skipped";
    r.error = std::string(dreaming::kDreamingConfigPath) + ".enabled is false";
    return done(r);
  }
  auto agents = agent::resolve_agents(config_, state_dir_, config::process_env());
  if (!agents) {
    automation::CronRunResult r;
    r.status = "error";
    r.error = agents.error().message;
    return done(r);
  }
  std::vector<std::filesystem::path> workspaces;
  std::set<std::string> seen;
  for (const auto& a : agents->agents) {
    if (seen.insert(a.workspace.lexically_normal().string()).second) workspaces.push_back(a.workspace);
  }
  if (worker_.joinable()) worker_.join();  // the previous sweep has ended (it posted its result)
  worker_ = std::thread([this, s, workspaces, done = std::move(done), alive = alive_] {
    automation::CronRunResult r;
    std::string summary;
    for (const auto& ws : workspaces) {
      dreaming::SweepOptions o;
      o.now_ms = SystemClock::instance().wall_ms();
      auto swept = dreaming::run_sweep(ws, s, o);
      if (!swept) {
        r.status = "error";
        r.error += (r.error.empty() ? "" : "; ") + ws.string() + ": " + swept.error().message;
        continue;
      }
      summary += (summary.empty() ? "" : "; ") + ws.filename().string() + ": staged " +
                 std::to_string(swept->staged.size()) + ", " + (swept->non_durable ? "would promote " : "promoted ") +
                 std::to_string(swept->promoted.size()) + (swept->timed_out ? " (time limit reached)" : "");
    }
    r.summary = summary.empty() ? "no workspace" : summary;
    r.delivery_status = "not-requested";
    loop_.post([alive, done, r] {
      if (*alive) done(r);
    });
  });
}

}  // namespace pincer::app
