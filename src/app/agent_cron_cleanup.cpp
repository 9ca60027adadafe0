// The cron jobs of a deleted agent (agent_cron_cleanup.h).
#include "app/agent_cron_cleanup.h"

#include <functional>

#include "app/client_support.h"
#include "automation/cron_api.h"
#include "automation/scheduler.h"
#include "core/config.h"
#include "core/log.h"
#include "core/paths.h"
#include "store/instance_lock.h"

namespace pincer::app {

namespace {

using nlohmann::json;
/// cron.<action> through the gateway or the scheduler of the file.
using CronCall = std::function<Result<json>(const std::string& action, const json& params)>;

Result<json> remove_jobs_of(const std::string& agent_id, const CronCall& call) {
  std::vector<json> mine;
  for (int64_t offset = 0;;) {
    auto page = call("list", {{"includeDisabled", true}, {"limit", 1000}, {"offset", offset}});
    if (!page) return Error{page.error().code, "cannot list the cron jobs: " + page.error().message};
    const json jobs = page->value("jobs", json::array());
    for (const auto& j : jobs) {
      if (j.is_object() && j.value("agentId", "") == agent_id) mine.push_back(j);
    }
    if (!page->value("hasMore", false) || jobs.empty()) break;
    offset += static_cast<int64_t>(jobs.size());
  }
  json removed = json::array();
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const std::string id = mine[i].value("id", "");
    if (auto r = call("remove", {{"id", id}}); !r) {
      std::string left;
      for (std::size_t k = i; k < mine.size(); ++k) left += (left.empty() ? "" : ", ") + mine[k].value("id", "");
      return Error{r.error().code, "cron job " + id + ": " + r.error().message + " (still there: " + left + ")"};
    }
    removed.push_back({{"id", id}, {"name", mine[i].value("name", "")}});
  }
  return removed;
}

}  // namespace

Result<json> remove_agent_cron_jobs(const std::string& agent_id, const std::filesystem::path& state_dir) {
  if (!store::read_lock_holder(paths::gateway_lock_file(state_dir))) {
    // No gateway of this home runs: the file itself, as `pincer cron rm` does then. The
    // scheduler's log lines go to stderr (core/log.h); only warnings here.
    log::Options quiet;
    quiet.level = "warn";
    (void)log::init(quiet);
    EventLoop loop(1);
    automation::CronScheduler sched(loop, [] { return SystemClock::instance().wall_ms(); }, state_dir / "cron",
                                    automation::cron_settings_from_config(json::object()));
    if (auto st = sched.open_offline(); !st) return Error{st.error().code, st.error().message};
    return remove_jobs_of(agent_id, [&](const std::string& action, const json& params) {
      return automation::cron_call(sched, action, params);
    });
  }
  // Its gateway runs and owns the file: through it (the connection of this home's config).
  std::optional<Result<json>> outcome;
  ClientFlags flags;
  JsonErrors text_errors(false);  // a connection failure is said on stderr; stdout stays the command's
  (void)with_gateway(flags, [&](cli::GatewayClient& client) {
    outcome = remove_jobs_of(agent_id, [&](const std::string& action, const json& params) {
      return client.call("cron." + action, params, flags.timeout());
    });
    return 0;
  });
  if (!outcome) return Error{"UNREACHABLE", "this home's gateway runs but could not be asked (see above)"};
  return std::move(*outcome);
}

}  // namespace pincer::app
