// The cron jobs of a deleted agent (agent_cron_cleanup.h).
#include "app/agent_cron_cleanup.h"

#include "app/client_support.h"
#include "automation/cron_agent_jobs.h"
#include "automation/cron_api.h"
#include "automation/scheduler.h"
#include "core/config.h"
#include "core/log.h"
#include "core/paths.h"
#include "store/instance_lock.h"

namespace pincer::app {

using nlohmann::json;

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
    return automation::remove_agent_jobs(
        [&](std::string_view action, const json& params) { return automation::cron_call(sched, action, params); }, agent_id);
  }
  // Its gateway runs and owns the file: through it (the connection of this home's config).
  std::optional<Result<json>> outcome;
  ClientFlags flags;
  JsonErrors text_errors(false);  // a connection failure is said on stderr; stdout stays the command's
  (void)with_gateway(flags, [&](cli::GatewayClient& client) {
    outcome = automation::remove_agent_jobs(
        [&](std::string_view action, const json& params) {
          return client.call("cron." + std::string(action), params, flags.timeout());
        },
        agent_id);
    return 0;
  });
  if (!outcome) return Error{"UNREACHABLE", "this home's gateway runs but could not be asked (see above)"};
  return std::move(*outcome);
}

}  // namespace pincer::app
