// The cron jobs of one agent, removed when that agent is deleted (`pincer agents delete`,
// `agents.delete`; OpenClaw's agents delete removes them too): a job whose agentId names an agent
// that no longer exists fails at every run.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::automation {

/// cron.<action> (cron_api.h's actions and shapes): the scheduler's cron_call, or a gateway's
/// cron.* methods for a client.
using CronCallFn = std::function<Result<nlohmann::json>(std::string_view action, const nlohmann::json& params)>;

/// Removes every job whose agentId is `agent_id` (disabled ones too) through `call`: list, then
/// remove one by one. Returns [{id, name}] of the jobs removed, in list order ([] for none). An
/// error names what failed and the ids of the jobs still there.
Result<nlohmann::json> remove_agent_jobs(const CronCallFn& call, const std::string& agent_id);

}  // namespace pincer::automation
