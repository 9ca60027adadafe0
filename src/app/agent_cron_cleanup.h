// The cron jobs of a deleted agent (`pincer agents delete`, as OpenClaw's agents delete removes
// them): a job whose agentId names an agent that no longer exists fails at every run.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::app {

/// Removes every cron job whose agentId is `agent_id`: through this home's gateway while one runs
/// (its lock file says so; it owns cron/jobs.json then), else in
/// `<state_dir>/cron/jobs.json` itself (with their run histories). Returns [{id, name}] of the
/// jobs removed, in file order ([] when there were none). An error (the gateway refused, the file
/// does not read, a write failed) names what failed and the jobs that are left.
Result<nlohmann::json> remove_agent_cron_jobs(const std::string& agent_id, const std::filesystem::path& state_dir);

}  // namespace pincer::app
