// The cron methods (AT-2) in OpenClaw's shapes: cron.status, cron.list, cron.get, cron.add,
// cron.update, cron.remove, cron.run, cron.runs — each one call on the scheduler
// (automation/cron_api.h). Reads need operator.read, changes operator.admin (protocol/scopes.cpp).
#include "automation/cron_api.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

MethodResult cron_method(MethodContext& ctx, std::string_view action) {
  automation::CronScheduler* cron = ctx.gateway.cron();
  if (!cron) return RpcError::unavailable("the cron scheduler is not running");
  auto result = automation::cron_call(*cron, action, ctx.request.params);
  if (!result) {
    const Error& e = result.error();
    if (e.code == "IO_ERROR") return RpcError::unavailable(e.message);
    if (e.code == "NOT_FOUND") {
      // OpenClaw v4's typed miss (CronJobNotFoundErrorDetails): clients read the job id from the
      // details instead of the message.
      const nlohmann::json& p = ctx.request.params;
      std::string job_id;
      for (const char* key : {"id", "jobId"}) {
        if (p.is_object() && p.contains(key) && p[key].is_string()) {
          job_id = p[key].get<std::string>();
          break;
        }
      }
      return RpcError::invalid(e.message, nlohmann::json{{"code", "CRON_JOB_NOT_FOUND"}, {"jobId", job_id}});
    }
    return RpcError::invalid(e.message, nlohmann::json{{"code", e.code}});
  }
  return std::move(*result);
}

}  // namespace

void register_cron_methods(MethodRegistry& registry) {
  for (std::string_view action : automation::kCronActions) {
    const std::string name = "cron." + std::string(action);
    // Not control-plane writes (GW-8's 3 a minute): job changes are admin-scoped and saved to the
    // job file, not the gateway's config; a few reminders a minute must not be refused.
    registry.add({name, [action](MethodContext& ctx) { return cron_method(ctx, action); }, false, false});
  }
  register_heartbeat_methods(registry);  // wake (OpenClaw's cron family), set-heartbeats
}

}  // namespace pincer::gateway
