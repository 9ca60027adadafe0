// OpenClaw's session lifecycle methods, mapped onto Pincer's sessions (GW-7): sessions.create (a
// session in the sessions index, optionally with its first turn), sessions.send (a turn, as
// chat.send) and sessions.abort (the session's run, as chat.abort). OpenClaw's other create
// options (worktrees, projects, forks, incognito, exec nodes …) name features Pincer does not have
// and are refused naming the field.
#include <algorithm>
#include <map>
#include <memory>

#include "agent/agent_service.h"
#include "core/ids.h"
#include "gateway/gateway.h"
#include "gateway/methods/chat_turn.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace detail_session_lifecycle {  // named: the unity build joins this file with other methods files

using nlohmann::json;

/// An error of AgentService::patch_session, renamed for `method` ("sessions.patch: x" → "invalid
/// sessions.create params: x").
RpcError patch_error(const Error& e, const std::string& method) {
  std::string message = e.message;
  const std::string prefix = "sessions.patch: ";
  if (message.rfind(prefix, 0) == 0) message = "invalid " + method + " params: " + message.substr(prefix.size());
  if (e.code == "INVALID_REQUEST") return RpcError::invalid(message);
  return RpcError::unavailable(message);
}

/// The configured agent ids.
bool agent_known(agent::AgentService& agents, const std::string& agent_id) {
  const json listed = agents.list_agents();
  for (const auto& a : listed["agents"]) {
    if (a.value("id", "") == agent_id) return true;
  }
  return false;
}

/// The agent of a canonical key ("agent:<id>:…").
std::string agent_of_key(const std::string& key) { return store::agent_id_from_session_key(key); }

/// True when the session index has an entry for the canonical `key`.
bool session_exists(agent::AgentService& agents, const std::string& key) {
  const json listed = agents.list_sessions(0);
  for (const auto& row : listed["sessions"]) {
    if (row.value("key", "") == key) return true;
  }
  return false;
}

/// OpenClaw's idempotent session creation: the successful answer of a sessions.create with an
/// `idempotencyKey` is kept for kRetentionMs per caller (its verified device; device-less clients,
/// who share the gateway's credential, share one space), and a repeat gets it again — the same
/// session, no second turn. The same key with other params is refused; failures are not kept.
struct CreateIdempotency {
  static constexpr int64_t kRetentionMs = 300'000;
  static constexpr std::size_t kMaxEntries = 2000;
  struct Entry {
    json params, answer;
    int64_t expires_ms = 0;
  };
  std::map<std::string, Entry> entries;

  void purge(int64_t now_ms) {
    std::erase_if(entries, [now_ms](const auto& kv) { return kv.second.expires_ms <= now_ms; });
  }
  static std::string owner_key(const Client& client, const std::string& idempotency_key) {
    return (client.device_id.empty() ? std::string("shared") : "device:" + client.device_id) + "\n" + idempotency_key;
  }
};

/// `sessions.create {key?, agentId?, label?, model?, thinkingLevel?, message?, attachments?,
/// timeoutMs?, idempotencyKey?}` → `{ok:true, key, sessionId, entry, resolved, runStarted}`. Without
/// `key`, OpenClaw's dashboard key `agent:<agentId>:dashboard:<uuid>`; an existing key is adopted
/// (its entry kept, the given settings applied). With a `message` that is not blank, the session's
/// first turn starts as chat.send starts one (`runId`, `status` join the answer, or `runError`); a
/// blank message (only whitespace) starts no turn, as in OpenClaw (`runStarted: false`). A repeat
/// with the same `idempotencyKey` answers the first call's answer (CreateIdempotency).
MethodResult sessions_create(MethodContext& ctx, CreateIdempotency& idempotency) {
  static const char* kMethod = "sessions.create";
  Params p(kMethod, ctx.request.params);
  if (auto e = p.only({"key", "idempotencyKey", "agentId", "label", "model", "thinkingLevel", "message", "attachments",
                       "timeoutMs"})) {
    return *e;
  }
  std::string key, agent_id, label, model, thinking, message, idempotency_key;
  int64_t timeout_ms = 0;
  if (auto e = p.string("key", key, false, true)) return *e;
  if (auto e = p.string("idempotencyKey", idempotency_key, false, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("label", label, false, true)) return *e;
  if (auto e = p.string("model", model, false, true)) return *e;
  if (auto e = p.string("thinkingLevel", thinking, false, true)) return *e;
  if (auto e = p.string("message", message, false)) return *e;
  if (auto e = p.integer("timeoutMs", timeout_ms, 0, INT64_MAX)) return *e;
  if (!key.empty()) {
    if (auto why = store::session_key_problem(key)) return invalid_params(kMethod, "/key " + *why);
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  const int64_t now_ms = ctx.gateway.clock().steady_ms();
  const std::string once_key = idempotency_key.empty() ? "" : CreateIdempotency::owner_key(ctx.client, idempotency_key);
  if (!once_key.empty()) {
    idempotency.purge(now_ms);
    if (auto it = idempotency.entries.find(once_key); it != idempotency.entries.end()) {
      if (it->second.params != ctx.request.params) {
        return RpcError::invalid("invalid sessions.create params: /idempotencyKey \"" + idempotency_key +
                                 "\" was reused with different parameters (session creation idempotency key)");
      }
      return it->second.answer;
    }
    if (idempotency.entries.size() >= CreateIdempotency::kMaxEntries) {
      return RpcError::unavailable("session creation capacity is full; retry later");
    }
  }
  if (!agent_id.empty() && !agent_known(*agents, agent_id)) {
    return RpcError::invalid("invalid sessions.create params: /agentId: unknown agent id \"" + agent_id + "\"");
  }
  const std::string canonical = key.empty() ? "agent:" + (agent_id.empty() ? agents->session_defaults("").value("agentId", "main") : agent_id) +
                                                  ":dashboard:" + ids::uuid_v4()
                                            : agents->canonical_key(key, agent_id);
  if (!agent_id.empty() && agent_of_key(canonical) != agent_id) {
    return invalid_params(kMethod, "/key belongs to agent \"" + agent_of_key(canonical) + "\", not /agentId \"" + agent_id + "\"");
  }
  if (!agent_known(*agents, agent_of_key(canonical))) {  // "agent:ghost:x" would start an index for no agent
    return invalid_params(kMethod, "/key: unknown agent id \"" + agent_of_key(canonical) + "\"");
  }
  json patch = {{"key", canonical}};
  if (!label.empty()) patch["label"] = label;
  if (!model.empty()) patch["model"] = model;
  if (!thinking.empty()) patch["thinkingLevel"] = thinking;
  auto created = agents->patch_session(canonical, patch);
  if (!created) return patch_error(created.error(), kMethod);
  json out = {{"ok", true},
              {"key", canonical},
              {"sessionId", (*created)["entry"].value("sessionId", "")},
              {"entry", (*created)["entry"]},
              {"resolved", (*created)["resolved"]},
              {"runStarted", false}};
  const json& params = ctx.request.params;
  const bool blank = message.find_first_not_of(" \t\r\n\v\f") == std::string::npos;  // OpenClaw: trim() → no turn
  if (blank) message.clear();
  const bool has_turn = !blank || (params.contains("attachments") && !params["attachments"].empty());
  if (has_turn) {
    json turn = {{"sessionKey", canonical},
                 {"message", message},
                 {"idempotencyKey", idempotency_key.empty() ? ids::uuid_v4() : idempotency_key}};
    if (params.contains("attachments")) turn["attachments"] = params["attachments"];
    if (params.contains("timeoutMs")) turn["timeoutMs"] = params["timeoutMs"];
    MethodResult started = send_chat_turn(ctx, kMethod, turn);
    if (auto* payload = std::get_if<json>(&started)) {
      out.update(*payload);
      out["runStarted"] = payload->value("status", "") == "started";
    } else if (auto* error = std::get_if<RpcError>(&started)) {
      out["runError"] = {{"code", error->code}, {"message", error->message}};
    }
  }
  if (!once_key.empty()) {
    idempotency.entries[once_key] = {ctx.request.params, out, now_ms + CreateIdempotency::kRetentionMs};
  }
  return out;
}

/// `sessions.send {key, agentId?, message, thinking?, attachments?, timeoutMs?, idempotencyKey?}` →
/// chat.send's answer (`{runId, status}`, the reply as `chat`/`agent` events). The session must
/// exist, except the agent's main session (created, as OpenClaw does); otherwise INVALID_REQUEST
/// `session not found: <key>`. Without idempotencyKey the run id is a new UUID.
MethodResult sessions_send(MethodContext& ctx) {
  static const char* kMethod = "sessions.send";
  Params p(kMethod, ctx.request.params);
  if (auto e = p.only({"key", "agentId", "message", "thinking", "attachments", "timeoutMs", "idempotencyKey"})) return *e;
  std::string key, agent_id, message, idempotency_key;
  if (auto e = p.string("key", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("message", message, true)) return *e;
  if (auto e = p.string("idempotencyKey", idempotency_key, false, true)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  if (!agent_id.empty() && !agent_known(*agents, agent_id)) {
    return RpcError::invalid("invalid sessions.send params: /agentId: unknown agent id \"" + agent_id + "\"");
  }
  const std::string canonical = agents->canonical_key(key, agent_id);
  const bool main_session = canonical == agents->canonical_key("main", agent_of_key(canonical));
  if (!main_session && !session_exists(*agents, canonical)) return RpcError::invalid("session not found: " + key);
  json turn = ctx.request.params;
  turn.erase("key");
  turn["sessionKey"] = canonical;
  if (idempotency_key.empty()) turn["idempotencyKey"] = ids::uuid_v4();
  return send_chat_turn(ctx, kMethod, turn);
}

/// `sessions.abort {key?, runId?, agentId?, clearQueued?}` → `{ok:true, abortedRunId: id|null,
/// status: "aborted"|"no-active-run"}`: the session's active run and its queued ones stop, as with
/// chat.abort (queued runs are always dropped: `clearQueued` is accepted). With only runId, that
/// run's session.
MethodResult sessions_abort(MethodContext& ctx) {
  static const char* kMethod = "sessions.abort";
  Params p(kMethod, ctx.request.params);
  if (auto e = p.only({"key", "runId", "agentId", "clearQueued"})) return *e;
  std::string key, run_id, agent_id;
  if (auto e = p.string("key", key, false, true)) return *e;
  if (auto e = p.string("runId", run_id, false, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  const json& params = ctx.request.params;
  if (params.is_object() && params.contains("clearQueued") && !params["clearQueued"].is_boolean()) {
    return invalid_params(kMethod, "/clearQueued must be boolean");
  }
  if (key.empty() && run_id.empty()) return invalid_params(kMethod, "must have property 'key' or 'runId'");
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  const json none = {{"ok", true}, {"abortedRunId", nullptr}, {"status", "no-active-run"}};
  std::string canonical = key.empty() ? agents->session_of_run(run_id) : agents->canonical_key(key, agent_id);
  if (canonical.empty()) return none;  // a run id that is not running (any more)
  if (!agent_id.empty() && agent_of_key(canonical) != agent_id) {
    return RpcError::invalid("session key agent does not match agentId");
  }
  // As OpenClaw: a key of a configured agent with no session (or no run) is "no-active-run", like
  // a finished run — unlike sessions.send, which needs the session — but an agent that is not
  // configured is an error.
  if (!key.empty() && !agent_known(*agents, agent_of_key(canonical))) {
    return RpcError::invalid("agent \"" + agent_of_key(canonical) + "\" not found");
  }
  auto aborted = agents->abort(canonical, run_id, "rpc");
  if (!aborted) {
    if (aborted.error().code == "RUN_SESSION_MISMATCH") return RpcError::invalid("runId does not match session");
    return RpcError::unavailable(aborted.error().message);
  }
  if (aborted->empty()) return none;
  return json{{"ok", true}, {"abortedRunId", aborted->front()}, {"status", "aborted"}};
}

}  // namespace detail_session_lifecycle

using namespace detail_session_lifecycle;

void register_session_lifecycle_methods(MethodRegistry& registry) {
  auto idempotency = std::make_shared<CreateIdempotency>();  // one per gateway (per registry)
  registry.add({"sessions.create", [idempotency](MethodContext& ctx) { return sessions_create(ctx, *idempotency); }});
  registry.add({"sessions.send", sessions_send});
  registry.add({"sessions.abort", sessions_abort});
}

}  // namespace pincer::gateway
