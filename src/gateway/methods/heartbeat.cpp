// The heartbeat's gateway methods (AT-1; OpenClaw's `openclaw system event` and `openclaw system
// heartbeat enable|disable`):
//   wake {mode: "now"|"next-heartbeat", text, sessionKey?, agentId?} → {ok: true}
//     queues `text` as a system event (AgentService::add_system_event, the queue cron's
//     systemEvent jobs and the hooks' wake use) for the agent's main session, or for `sessionKey`.
//     mode "now" — or, as in OpenClaw, any wake that names a sessionKey — asks the heartbeat for a
//     beat at once (HeartbeatScheduler::wake) when the event is in the main session, the session a
//     beat runs in. Otherwise, or when the agent has no heartbeat (off, or paused by
//     set-heartbeats), the event waits for the next beat or the session's next turn.
//     The agent: `agentId`, else the one the sessionKey names, else the default agent.
//     operator.write (protocol/scopes.cpp).
//   set-heartbeats {enabled: boolean} → {ok: true, enabled}
//     pauses (false) or resumes (true) every agent's heartbeat while the gateway runs
//     (HeartbeatScheduler::set_paused); the config is not written, a restart starts unpaused.
//     operator.admin (the default of a method not in the scope table).
// Bad params: INVALID_REQUEST "invalid <method> params: <field> …".
#include <string>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "automation/heartbeat_scheduler.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

bool agent_configured(agent::AgentService& agents, const std::string& agent_id) {
  for (const auto& a : agents.list_agents().value("agents", json::array()))
    if (a.value("id", "") == agent_id) return true;
  return false;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

MethodResult wake(MethodContext& ctx) {
  static const char* kMethod = "wake";
  const json& raw = ctx.request.params;
  if (!raw.is_object()) return invalid_params(kMethod, "must be object");
  Params p(kMethod, raw);
  std::string mode, text, session_key, agent_id;
  if (auto e = p.string("mode", mode, true)) return *e;
  if (mode != "now" && mode != "next-heartbeat")
    return invalid_params(kMethod, "/mode must be \"now\" or \"next-heartbeat\" (got \"" + mode + "\")");
  if (auto e = p.string("text", text, true, true)) return *e;
  text = trimmed(text);
  if (text.empty()) return invalid_params(kMethod, "/text must NOT be empty (only whitespace)");
  if (auto e = p.string("sessionKey", session_key, false, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (!session_key.empty()) {
    if (auto why = store::session_key_problem(session_key)) return invalid_params(kMethod, "/sessionKey " + *why);
    if (store::reserved_session_namespace(session_key) == std::optional<std::string>("subagent:"))
      return invalid_params(kMethod, "/sessionKey cannot target a subagent session");
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  if (!agent_id.empty()) {
    agent_id = store::normalize_agent_id(agent_id);
    if (!agent_configured(*agents, agent_id)) return invalid_params(kMethod, "/agentId: unknown agent id \"" + agent_id + "\"");
  }
  std::string agent = agent_id;
  if (!session_key.empty() && store::classify_session_key_shape(session_key) == store::SessionKeyShape::Agent) {
    const std::string owner = store::agent_id_from_session_key(session_key);
    if (!agent_id.empty() && owner != agent_id)
      return invalid_params(kMethod, "/agentId \"" + agent_id + "\" contradicts the agent \"" + owner + "\" that owns /sessionKey");
    if (!agent_configured(*agents, owner)) return invalid_params(kMethod, "/sessionKey: unknown agent id \"" + owner + "\"");
    agent = owner;
  }
  if (agent.empty()) agent = agents->session_defaults("").value("agentId", "main");
  const std::string main_key = agents->canonical_key("main", agent);
  const std::string target = session_key.empty() ? main_key : agents->canonical_key(session_key, agent);
  agents->add_system_event(target, text);
  const bool beat_now = mode == "now" || !session_key.empty();
  if (beat_now && target == main_key) {
    automation::HeartbeatScheduler* heartbeat = ctx.gateway.heartbeat();
    if (!heartbeat || !heartbeat->wake(agent, "wake"))
      spdlog::info("wake: agent {} has no heartbeat running; the event waits for {}'s next turn", agent, target);
  }
  return json{{"ok", true}};
}

MethodResult set_heartbeats(MethodContext& ctx) {
  static const char* kMethod = "set-heartbeats";
  const json& p = ctx.request.params;
  if (!p.is_object()) return invalid_params(kMethod, "must be object");
  if (!p.contains("enabled")) return invalid_params(kMethod, "must have required property 'enabled'");
  if (!p["enabled"].is_boolean()) return invalid_params(kMethod, "/enabled must be boolean");
  automation::HeartbeatScheduler* heartbeat = ctx.gateway.heartbeat();
  if (!heartbeat) return RpcError::unavailable("the heartbeat is not running");
  const bool enabled = p["enabled"].get<bool>();
  heartbeat->set_paused(!enabled);
  return json{{"ok", true}, {"enabled", enabled}};
}

}  // namespace

void register_heartbeat_methods(MethodRegistry& registry) {
  registry.add({"wake", wake});
  registry.add({"set-heartbeats", set_heartbeats});
}

}  // namespace pincer::gateway
