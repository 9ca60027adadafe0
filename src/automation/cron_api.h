// The cron surface in OpenClaw's shapes (AT-2): `cron.status|list|get|add|update|remove|run|runs`
// as one call on the scheduler, shared by the gateway methods (methods/cron.cpp) and the agent's
// `cron` tool (tools/cron_tool.h, through the app's backend). Params as OpenClaw's:
//   list {includeDisabled?, limit? (1-1000, 50), offset?}   get|remove {id | jobId}
//   add {<the job>: name, schedule, sessionTarget?, wakeMode?, payload, delivery?, agentId?, …}
//   update {id | jobId, patch}   run {id | jobId, mode?: "force" (default) | "due"}
//   runs {id | jobId, limit? (1-200, 50), offset?}
// Errors: INVALID_REQUEST (a param, naming it: "cron.runs: id: required"), NOT_FOUND (unknown job
// id), CRON_JOB_INVALID / CRON_JOB_EXISTS / CRON_FILE_INVALID (from the store, naming the field).
// Loop affinity: as the scheduler (event-loop thread).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "automation/scheduler.h"
#include "core/result.h"

namespace pincer::automation {

/// The methods cron_call() answers, without the "cron." prefix.
inline constexpr std::string_view kCronActions[] = {"status", "list", "get", "add", "update", "remove", "run", "runs"};

/// Runs `action` (a kCronActions entry) with `params` (an object or null).
Result<nlohmann::json> cron_call(CronScheduler& scheduler, std::string_view action, const nlohmann::json& params);

}  // namespace pincer::automation
