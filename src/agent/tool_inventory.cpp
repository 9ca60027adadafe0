#include "agent/tool_inventory.h"

#include "memory/memory_config.h"
#include "store/session_keys.h"

namespace pincer::agent {
namespace {

using nlohmann::json;

std::string string_at(const json& node, const char* key) {
  return node.is_object() && node.contains(key) && node[key].is_string() ? node[key].get<std::string>() : "";
}

/// The agent's tools.profile, else the global one, else "full".
std::string profile_of(const json& config, const std::string& agent_id) {
  const json* agents = config.is_object() && config.contains("agents") ? &config["agents"] : nullptr;
  if (agents && agents->is_object() && agents->contains("list") && (*agents)["list"].is_array()) {
    for (const auto& a : (*agents)["list"]) {
      if (!a.is_object() || store::normalize_agent_id(string_at(a, "id")) != agent_id || !a.contains("tools")) continue;
      if (auto p = string_at(a["tools"], "profile"); !p.empty()) return p;
    }
  }
  if (config.is_object() && config.contains("tools")) {
    if (auto p = string_at(config["tools"], "profile"); !p.empty()) return p;
  }
  return "full";
}

}  // namespace

Result<ToolsExplained> explain_tools(const tools::ToolRegistry& registry, const json& config, const AgentsConfig& agents,
                                     const std::filesystem::path& state_dir, const ToolsQuery& query) {
  ToolsExplained out;
  tools::policy::PolicyOrigin& origin = out.origin;
  origin.agent_id = query.agent_id.empty() ? agents.default_id : store::normalize_agent_id(query.agent_id);
  if (!query.session_key.empty()) {
    if (auto problem = store::session_key_problem(query.session_key)) return Error{"INVALID_SESSION_KEY", *problem};
    const std::string key = store::to_agent_store_session_key(origin.agent_id, query.session_key);
    if (auto parsed = store::parse_agent_session_key(key)) {
      origin.agent_id = parsed->agent_id;
      // <channel>:<direct|group|channel>:<peer>… ; "main" and other shapes are the owner's.
      std::vector<std::string> parts;
      for (std::size_t pos = 0; pos <= parsed->rest.size();) {
        auto c = parsed->rest.find(':', pos);
        parts.push_back(parsed->rest.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
        if (c == std::string::npos) break;
        pos = c + 1;
      }
      if (parts.size() >= 3 && (parts[1] == "group" || parts[1] == "channel" || parts[1] == "direct" || parts[1] == "dm")) {
        origin.channel = parts[0];
        origin.is_group = parts[1] == "group" || parts[1] == "channel";
        origin.group_id = parts[2];
        origin.sender_is_owner = false;  // a chat session: what a sender who is not the owner gets
      }
    }
  }
  if (query.sender_is_owner) origin.sender_is_owner = *query.sender_is_owner;
  origin.subagent = query.subagent;
  const AgentSettings* spec = agents.find(origin.agent_id);
  if (!spec) return Error{"UNKNOWN_AGENT", "unknown agent \"" + origin.agent_id + "\""};
  const std::string& model = query.model.empty() ? spec->model.primary : query.model;
  if (auto slash = model.find('/'); slash != std::string::npos) {
    origin.provider = model.substr(0, slash);
    origin.model = model.substr(slash + 1);
  }
  auto decision = tools::policy::decide(registry, config, origin);
  if (!decision) return decision.error();
  out.decision = std::move(*decision);
  // What AgentService::start removes after the pipeline: the memory tools when memory is off.
  const auto memory_settings =
      memory::resolve_memory_settings(config, spec->id, spec->workspace, state_dir, memory::memory_env_from_process());
  if (!memory_settings.enabled) {
    tools::policy::remove_group(out.decision, "memory", "memory", memory::disabled_reason(memory_settings));
  }
  out.profile = profile_of(config, spec->id);
  return out;
}

}  // namespace pincer::agent
