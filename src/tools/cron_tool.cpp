#include "tools/cron_tool.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

class CronTool : public Tool {
 public:
  std::string_view name() const override { return "cron"; }
  std::string_view description() const override {
    return "Scheduled jobs (reminders, recurring checks). add: job {name, schedule, payload, delivery?}; schedule "
           "{kind:\"at\", at:\"2026-07-01T08:00\"} (ISO; no offset = the user's zone) | {kind:\"every\", everyMs} | "
           "{kind:\"cron\", expr:\"0 8 * * *\", tz?}; payload {kind:\"agentTurn\", message}: you run then and your "
           "reply goes to this chat, or {kind:\"systemEvent\", text} with sessionTarget \"main\": a note in the main "
           "session. update: jobId + the fields to change. run: runMode \"force\" runs now. runs: a job's history.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"action",
           {{"type", "string"},
            {"enum", {"status", "list", "get", "add", "update", "remove", "run", "runs"}},
            {"description", "What to do."}}},
          {"job", {{"type", "object"}, {"description", "add: the job; update: the fields to change (null clears)."}}},
          {"jobId", {{"type", "string"}, {"description", "The job (get, update, remove, run, runs)."}}},
          {"id", {{"type", "string"}, {"description", "Same as jobId."}}},
          {"includeDisabled", {{"type", "boolean"}, {"description", "list: also disabled jobs."}}},
          {"runMode", {{"type", "string"}, {"enum", {"due", "force"}}, {"description", "run: \"due\" (default) or \"force\"."}}},
          {"limit", {{"type", "integer"}, {"description", "list/runs: page size."}}},
          {"offset", {{"type", "integer"}, {"description", "list/runs: page start."}}}}},
        {"required", {"action"}}};
    return schema;
  }
  std::string_view group() const override { return "automation"; }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    if (ctx.cron == nullptr) return ToolOutput::failure("cron", "the gateway's scheduler is not available here", "UNAVAILABLE");
    const std::string action = args.value("action", "");
    json params = json::object();
    const std::string id = arg_or<std::string>(args, "jobId", arg_or<std::string>(args, "id", ""));
    if (!id.empty()) params["id"] = id;
    for (const char* key : {"includeDisabled", "limit", "offset"})
      if (has_arg(args, key)) params[key] = args[key];
    const json job = has_arg(args, "job") ? args["job"] : json::object();
    if (action == "add") {
      params = cron_job_with_run_defaults(job, ctx);
    } else if (action == "update") {
      params["patch"] = job;
    } else if (action == "run") {
      params["mode"] = arg_or<std::string>(args, "runMode", "due");
    }
    auto result = ctx.cron->call(action, params);
    if (!result) return ToolOutput::failure("cron", result.error().message, result.error().code);
    return ToolOutput::ok(result->dump(2), *result);
  }
};

}  // namespace

json cron_job_with_run_defaults(json job, const ToolContext& ctx) {
  if (!job.is_object()) return job;  // the scheduler names what is wrong
  if (!job.contains("agentId") && !ctx.agent_id.empty()) job["agentId"] = ctx.agent_id;
  const json payload = job.value("payload", json::object());
  const bool turn = payload.is_object() && payload.value("kind", "") == "agentTurn";
  if (turn && !job.contains("sessionTarget")) job["sessionTarget"] = "isolated";
  if (!turn || ctx.origin.channel.empty()) return job;
  // The reply goes back to the chat the request came from, unless the job names another target.
  json delivery = job.contains("delivery") && job["delivery"].is_object() ? job["delivery"] : json{{"mode", "announce"}};
  if (delivery.value("mode", "announce") != "announce") return job;
  delivery["mode"] = "announce";
  const std::string channel = delivery.value("channel", "");
  if (channel.empty() || channel == "last" || channel == ctx.origin.channel) {
    if (!delivery.contains("to") || delivery["to"] == "") {
      delivery["channel"] = ctx.origin.channel;
      delivery["to"] = ctx.origin.chat_id;
      if (!ctx.origin.account_id.empty() && !delivery.contains("accountId")) delivery["accountId"] = ctx.origin.account_id;
      if (!ctx.origin.thread_id.empty() && !delivery.contains("threadId")) delivery["threadId"] = ctx.origin.thread_id;
    }
  }
  job["delivery"] = std::move(delivery);
  return job;
}

std::unique_ptr<Tool> make_cron_tool() { return std::make_unique<CronTool>(); }

}  // namespace pincer::tools
