// Methods OpenClaw's clients call on every page (issue 23): the per-page lists of features Pincer
// does not have yet, answered as an empty list in OpenClaw's shape (docs/compatibility.md lists
// them as "empty: not in Pincer yet"), and the small read methods backed by what Pincer has —
// agent.identity.get, update.status, system.info, sessions.describe,
// sessions.observer.visibility, sessions.messages.subscribe; and the Control UI's chat-page reads
// (tasks.list, progressCard.get, sessions.companion.state).
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;


/// An approval queue Pincer does not have (exec, plugin and system-agent approvals): nothing is
/// ever pending, so the answer is OpenClaw's empty array.
MethodResult empty_approvals(MethodContext&) { return json::array(); }

/// `question.list`: the agent's ask-the-user questions (not in Pincer yet) → `{questions: []}`.
MethodResult question_list(MethodContext&) { return json{{"questions", json::array()}}; }

/// `plugins.list` → no plugins, and none can be installed from a client.
MethodResult plugins_list(MethodContext&) {
  return json{{"plugins", json::array()}, {"diagnostics", json::array()}, {"mutationAllowed", false}};
}

/// `agent.identity.get {agentId?, sessionKey?}` → `{agentId, name?, nameSource}` from the config
/// (agents.list[].name); the session key's agent when only a key is given.
MethodResult agent_identity_get(MethodContext& ctx) {
  Params p("agent.identity.get", ctx.request.params);
  std::string agent_id, session_key;
  if (auto e = p.only({"agentId", "sessionKey"})) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (auto e = p.string("sessionKey", session_key, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  const json list = agents->list_agents();
  if (agent_id.empty() && !session_key.empty()) {
    const std::string key = agents->canonical_key(session_key);  // agent:<id>:<rest>
    if (key.rfind("agent:", 0) == 0) agent_id = key.substr(6, key.find(':', 6) - 6);
  }
  if (agent_id.empty()) agent_id = list.value("defaultId", "main");
  for (const auto& a : list.value("agents", json::array())) {
    if (a.value("id", "") != agent_id) continue;
    json out = {{"agentId", agent_id}};
    if (a.contains("name")) {
      out["name"] = a["name"];
      out["nameSource"] = "config";
    } else {
      out["nameSource"] = "default";
    }
    return out;
  }
  return invalid_params("agent.identity.get", "unknown agent \"" + agent_id + "\"");
}

/// `update.status` → Pincer does not update itself (no sentinel, nothing available).
MethodResult update_status(MethodContext&) { return json{{"sentinel", nullptr}, {"updateAvailable", nullptr}}; }

/// `system.info`: the gateway host (uname, CPUs, memory, load, the state dir's disk).
MethodResult system_info(MethodContext& ctx) {
  struct utsname u {};
  ::uname(&u);
  struct sysinfo si {};
  ::sysinfo(&si);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string cpu_model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  const auto& s = ctx.gateway.settings();
  json out = {{"machineName", host},
              {"hostname", host},
              {"platform", "linux"},
              {"release", u.release},
              {"arch", u.machine},
              {"osLabel", std::string(u.sysname) + " " + u.release},
              {"port", s.port},
              {"nodeVersion", ""},  // Pincer is native code: no Node.js runtime
              {"pid", static_cast<int64_t>(::getpid())},
              {"uptimeMs", ctx.gateway.uptime_ms()},
              {"cpuCount", static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()))},
              {"memoryTotalBytes", static_cast<int64_t>(si.totalram) * si.mem_unit},
              {"memoryFreeBytes", static_cast<int64_t>(si.freeram) * si.mem_unit}};
  if (!cpu_model.empty()) out["cpuModel"] = cpu_model;
  double load[3];
  if (::getloadavg(load, 3) == 3) out["loadAverage"] = {load[0], load[1], load[2]};
  struct statvfs fs {};
  if (!s.state_dir.empty() && ::statvfs(s.state_dir.c_str(), &fs) == 0) {
    out["diskPath"] = s.state_dir.string();
    out["diskTotalBytes"] = static_cast<int64_t>(fs.f_blocks) * static_cast<int64_t>(fs.f_frsize);
    out["diskAvailableBytes"] = static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
  }
  return out;
}

/// `sessions.describe {key, agentId?}` → `{session: <sessions.list row> | null}`.
MethodResult sessions_describe(MethodContext& ctx) {
  Params p("sessions.describe", ctx.request.params);
  std::string key, agent_id;
  if (auto e = p.string("key", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  const std::string canonical = agents->canonical_key(key, agent_id);
  json listed = agents->list_sessions(0);  // held: a range-for over ["sessions"] of a temporary reads freed memory
  for (auto& row : listed["sessions"]) {
    if (row.value("key", "") == canonical) return json{{"session", std::move(row)}};
  }
  return json{{"session", nullptr}};
}

/// `sessions.observer.visibility {visible}` → `{ok:true}`: Pincer has no session observer whose
/// output it would hold back, so the declaration changes nothing.
MethodResult sessions_observer_visibility(MethodContext& ctx) {
  Params p("sessions.observer.visibility", ctx.request.params);
  if (auto e = p.only({"visible"})) return *e;
  const json& params = ctx.request.params;
  if (!params.is_object() || !params.contains("visible")) {
    return invalid_params("sessions.observer.visibility", "must have required property 'visible'");
  }
  if (!params["visible"].is_boolean()) return invalid_params("sessions.observer.visibility", "/visible must be boolean");
  return json{{"ok", true}};
}

/// `sessions.messages.subscribe {key, agentId?, includeApprovals?}` → `{subscribed: true, key}`:
/// every operator with operator.read already gets each session's `chat`/`agent` events, so the
/// subscription is granted without changing what the connection receives. `…unsubscribe` →
/// `{subscribed: false, key}` (the events keep coming, as before the subscription).
MethodResult session_messages_subscription(MethodContext& ctx, const char* method, bool subscribed) {
  Params p(method, ctx.request.params);
  std::string key, agent_id;
  if (auto e = p.only({"key", "agentId", "includeApprovals"})) return *e;
  if (auto e = p.string("key", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (ctx.request.params.contains("includeApprovals") && !ctx.request.params["includeApprovals"].is_boolean()) {
    return invalid_params(method, "/includeApprovals must be boolean");
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  return json{{"subscribed", subscribed}, {"key", agents->canonical_key(key, agent_id)}};
}

/// `tasks.list` → `{tasks: []}`: Pincer has no background tasks yet.
MethodResult tasks_list(MethodContext&) { return json{{"tasks", json::array()}}; }

/// `progressCard.get {sessionKey}` → `{card: null}`: no progress cards (nothing was ever put).
MethodResult progress_card_get(MethodContext&) { return json{{"card", nullptr}}; }

/// `sessions.companion.state`: UNAVAILABLE "Side chat is unavailable.", OpenClaw's own answer
/// when side chat is off (Pincer has none); the Control UI then hides it.
MethodResult sessions_companion_state(MethodContext&) { return RpcError::unavailable("Side chat is unavailable."); }

}  // namespace

void register_compat_methods(MethodRegistry& registry) {
  register_skill_methods(registry);  // skills.status (methods/skills.cpp)
  register_absent_feature_methods(registry);
  register_ui_read_methods(registry);  // chat.metadata, doctor.memory.status, themes.list (methods/ui_reads.cpp)
  register_presence_methods(registry);
  register_session_branch_methods(registry);
  register_web_search_methods(registry);
  registry.add({"plugin.approval.list", empty_approvals});
  registry.add({"openclaw.approval.list", empty_approvals});
  registry.add({"question.list", question_list});
  registry.add({"plugins.list", plugins_list});
  registry.add({"agent.identity.get", agent_identity_get});
  registry.add({"update.status", update_status});
  registry.add({"system.info", system_info});
  registry.add({"sessions.describe", sessions_describe});
  registry.add({"sessions.observer.visibility", sessions_observer_visibility});
  registry.add({"sessions.messages.subscribe",
                [](MethodContext& ctx) { return session_messages_subscription(ctx, "sessions.messages.subscribe", true); }});
  registry.add({"sessions.messages.unsubscribe",
                [](MethodContext& ctx) { return session_messages_subscription(ctx, "sessions.messages.unsubscribe", false); }});
  registry.add({"tasks.list", tasks_list});
  registry.add({"progressCard.get", progress_card_get});
  registry.add({"sessions.companion.state", sessions_companion_state});
}

}  // namespace pincer::gateway
