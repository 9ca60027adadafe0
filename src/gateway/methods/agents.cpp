// agents.create / agents.update / agents.delete (contract in agents.h).
#include "gateway/methods/agents.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "agent/workspace_roster.h"
#include "agent/workspace.h"
#include "automation/cron_agent_jobs.h"
#include "automation/cron_api.h"
#include "core/config.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace agents_methods {  // named: the unity build joins several files into one unit

namespace fs = std::filesystem;
using nlohmann::json;

AgentsConfigEditor& editor() {
  static AgentsConfigEditor instance;
  return instance;
}

agent::admin::ConfigSource source_for(const Gateway& gw, const std::string& text) {
  return agent::admin::ConfigSource{text, gw.settings().state_dir, config::process_env()};
}

/// A refusal of the plan or the writer as the client sees it.
RpcError refused(const Error& e) {
  if (e.code == "IO_ERROR" || e.code == "LOCK_FAILED" || e.code == "TOO_LARGE") return RpcError::unavailable(e.message);
  return RpcError::invalid(e.message);
}

/// An optional string param: absent → nullopt; present but not a string → error.
std::optional<RpcError> optional_string(const json& p, const char* method, const char* key, std::optional<std::string>& out) {
  if (!p.is_object() || !p.contains(key)) return std::nullopt;
  if (!p[key].is_string()) return invalid_params(method, std::string("/") + key + " must be string");
  out = p[key].get<std::string>();
  return std::nullopt;
}

/// Fills the Name / Emoji / Avatar lines of an IDENTITY.md just written from the template.
void write_identity(const fs::path& workspace, const std::string& name, const std::string& emoji, const std::string& avatar) {
  const fs::path file = workspace / "IDENTITY.md";
  std::ifstream in(file);
  if (!in) return;
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str(), out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!name.empty() && line.starts_with("- Name:")) line = "- Name: " + name;
    if (!emoji.empty() && line.starts_with("- Emoji:")) line = "- Emoji: " + emoji;
    out += line + "\n";
  }
  if (!avatar.empty()) out += "- Avatar: " + avatar + "\n";
  std::ofstream(file, std::ios::trunc) << out;
}

bool single_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

MethodResult agents_create(MethodContext& ctx) {
  const char* m = "agents.create";
  Params params(m, ctx.request.params);
  if (auto e = params.only({"name", "workspace", "model", "emoji", "avatar"})) return *e;
  std::string name;
  if (auto e = params.string("name", name, true, true)) return *e;
  std::optional<std::string> workspace, model, emoji, avatar;
  const json& p = ctx.request.params;
  for (auto [key, out] : {std::pair{"workspace", &workspace}, {"model", &model}, {"emoji", &emoji}, {"avatar", &avatar}}) {
    if (auto e = optional_string(p, m, key, *out)) return *e;
  }
  for (const std::string* s : {&name, workspace ? &*workspace : nullptr, model ? &*model : nullptr, emoji ? &*emoji : nullptr,
                               avatar ? &*avatar : nullptr}) {
    if (s != nullptr && !single_line(*s)) return invalid_params(m, "values must be one line");
  }
  if ((workspace && workspace->empty()) || (model && model->empty())) return invalid_params(m, "workspace and model must NOT be empty");
  if (!editor()) return RpcError::unavailable("agents.create: this gateway cannot write its config file");
  const std::string trimmed_name = [&] {
    const auto a = name.find_first_not_of(" \t"), b = name.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : name.substr(a, b - a + 1);
  }();
  const std::string id = store::normalize_agent_id(trimmed_name);
  std::string lowered = trimmed_name;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  if (id == "main" && lowered != "main") return RpcError::invalid("agent name \"" + name + "\" gives no usable agent id");

  agent::admin::CreateRequest request{id, trimmed_name, workspace.value_or(""), model.value_or(""), {}};
  agent::admin::CreatePlan plan;
  std::vector<std::string> created;  // the bootstrap files ensure_workspace wrote
  Gateway& gw = ctx.gateway;
  auto written = editor()(gw.settings().config_path, [&](const std::string& text) -> Result<std::optional<std::string>> {
    auto planned = agent::admin::plan_create(source_for(gw, text), request);
    if (!planned) return planned.error();
    plan = std::move(*planned);
    // The workspace before the config: when it cannot be made, nothing is written.
    auto made = agent::ensure_workspace(plan.agent.workspace);
    if (!made) return Error{"WORKSPACE_UNAVAILABLE", "workspace " + plan.agent.workspace.string() + ": " + made.error().message};
    if (!made->created.empty()) created = made->created;
    return std::optional<std::string>{plan.text};
  });
  if (!written) return refused(written.error());
  if (std::find(created.begin(), created.end(), "IDENTITY.md") != created.end()) {
    write_identity(plan.agent.workspace, trimmed_name, emoji.value_or(""), avatar.value_or(""));
  }
  json out = {{"ok", true}, {"agentId", id}, {"name", trimmed_name}, {"workspace", plan.agent.workspace.string()}};
  if (!plan.agent.model.primary.empty()) out["model"] = plan.agent.model.primary;
  return out;
}

MethodResult agents_update(MethodContext& ctx) {
  const char* m = "agents.update";
  Params params(m, ctx.request.params);
  if (auto e = params.only({"agentId", "name", "workspace", "model", "agentRuntime", "emoji", "avatar"})) return *e;
  std::string agent_id;
  if (auto e = params.string("agentId", agent_id, true, true)) return *e;
  const json& p = ctx.request.params;
  std::optional<std::string> name, workspace, emoji, avatar, runtime;
  for (auto [key, out] : {std::pair{"name", &name}, {"workspace", &workspace}, {"emoji", &emoji}, {"avatar", &avatar},
                          {"agentRuntime", &runtime}}) {
    if (auto e = optional_string(p, m, key, *out)) return *e;
  }
  if (runtime) return RpcError::invalid("agents.update: agentRuntime is not supported by Pincer (one built-in runtime)");
  agent::admin::UpdateRequest request;
  request.id = store::normalize_agent_id(agent_id);
  request.name = name;
  request.workspace = workspace;
  if (p.contains("model")) {
    if (!p["model"].is_null() && !(p["model"].is_string() && !p["model"].get<std::string>().empty())) {
      return invalid_params(m, "/model must be a non-empty string or null");
    }
    request.model = p["model"];
  }
  for (const auto* s : {name ? &*name : nullptr, workspace ? &*workspace : nullptr}) {
    if (s != nullptr && !single_line(*s)) return invalid_params(m, "values must be one line");
  }
  if (!editor()) return RpcError::unavailable("agents.update: this gateway cannot write its config file");
  agent::admin::UpdatePlan plan;
  std::vector<std::string> created;  // the bootstrap files ensure_workspace wrote
  Gateway& gw = ctx.gateway;
  auto written = editor()(gw.settings().config_path, [&](const std::string& text) -> Result<std::optional<std::string>> {
    auto planned = agent::admin::plan_update(source_for(gw, text), request);
    if (!planned) return planned.error();
    plan = std::move(*planned);
    if (plan.text == text) return std::optional<std::string>{};
    if (workspace) {  // the new workspace before the config: when it cannot be made, nothing is written
      auto made = agent::ensure_workspace(plan.agent.workspace);
      if (!made) return Error{"WORKSPACE_UNAVAILABLE", "workspace " + plan.agent.workspace.string() + ": " + made.error().message};
      if (!made->created.empty()) created = made->created;
    }
    return std::optional<std::string>{plan.text};
  });
  if (!written) return refused(written.error());
  if (workspace) {
    if (std::find(created.begin(), created.end(), "IDENTITY.md") != created.end()) {
      write_identity(plan.agent.workspace, plan.agent.name, emoji.value_or(""), avatar.value_or(""));
    }
  }
  return json{{"ok", true}, {"agentId", request.id}};
}

MethodResult agents_delete(MethodContext& ctx) {
  const char* m = "agents.delete";
  Params params(m, ctx.request.params);
  if (auto e = params.only({"agentId", "deleteFiles"})) return *e;
  std::string agent_id;
  if (auto e = params.string("agentId", agent_id, true, true)) return *e;
  const json& p = ctx.request.params;
  bool delete_files = true;
  if (p.contains("deleteFiles")) {
    if (!p["deleteFiles"].is_boolean()) return invalid_params(m, "/deleteFiles must be boolean");
    delete_files = p["deleteFiles"].get<bool>();
  }
  if (!editor()) return RpcError::unavailable("agents.delete: this gateway cannot write its config file");
  const std::string id = store::normalize_agent_id(agent_id);
  agent::admin::DeletePlan plan;
  Gateway& gw = ctx.gateway;
  auto written = editor()(gw.settings().config_path, [&](const std::string& text) -> Result<std::optional<std::string>> {
    auto planned = agent::admin::plan_delete(source_for(gw, text), id);
    if (!planned) return planned.error();
    plan = std::move(*planned);
    return std::optional<std::string>{plan.text};
  });
  if (!written) return refused(written.error());
  json out = {{"ok", true}, {"agentId", id}, {"removedBindings", plan.removed_bindings.size()}};
  // Its cron jobs go too (as OpenClaw's agents.delete): each run of a job of an agent that is gone fails.
  if (automation::CronScheduler* cron = gw.cron()) {
    auto jobs = automation::remove_agent_jobs(
        [cron](std::string_view action, const json& params) { return automation::cron_call(*cron, action, params); }, id);
    if (jobs) out["removedCronJobs"] = std::move(*jobs);
    else out["cronJobsError"] = "its cron jobs were not removed: " + jobs.error().message;
  }
  if (delete_files) {
    const auto files = agent::admin::move_agent_files_to_trash(plan, gw.settings().state_dir, gw.clock().wall_ms());
    json removed = json::array(), failed = json::array();
    for (const auto& r : files.removed) removed.push_back(json{{"path", r.path}, {"method", r.method}});
    for (const auto& r : files.failed) failed.push_back(json{{"path", r.path}, {"reason", r.reason}});
    out["removed"] = std::move(removed);
    if (!failed.empty()) out["failed"] = std::move(failed);
  }
  return out;
}

}  // namespace agents_methods

void set_agents_config_editor(AgentsConfigEditor fn) { agents_methods::editor() = std::move(fn); }
const AgentsConfigEditor& agents_config_editor() { return agents_methods::editor(); }

void register_agents_methods(MethodRegistry& registry) {
  registry.add({"agents.create", agents_methods::agents_create});
  registry.add({"agents.update", agents_methods::agents_update});
  registry.add({"agents.delete", agents_methods::agents_delete});
  register_agent_file_methods(registry);
}

}  // namespace pincer::gateway
