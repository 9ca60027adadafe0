// The agent's `cron` tool (AT-2), OpenClaw's name and parameters:
//   cron {action: status|list|get|add|update|remove|run|runs, job?, jobId?/id?, includeDisabled?,
//         runMode?: "due" (default) | "force", limit?, offset?}
// `job` is the whole job for add and the fields to change for update. A job the agent adds gets
// the run's agent as agentId, sessionTarget "isolated" for an agentTurn, and — when it names no
// delivery target — the chat the run answers as its announce target (so "remind me at 8" from a
// Telegram chat answers in that chat). The answer is the gateway method's JSON.
//
// The tool talks to a CronBackend (the app's: it hands the call to the scheduler on the loop).
// Threading: called on tool worker threads.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/tool.h"

namespace pincer::tools {

class CronBackend {
 public:
  virtual ~CronBackend() = default;
  /// One cron action (automation/cron_api.h, with its params). Blocking; any thread but the loop's.
  virtual Result<nlohmann::json> call(const std::string& action, const nlohmann::json& params) = 0;
};

/// The job an agent adds, with the run's defaults filled in (see above). Pure.
nlohmann::json cron_job_with_run_defaults(nlohmann::json job, const ToolContext& ctx);

/// The `cron` tool (group "automation").
std::unique_ptr<Tool> make_cron_tool();

}  // namespace pincer::tools
