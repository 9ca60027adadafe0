// `commands.list` (OpenClaw's slash-command catalog, CommandsListResult): Pincer's built-in chat
// commands (agent/chat_commands.h) and the agent's skill commands (agent/skill_command_input.h),
// the commands every chat surface runs.
#include <cctype>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace detail_commands_list {  // named: the unity build joins this file with other methods files

using nlohmann::json;

constexpr size_t kMaxCommands = 500;  // OpenClaw's COMMAND_LIST_MAX_ITEMS

/// OpenClaw's category of each built-in command (session, options, status, management, tools).
std::string command_category(const std::string& name) {
  if (name == "new" || name == "reset" || name == "stop" || name == "compact" || name == "tree") return "session";
  if (name == "model" || name == "think") return "options";
  if (name == "agents" || name == "subagents" || name == "dreaming") return "management";
  return "status";  // status, skills, help
}

/// A command's argument from its usage ("LEVEL", "[NAME[@PROFILE]]", "[status|on|off]"): one string
/// argument, required unless the usage is bracketed; a usage of bare alternatives gives choices.
json command_arg(const std::string& usage) {
  std::string plain;
  for (char c : usage) {
    if (c != '[' && c != ']') plain += c;
  }
  const std::string first = plain.substr(0, plain.find(' '));
  json arg = {{"description", usage}, {"type", "string"}};
  if (first.find('|') != std::string::npos) {
    arg["name"] = "action";
    if (plain.find(' ') == std::string::npos) {
      json choices = json::array();
      for (size_t at = 0; at <= plain.size();) {
        size_t bar = plain.find('|', at);
        if (bar == std::string::npos) bar = plain.size();
        const std::string value = plain.substr(at, bar - at);
        if (!value.empty()) choices.push_back({{"value", value}, {"label", value}});
        at = bar + 1;
      }
      arg["choices"] = std::move(choices);
    }
  } else {
    std::string name;
    for (char c : first) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') break;
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    arg["name"] = name.empty() ? "input" : name;
  }
  if (usage.empty() || usage[0] != '[') arg["required"] = true;
  return arg;
}

/// `commands.list {agentId?, sessionKey?, provider?, scope? text|native|both, includeArgs? (true)}` →
/// `{commands: [{name, nativeName?, textAliases, description, category, source, scope, acceptsArgs,
/// args?, skillDisplayName?, skillModelVisible?}]}`. Every Pincer command is typed as text and is
/// also a platform command (Telegram's menu, Discord's application commands), so each is scope
/// "both" and no filter by scope or provider removes any; `/skill NAME` is text only. The agent is
/// agentId, else the sessionKey's, else the default one; a sessionKey must name a session.
MethodResult commands_list(MethodContext& ctx) {
  static const char* kMethod = "commands.list";
  Params p(kMethod, ctx.request.params);
  if (auto e = p.only({"sessionKey", "agentId", "provider", "scope", "includeArgs"})) return *e;
  std::string session_key, agent_id, provider, scope = "both";
  if (auto e = p.string("sessionKey", session_key, false, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("provider", provider, false, true)) return *e;
  if (auto e = p.string("scope", scope, false)) return *e;
  if (scope != "text" && scope != "native" && scope != "both") {
    return invalid_params(kMethod, "/scope must be one of text, native, both");
  }
  bool include_args = true;
  const json& params = ctx.request.params;
  if (params.is_object() && params.contains("includeArgs")) {
    if (!params["includeArgs"].is_boolean()) return invalid_params(kMethod, "/includeArgs must be boolean");
    include_args = params["includeArgs"].get<bool>();
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  bool known = agent_id.empty();
  const json listed_agents = agents->list_agents();  // held: a range-for over a temporary's member reads freed memory
  for (const auto& a : listed_agents["agents"]) known = known || a.value("id", "") == agent_id;
  if (!known) return RpcError::invalid("unknown agent id \"" + agent_id + "\"");
  if (!session_key.empty()) {
    const std::string canonical = agents->canonical_key(session_key, agent_id);
    bool found = false;
    const json listed = agents->list_sessions(0);
    for (const auto& row : listed["sessions"]) found = found || row.value("key", "") == canonical;
    if (!found) return RpcError::invalid("Session not found.");
    if (agent_id.empty()) agent_id = store::agent_id_from_session_key(canonical);
  }

  json commands = json::array();
  for (const auto& c : agent::chat_commands()) {
    if (c.terminal_only || c.name.empty()) continue;
    json aliases = json::array({"/" + c.name});
    for (const auto& a : c.aliases) aliases.push_back("/" + a);
    json entry = {{"name", c.name},
                  {"nativeName", c.name},
                  {"textAliases", std::move(aliases)},
                  {"description", c.help},
                  {"category", command_category(c.name)},
                  {"source", "native"},
                  {"scope", "both"},
                  {"acceptsArgs", !c.args.empty()}};
    if (include_args && !c.args.empty()) entry["args"] = json::array({command_arg(c.args)});
    commands.push_back(std::move(entry));
  }
  if (scope != "native") {  // "/skill NAME [input]" is typed, never a platform command
    json entry = {{"name", "skill"},
                  {"textAliases", json::array({"/skill"})},
                  {"description", "run a skill by name"},
                  {"category", "tools"},
                  {"source", "native"},
                  {"scope", "text"},
                  {"acceptsArgs", true}};
    if (include_args) {
      entry["args"] = json::array({json{{"name", "name"}, {"description", "the skill (/skills lists them)"}, {"type", "string"}, {"required", true}},
                                   json{{"name", "input"}, {"description", "what the skill should work on"}, {"type", "string"}}});
    }
    commands.push_back(std::move(entry));
  }
  auto skill_commands = agent::skill_commands_of(agent_id);
  if (!skill_commands) {
    spdlog::warn("commands.list: skill commands of agent {}: {}", agent_id.empty() ? "(default)" : agent_id,
                 skill_commands.error().message);
  } else {
    for (const auto& s : *skill_commands) {
      if (s.name.empty()) continue;
      commands.push_back({{"name", s.name},
                          {"nativeName", s.name},
                          {"textAliases", json::array({"/" + s.name})},
                          {"description", s.description},
                          {"category", "tools"},
                          {"source", "skill"},
                          {"skillDisplayName", s.skill_name.empty() ? s.name : s.skill_name},
                          {"skillModelVisible", true},
                          {"scope", "both"},
                          {"acceptsArgs", true}});
    }
  }
  if (commands.size() > kMaxCommands) commands.erase(commands.begin() + kMaxCommands, commands.end());
  return json{{"commands", std::move(commands)}};
}

}  // namespace detail_commands_list

using namespace detail_commands_list;

void register_command_methods(MethodRegistry& registry) { registry.add({"commands.list", commands_list}); }

}  // namespace pincer::gateway
