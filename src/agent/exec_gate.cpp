#include "agent/exec_gate.h"

namespace pincer::agent {

std::function<void(const llm::ToolCall&, std::function<void(std::optional<std::string>)>)> make_exec_gate(
    tools::approvals::ApprovalManager& approvals, ExecGateContext context) {
  return [&approvals, c = std::move(context)](const llm::ToolCall& call, std::function<void(std::optional<std::string>)> done) {
    if (call.name != "exec") return done(std::nullopt);
    if (!call.arguments.is_object() || !call.arguments.contains("command") || !call.arguments["command"].is_string()) {
      return done(std::nullopt);
    }
    auto text_arg = [&](const char* name) {
      auto it = call.arguments.find(name);
      return it != call.arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    tools::approvals::ExecCall exec;
    exec.run_id = c.run_id;
    exec.agent_id = c.agent_id;
    exec.session_key = c.session_key;
    exec.tool_call_id = call.id;
    exec.command = text_arg("command");
    const std::filesystem::path workdir = text_arg("workdir");
    exec.cwd = workdir.empty() ? c.workspace : workdir.is_absolute() ? workdir : c.workspace / workdir;
    if (auto env = call.arguments.find("env"); env != call.arguments.end() && env->is_object()) {
      for (const auto& [k, v] : env->items()) exec.env[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
    exec.lane = c.lane;
    exec.sender_is_owner = c.sender_is_owner;
    exec.origin = c.origin;
    approvals.gate(std::move(exec), std::move(done));
  };
}

}  // namespace pincer::agent
