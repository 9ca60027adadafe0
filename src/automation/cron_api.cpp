#include "automation/cron_api.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

Error bad_param(std::string_view action, const std::string& what) {
  return Error{"INVALID_REQUEST", "cron." + std::string(action) + ": " + what};
}

Result<std::string> job_id_of(std::string_view action, const json& params) {
  for (const char* key : {"id", "jobId"}) {
    auto it = params.find(key);
    if (it == params.end() || it->is_null()) continue;
    if (!it->is_string() || it->get<std::string>().empty()) return bad_param(action, std::string(key) + ": expected a job id");
    return it->get<std::string>();
  }
  return bad_param(action, "id: required (the job id)");
}

Result<int64_t> int_param(std::string_view action, const json& params, const char* key, int64_t fallback, int64_t lo,
                          int64_t hi) {
  auto it = params.find(key);
  if (it == params.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    return bad_param(action, std::string(key) + ": expected an integer " + std::to_string(lo) + "-" + std::to_string(hi));
  return it->get<int64_t>();
}

}  // namespace

Result<json> cron_call(CronScheduler& scheduler, std::string_view action, const json& raw) {
  if (!raw.is_null() && !raw.is_object()) return bad_param(action, "params must be an object");
  const json params = raw.is_object() ? raw : json::object();
  if (action == "status") return scheduler.status();
  if (action == "list") {
    auto limit = int_param(action, params, "limit", 50, 1, 1000);
    if (!limit) return limit.error();
    auto offset = int_param(action, params, "offset", 0, 0, INT32_MAX);
    if (!offset) return offset.error();
    bool include_disabled = false;
    if (auto it = params.find("includeDisabled"); it != params.end() && !it->is_null()) {
      if (!it->is_boolean()) return bad_param(action, "includeDisabled: expected true or false");
      include_disabled = it->get<bool>();
    }
    return scheduler.list(include_disabled, *limit, *offset);
  }
  if (action == "add") {
    json spec = params;
    spec.erase("idempotencyKey");
    if (spec.contains("job") && spec["job"].is_object() && !spec.contains("schedule")) spec = spec["job"];
    spec.erase("effectiveAgentId");  // cron.list's read-only view field (a job copied from a listing)
    return scheduler.add(spec);
  }
  if (action == "runs") {
    // OpenClaw's scope "all" (the Automations page's run history): every job's runs.
    const auto scope = params.find("scope");
    if (scope != params.end() && !scope->is_null() && (!scope->is_string() || (*scope != "all" && *scope != "job"))) {
      return bad_param(action, "scope: expected \"job\" or \"all\"");
    }
    if (scope != params.end() && *scope == "all") {
      auto limit = int_param(action, params, "limit", 50, 1, 200);
      if (!limit) return limit.error();
      auto offset = int_param(action, params, "offset", 0, 0, INT32_MAX);
      if (!offset) return offset.error();
      return scheduler.runs_all(*limit, *offset);
    }
  }
  auto id = job_id_of(action, params);
  if (!id) return id.error();
  if (action == "get") return scheduler.get(*id);
  if (action == "remove") return scheduler.remove(*id);
  if (action == "update") {
    auto patch = params.find("patch");
    if (patch == params.end() || !patch->is_object()) return bad_param(action, "patch: required (an object of the fields to change)");
    json fields = *patch;
    fields.erase("effectiveAgentId");  // read-only, as in add
    return scheduler.update(*id, fields);
  }
  if (action == "run") {
    std::string mode = "force";
    if (auto it = params.find("mode"); it != params.end() && !it->is_null()) {
      if (!it->is_string() || (*it != "force" && *it != "due")) return bad_param(action, "mode: expected \"force\" or \"due\"");
      mode = it->get<std::string>();
    }
    return scheduler.run(*id, mode == "force");
  }
  if (action == "runs") {
    auto limit = int_param(action, params, "limit", 50, 1, 200);
    if (!limit) return limit.error();
    auto offset = int_param(action, params, "offset", 0, 0, INT32_MAX);
    if (!offset) return offset.error();
    return scheduler.runs(*id, *limit, *offset);
  }
  return Error{"INVALID_REQUEST", "unknown cron action '" + std::string(action) + "'"};
}

}  // namespace pincer::automation
