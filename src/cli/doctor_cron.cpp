// `pincer doctor`'s cron check (AT-2, docs/automation.md): jobs in <state>/cron/jobs.json whose
// `agentId` names no configured agent (e.g. left behind by an agent deleted by hand): every run
// of such a job fails, so each is named with the fix. Read only; the job file's own problems
// (not JSON, invalid jobs) are the gateway's and `pincer cron list`'s to report.
#include <algorithm>

#include "agent/agents_config.h"
#include "automation/cron_store.h"
#include "cli/doctor.h"
#include "cli/invoked_command.h"

namespace pincer::cli {

std::vector<Finding> check_cron_agents(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                       const config::EnvLookup& env) {
  auto agents = agent::resolve_agents(effective, state_dir, env);
  if (!agents) return {};  // the config finding says why
  automation::CronStore store(state_dir / "cron", "");
  if (!store.load()) return {};  // not JSON: the gateway and `cron list` name the line
  std::vector<Finding> out;
  const std::string default_id = agents->default_agent().id;
  for (const auto& job : store.jobs()) {
    if (job.agent_id.empty() || agents->find(job.agent_id) != nullptr) continue;
    const std::string name = job.name.empty() ? job.id : "\"" + job.name + "\" (" + job.id + ")";
    out.push_back({"cron", "warn",
                   "cron job " + name + " runs agent \"" + job.agent_id + "\", which is not configured: " +
                       (job.enabled ? "each of its runs fails" : "it is disabled, and would fail if enabled"),
                   "remove it (" + invoked_command() + " cron rm " + job.id + ") or give it a configured agent (" +
                       invoked_command() + " cron edit " + job.id + " --agent " + default_id + ")"});
  }
  return out;
}

}  // namespace pincer::cli
