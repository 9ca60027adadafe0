// The tool catalog and the tools in force for a session, in OpenClaw's shapes (its
// server-methods/tools-catalog.ts and tools-effective.ts), from Pincer's tool registry (every
// built-in tool; tools/registry.h) and its policy pipeline (TL-2):
//
//   tools.catalog {agentId?, includePlugins?}                (operator.read)
//       → {agentId, profiles: [{id, label}] (minimal, coding, messaging, full),
//          groups: [{id, label, source: "core", tools: [{id, label, description, fullDescription,
//                   source: "core", defaultProfiles}]}]}
//       one group per tool group (Files, Runtime, Web, Memory, Sessions, …, OpenClaw's section
//       order); defaultProfiles: the profiles (but "full", which has every tool) that include it.
//   tools.effective {agentId?, sessionKey}                   (operator.read)
//       → {agentId, profile, groups: [{id: "core", label: "Built-in tools", source: "core",
//                                      tools: [{id, label, description, rawDescription, source}]},
//                                     {id: "mcp", label: "MCP server tools", source: "mcp", tools}]}
//       the tools a run of that session is offered: agent::explain_tools, the rule of the runs and
//       of `pincer tools explain --session KEY` (a chat session's key means a sender who is not
//       the owner), with the session's model (its override, else the agent's primary); then the
//       MCP servers' tools the running MCP client knows now (ready servers; none is started),
//       each through the same policy as in a run; `notices` (OpenClaw's ToolsEffectiveNotice) when
//       configured MCP servers are not ready: "mcp-not-yet-connected" (info; idle or starting) and
//       "mcp-unavailable" (warning, with the reasons). As OpenClaw, the session must exist.
//
// Errors: INVALID_REQUEST naming the field; `unknown agent id "x"`; `agent id "a" does not match
// session agent "b"`; `unknown session key "k"`; an invalid session key (why). Loop thread (no
// I/O but the config and the sessions index).
#include <algorithm>
#include <string_view>
#include <variant>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "agent/tool_inventory.h"
#include "core/config.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "store/session_keys.h"
#include "tools/dynamic_tools.h"
#include "tools/policy/policy_pipeline.h"

namespace pincer::gateway {
namespace tools_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

/// OpenClaw's tool sections (group id, label) in its order.
constexpr std::pair<std::string_view, std::string_view> kSections[] = {
    {"fs", "Files"},     {"runtime", "Runtime"},       {"web", "Web"},     {"memory", "Memory"},
    {"sessions", "Sessions"}, {"ui", "UI"},            {"messaging", "Messaging"}, {"automation", "Automation"},
    {"nodes", "Nodes"},  {"agents", "Agents"},         {"media", "Media"},
};

const tools::ToolRegistry& registry() {
  static const tools::ToolRegistry instance = tools::ToolRegistry::builtin();  // read-only after construction
  return instance;
}

/// The first sentence of a model-facing description (the catalog's one-line summary).
std::string summary(std::string_view text) {
  std::size_t end = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '.' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n'))) {
      end = text[i] == '.' ? i + 1 : i;
      break;
    }
  }
  return std::string(text.substr(0, end));
}

struct Resolved {
  agent::AgentsConfig agents;
  const json* config = nullptr;
  std::filesystem::path state_dir;
};

std::variant<Resolved, RpcError> resolve(MethodContext& ctx) {
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  auto agents = agent::resolve_agents(service->effective_config(), service->state_directory(), config::process_env());
  if (!agents) return RpcError::unavailable(agents.error().message);
  return Resolved{std::move(*agents), &service->effective_config(), service->state_directory()};
}

/// `agentId` when given: it must name a configured agent. "" when absent.
std::variant<std::string, RpcError> requested_agent(const char* method, const json& params, const agent::AgentsConfig& agents) {
  std::string raw;
  if (auto e = Params(method, params).string("agentId", raw, false)) return *e;
  if (params.is_object() && params.contains("agentId") && raw.empty()) return invalid_params(method, "/agentId must NOT be empty");
  if (raw.empty()) return std::string();
  const std::string id = store::normalize_agent_id(raw);
  if (!agents.find(id)) return RpcError::invalid("unknown agent id \"" + raw + "\"");
  return id;
}

MethodResult catalog(MethodContext& ctx) {
  const char* m = "tools.catalog";
  const json& params = ctx.request.params;
  if (auto e = Params(m, params).only({"agentId", "includePlugins"})) return *e;
  if (params.is_object() && params.contains("includePlugins") && !params["includePlugins"].is_boolean()) {
    return invalid_params(m, "/includePlugins must be boolean");
  }
  auto resolved = resolve(ctx);
  if (auto* e = std::get_if<RpcError>(&resolved)) return *e;
  const auto& r = std::get<Resolved>(resolved);
  auto agent_id = requested_agent(m, params, r.agents);
  if (auto* e = std::get_if<RpcError>(&agent_id)) return *e;
  std::string id = std::get<std::string>(agent_id);
  if (id.empty()) id = r.agents.default_id;

  const auto all = registry().all();
  json groups = json::array();
  auto add_group = [&](std::string_view group, std::string_view label) {
    json tools = json::array();
    for (const tools::Tool* t : all) {
      if (t->group() != group) continue;
      json profiles = json::array();
      for (const char* p : {"minimal", "coding", "messaging"}) {
        if (tools::profile_includes(p, *t).value_or(false)) profiles.push_back(p);
      }
      tools.push_back({{"id", t->name()},
                       {"label", t->name()},
                       {"description", summary(t->description())},
                       {"fullDescription", t->description()},
                       {"source", "core"},
                       {"defaultProfiles", std::move(profiles)}});
    }
    if (!tools.empty()) groups.push_back({{"id", group}, {"label", label}, {"source", "core"}, {"tools", std::move(tools)}});
  };
  std::vector<std::string> seen;
  for (const auto& [group, label] : kSections) {
    add_group(group, label);
    seen.emplace_back(group);
  }
  for (const tools::Tool* t : all) {  // a group OpenClaw has no section for
    if (std::find(seen.begin(), seen.end(), t->group()) != seen.end()) continue;
    seen.emplace_back(t->group());
    add_group(t->group(), t->group());
  }
  json profiles = json::array();
  for (auto [pid, label] : {std::pair{"minimal", "Minimal"}, {"coding", "Coding"}, {"messaging", "Messaging"}, {"full", "Full"}}) {
    profiles.push_back({{"id", pid}, {"label", label}});
  }
  return json{{"agentId", id}, {"profiles", std::move(profiles)}, {"groups", std::move(groups)}};
}

/// `"a", "b", "c" and 2 more` (OpenClaw lists three names of a notice's servers).
std::string server_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", \"" : "\"") + names[i] + "\"";
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

/// OpenClaw's ToolsEffectiveNotice {id, severity, message, servers} for the configured MCP servers
/// whose tools are not listed: "mcp-not-yet-connected" (OpenClaw's id: not started yet, or starting),
/// and Pincer's "mcp-unavailable" warning for the ones that failed, with their reasons.
json mcp_notices(const std::vector<tools::DynamicToolSource::Pending>& pending) {
  std::vector<std::string> waiting, failed;
  std::string reasons;
  for (const auto& p : pending) {
    (p.failed ? failed : waiting).push_back(p.name);
    if (p.failed) reasons += (reasons.empty() ? "" : "; ") + p.name + ": " + (p.reason.empty() ? "failed" : p.reason);
  }
  json notices = json::array();
  if (!waiting.empty()) {
    notices.push_back({{"id", "mcp-not-yet-connected"},
                       {"severity", "info"},
                       {"message", "MCP server" + std::string(waiting.size() > 1 ? "s " : " ") + server_names(waiting) +
                                       (waiting.size() > 1 ? " are" : " is") +
                                       " configured but not connected yet: " + (waiting.size() > 1 ? "their" : "its") +
                                       " tools are listed here once a run of the agent has started " +
                                       (waiting.size() > 1 ? "them" : "it") + " (or `pincer mcp status --start`)."},
                       {"servers", waiting}});
  }
  if (!failed.empty()) {
    notices.push_back({{"id", "mcp-unavailable"},
                       {"severity", "warning"},
                       {"message", "MCP server" + std::string(failed.size() > 1 ? "s " : " ") + server_names(failed) +
                                       (failed.size() > 1 ? " are" : " is") + " unavailable (" + reasons +
                                       "); Pincer retries with a backoff, and `pincer mcp status` shows the state."},
                       {"servers", failed}});
  }
  return notices;
}

MethodResult effective(MethodContext& ctx) {
  const char* m = "tools.effective";
  const json& params = ctx.request.params;
  Params p(m, params);
  if (auto e = p.only({"agentId", "sessionKey"})) return *e;
  std::string session_key;
  if (auto e = p.string("sessionKey", session_key, true, true)) return *e;
  auto resolved = resolve(ctx);
  if (auto* e = std::get_if<RpcError>(&resolved)) return *e;
  const auto& r = std::get<Resolved>(resolved);
  auto agent_id = requested_agent(m, params, r.agents);
  if (auto* e = std::get_if<RpcError>(&agent_id)) return *e;
  const std::string& requested = std::get<std::string>(agent_id);
  if (auto problem = store::session_key_problem(session_key)) return invalid_params(m, "/sessionKey: " + *problem);
  if (auto parsed = store::parse_agent_session_key(session_key); parsed && !requested.empty() && parsed->agent_id != requested) {
    return RpcError::invalid("agent id \"" + requested + "\" does not match session agent \"" + parsed->agent_id + "\"");
  }

  // As OpenClaw: only a session that exists (its entry in the sessions index).
  auto* service = ctx.gateway.agents();
  const std::string canonical = service->canonical_key(session_key, requested);
  const json listed = service->list_sessions(0);
  const json* entry = nullptr;
  for (const auto& row : listed["sessions"]) {
    if (row.value("key", std::string()) == canonical) entry = &row;
  }
  if (!entry) return RpcError::invalid("unknown session key \"" + session_key + "\"");

  agent::ToolsQuery query;
  query.agent_id = requested;
  query.session_key = session_key;
  // The session's model override (OpenClaw's providerOverride + modelOverride), else the primary.
  const std::string provider = entry->value("providerOverride", std::string());
  const std::string model = entry->value("modelOverride", std::string());
  if (!provider.empty() && !model.empty()) query.model = provider + "/" + model;
  auto explained = agent::explain_tools(registry(), *r.config, r.agents, r.state_dir, query);
  if (!explained) {
    const auto& e = explained.error();
    if (e.code == "UNKNOWN_AGENT") return RpcError::invalid(e.message);
    if (e.code == "INVALID_SESSION_KEY") return invalid_params(m, "/sessionKey: " + e.message);
    return RpcError::unavailable("tools.effective: " + e.message);
  }
  json tools = json::array();
  for (const tools::Tool* t : explained->decision.tools) {
    tools.push_back({{"id", t->name()},
                     {"label", t->name()},
                     {"description", summary(t->description())},
                     {"rawDescription", t->description()},
                     {"source", "core"}});
  }
  json groups = json::array();
  if (!tools.empty()) groups.push_back({{"id", "core"}, {"label", "Built-in tools"}, {"source", "core"}, {"tools", std::move(tools)}});
  // MCP servers' tools known now, each decided as a run decides it (agent_service.cpp: `allowed`,
  // every layer of the policy but the profile).
  json mcp = json::array();
  tools::policy::PolicyOrigin dynamic_origin = explained->origin;
  dynamic_origin.skip_profile = true;
  if (auto* source = service->dynamic_tools()) {
    for (const auto& tool : source->known_tools()) {
      auto d = tools::policy::decide(std::vector<const tools::Tool*>{tool.get()}, *r.config, dynamic_origin);
      if (!d || d->tools.empty()) continue;
      mcp.push_back({{"id", tool->name()},
                     {"label", tool->name()},
                     {"description", summary(tool->description())},
                     {"rawDescription", tool->description()},
                     {"source", "mcp"}});
    }
  }
  if (!mcp.empty()) groups.push_back({{"id", "mcp"}, {"label", "MCP server tools"}, {"source", "mcp"}, {"tools", std::move(mcp)}});
  json out = {{"agentId", explained->origin.agent_id}, {"profile", explained->profile}, {"groups", std::move(groups)}};
  if (auto* source = service->dynamic_tools()) {
    if (json notices = mcp_notices(source->pending_sources()); !notices.empty()) out["notices"] = std::move(notices);
  }
  return out;
}

}  // namespace tools_methods

void register_tool_methods(MethodRegistry& registry) {
  registry.add({"tools.catalog", tools_methods::catalog});
  registry.add({"tools.effective", tools_methods::effective});
}

}  // namespace pincer::gateway
