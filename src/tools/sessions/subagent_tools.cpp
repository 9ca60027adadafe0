#include "tools/sessions/subagent_tools.h"

#include "tools/sessions/subagents_backend.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

ToolOutput subagent_forward(std::string_view tool, const json& args, ToolContext& ctx) {
  if (ctx.session_backends.subagents == nullptr) {
    return ToolOutput::failure(tool, "subagents are not available here (no gateway agent runtime)", "UNAVAILABLE");
  }
  auto result = ctx.session_backends.subagents->call(tool, args, ctx);
  if (!result) {
    // OpenClaw answers refusals as {status:"forbidden"|"error", error}: the same, as an error.
    const std::string status = result.error().code == "FORBIDDEN" ? "forbidden" : "error";
    json details = {{"status", status}, {"error", result.error().message}, {"code", result.error().code}};
    return ToolOutput::error(std::string(tool) + ": " + result.error().message, details);
  }
  return ToolOutput::ok(result->dump(2), *result);
}

class SessionsSpawnTool : public Tool {
 public:
  std::string_view name() const override { return "sessions_spawn"; }
  std::string_view description() const override {
    return "Start a subagent that works on `task` and reports back. It is a background run in a new, isolated "
           "session (no history of this one). Answers at once with {status:\"accepted\", runId, childSessionKey}; when the "
           "subagent ends, its final answer (or a timed-out/failed/aborted notice) arrives in this session as a "
           "message, once. Do not poll for it. Give the task everything the subagent needs (it sees nothing else). "
           "Subagents get fewer tools, and nesting is limited.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"task", {{"type", "string"}, {"description", "What the subagent should do: goal, inputs, expected output."}}},
          {"label", {{"type", "string"}, {"description", "A short title for the task (shown in lists)."}}},
          {"agentId", {{"type", "string"}, {"description", "Run it as another configured agent (when allowed)."}}},
          {"model", {{"type", "string"}, {"description", "Model for the subagent (\"provider/id\" or an alias)."}}},
          {"thinking",
           {{"type", "string"},
            {"enum", {"off", "minimal", "low", "medium", "high", "xhigh"}},
            {"description", "Thinking level of the subagent."}}},
          {"runTimeoutSeconds",
           {{"type", "integer"}, {"description", "Stop the subagent after this many seconds (0 = the agent's limit)."}}},
          {"cleanup",
           {{"type", "string"},
            {"enum", {"delete", "keep"}},
            {"description", "\"delete\" archives the subagent's session after its result is announced; default keep."}}}}},
        {"required", {"task"}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override { return subagent_forward(name(), args, ctx); }
};

class SubagentsTool : public Tool {
 public:
  std::string_view name() const override { return "subagents"; }
  std::string_view description() const override {
    return "The subagents this session spawned. list: running and recent ones with their status. kill: stop one "
           "(target: its index from list, run id, label, \"last\" or \"all\"); it reports back as aborted. steer: send "
           "a running one a message (target + message) that it reads at its next step.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"action", {{"type", "string"}, {"enum", {"list", "kill", "steer"}}, {"description", "What to do."}}},
          {"target", {{"type", "string"}, {"description", "kill/steer: index, run id, label, \"last\" (kill: \"all\")."}}},
          {"message", {{"type", "string"}, {"description", "steer: the message for the subagent."}}}}},
        {"required", {"action"}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override { return subagent_forward(name(), args, ctx); }
};

}  // namespace

std::vector<std::unique_ptr<Tool>> make_subagent_tools() {
  std::vector<std::unique_ptr<Tool>> out;
  out.push_back(std::make_unique<SessionsSpawnTool>());
  out.push_back(std::make_unique<SubagentsTool>());
  return out;
}

}  // namespace pincer::tools
