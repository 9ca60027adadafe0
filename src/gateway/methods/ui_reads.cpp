// Reads OpenClaw's Control UI makes on its chat, memory and appearance pages, answered from what
// Pincer has, in OpenClaw's result shapes (docs/compatibility.md):
//
//   chat.metadata {agentId?, sessionKey?, authProfileId?}                       (operator.read)
//       → {models, commands, swarmEnabled: false, accountSelection, runtimeSelectionLocked?}
//       models: models.list's; commands: commands.list's {scope: "text", includeArgs: true} for
//       the agent (agentId, else the sessionKey's, else the default one); accountSelection: the
//       session's pinned auth profile (`/model …@profile`, sessions.patch) as OpenClaw's "shared"
//       selection {kind, authProfileId, label, source?}, else {kind: "automatic", label};
//       runtimeSelectionLocked (sessionKey form): false — Pincer has no per-session runtimes. The
//       session need not exist (a new chat's draft, as OpenClaw). Pincer has no swarms and no
//       per-user model accounts: authProfileId (a personal account's preview) is refused.
//   doctor.memory.status {agentId?, probe?, deep?}                              (operator.read)
//       → memory off (memory.backend "none", memory.search.enabled false): OpenClaw's answer
//         without a search runtime {agentId, searchRuntimeRegistered: false, embedding: {ok: false,
//         error: why}}; else {agentId, provider (memory.search.provider; "none" = keyword search
//         only), embedding: {ok: false, checked: false, error}} — the gateway does not call the
//         embedding provider here (probe too): `pincer memory status --deep` probes it. No
//         `dreaming` member (the UI shows dreaming as unsupported; `pincer memory dreaming`).
//   themes.list {}                                                              (operator.read)
//       → {current: {id: "claw", mode: "system", scope: "gateway", overrides: {}}, theme, themes: []}
//       OpenClaw's answer for a gateway without signed-in profiles and no theme settings: the
//       Control UI's default theme. Pincer stores no imported, plugin or per-user themes, so the
//       list of the gateway's own themes is empty (the UI lists its built-in ones itself).
//
// Errors: INVALID_REQUEST naming the field, `unknown agent id "x"`. Loop thread.
#include <variant>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "core/config.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "memory/memory_config.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace ui_read_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

/// `agentId` when given, normalised: it must name a configured agent ("" when absent).
std::variant<std::string, RpcError> known_agent(const char* method, const json& params, agent::AgentService& service) {
  std::string raw;
  if (auto e = Params(method, params).string("agentId", raw, false, true)) return *e;
  if (raw.empty()) return std::string();
  const std::string id = store::normalize_agent_id(raw);
  const json listed = service.list_agents();
  for (const auto& a : listed["agents"]) {
    if (a.value("id", "") == id) return id;
  }
  return RpcError::invalid("unknown agent id \"" + raw + "\"");
}

std::optional<RpcError> boolean(const char* method, const json& params, const char* key) {
  if (params.is_object() && params.contains(key) && !params[key].is_boolean()) {
    return invalid_params(method, "/" + std::string(key) + " must be boolean");
  }
  return std::nullopt;
}

MethodResult chat_metadata(MethodContext& ctx) {
  const char* m = "chat.metadata";
  const json& params = ctx.request.params;
  Params p(m, params);
  if (auto e = p.only({"agentId", "sessionKey", "authProfileId"})) return *e;
  std::string session_key, profile;
  if (auto e = p.string("sessionKey", session_key, false, true)) return *e;
  if (auto e = p.string("authProfileId", profile, false, true)) return *e;
  if (!session_key.empty() && !profile.empty()) return invalid_params(m, "must NOT have both sessionKey and authProfileId");
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  auto requested = known_agent(m, params, *service);
  if (auto* e = std::get_if<RpcError>(&requested)) return *e;
  std::string agent_id = std::get<std::string>(requested);
  if (!profile.empty()) {
    return RpcError::invalid("chat.metadata: authProfileId: Pincer has no personal model accounts to preview; pin a "
                             "configured auth profile to a session with /model <model>@<profile>");
  }

  json account = {{"kind", "automatic"}, {"label", "Automatic account selection"}};
  if (!session_key.empty()) {
    if (auto problem = store::session_key_problem(session_key)) return invalid_params(m, "/sessionKey: " + *problem);
    const std::string canonical = service->canonical_key(session_key, agent_id);
    const std::string session_agent = store::agent_id_from_session_key(canonical);
    if (!agent_id.empty() && session_agent != agent_id) {
      return RpcError::invalid("agent id \"" + agent_id + "\" does not match session agent \"" + session_agent + "\"");
    }
    agent_id = session_agent;
    const json listed = service->list_sessions(0);
    for (const auto& row : listed["sessions"]) {
      if (row.value("key", "") != canonical) continue;
      const std::string pin = row.value("authProfileOverride", "");
      if (pin.empty()) break;
      account = {{"kind", "shared"}, {"authProfileId", pin}, {"label", pin}};
      if (row.contains("authProfileOverrideSource") && row["authProfileOverrideSource"].is_string()) {
        account["source"] = row["authProfileOverrideSource"];
      }
      break;
    }
  }

  // The slash commands as commands.list answers them for this agent (one catalog, one rule).
  const MethodSpec* commands_list = ctx.gateway.methods().find("commands.list");
  json commands = json::array();
  if (commands_list) {
    json sub_params = {{"scope", "text"}, {"includeArgs", true}};
    if (!agent_id.empty()) sub_params["agentId"] = agent_id;
    const RequestFrame sub{ctx.request.id, "commands.list", std::move(sub_params)};
    MethodContext sub_ctx{ctx.gateway, ctx.client, sub};
    MethodResult listed = commands_list->handler(sub_ctx);
    if (auto* e = std::get_if<RpcError>(&listed)) return *e;
    if (auto* j = std::get_if<json>(&listed); j && j->contains("commands")) commands = std::move((*j)["commands"]);
  }
  json out = {{"models", service->list_models()["models"]},
              {"commands", std::move(commands)},
              {"swarmEnabled", false},
              {"accountSelection", std::move(account)}};
  if (!session_key.empty()) out["runtimeSelectionLocked"] = false;
  return out;
}

MethodResult doctor_memory_status(MethodContext& ctx) {
  const char* m = "doctor.memory.status";
  const json& params = ctx.request.params;
  if (auto e = Params(m, params).only({"agentId", "probe", "deep"})) return *e;
  if (auto e = boolean(m, params, "probe")) return *e;
  if (auto e = boolean(m, params, "deep")) return *e;
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  auto requested = known_agent(m, params, *service);
  if (auto* e = std::get_if<RpcError>(&requested)) return *e;
  auto agents = agent::resolve_agents(service->effective_config(), service->state_directory(), config::process_env());
  if (!agents) return RpcError::unavailable(m + std::string(": ") + agents.error().message);
  const std::string& wanted = std::get<std::string>(requested);
  const agent::AgentSettings* spec = wanted.empty() ? &agents->default_agent() : agents->find(wanted);
  if (!spec) spec = &agents->default_agent();
  const memory::MemorySettings settings = memory::resolve_memory_settings(
      service->effective_config(), spec->id, spec->workspace, service->state_directory(), memory::memory_env_from_process());
  if (!settings.enabled) {
    return json{{"agentId", spec->id},
                {"searchRuntimeRegistered", false},
                {"embedding", {{"ok", false}, {"error", memory::disabled_reason(settings)}}}};
  }
  const std::string note =
      settings.has_embeddings()
          ? "embeddings not checked by the gateway; `pincer memory status --deep` probes " + settings.provider
          : "no embedding provider (memory.search.provider): keyword search only";
  return json{{"agentId", spec->id},
              {"provider", settings.provider},
              {"embedding", {{"ok", false}, {"checked", false}, {"error", note}}}};
}

MethodResult themes_list(MethodContext& ctx) {
  if (auto e = Params("themes.list", ctx.request.params).only({})) return *e;
  return json{{"current", {{"id", "claw"}, {"mode", "system"}, {"scope", "gateway"}, {"overrides", json::object()}}},
              {"theme", {{"id", "claw"}, {"name", "Claw"}, {"source", "builtin"}, {"modes", json::array({"light", "dark"})}}},
              {"themes", json::array()}};
}

}  // namespace ui_read_methods

void register_ui_read_methods(MethodRegistry& registry) {
  registry.add({"chat.metadata", ui_read_methods::chat_metadata});
  registry.add({"doctor.memory.status", ui_read_methods::doctor_memory_status});
  registry.add({"themes.list", ui_read_methods::themes_list});
}

}  // namespace pincer::gateway
