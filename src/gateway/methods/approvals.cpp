// Exec approval methods and events (SPEC TL-3; openclaw-protocol.md "Approvals"), over the agent
// runtime's ApprovalManager (tools/approvals/approval_manager.h):
//   exec.approval.list                       → pending requests [{id, code, request, createdAtMs, expiresAtMs}]
//   exec.approval.get {id}                   → one of them
//   exec.approval.request {command, cwd?, env?, agentId?, sessionKey?, timeoutMs?, twoPhase?}
//                                            → {id, decision, createdAtMs, expiresAtMs} once decided
//                                              (twoPhase: first {status:"accepted", id, …})
//   exec.approval.waitDecision {id}          → {id, decision} (null = timed out)
//   exec.approval.resolve {id, decision, scope?, ttlMs?} → {ok:true}; `id` may be the short code
//   exec.approval.grants.list {limit?}       → {grants:[…]} the live scoped / time-bounded grants
//   exec.approval.grants.revoke {grantId}    → {outcome: revoked | already-revoked | not-found}
//   exec.approvals.get                       → {path, exists, hash, file}
//   exec.approvals.set {file, baseHash?}     → {path, hash, file}; a stale baseHash is refused
// Events exec.approval.requested / resolved go to operators holding operator.approvals.
#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

tools::approvals::ApprovalManager* manager(MethodContext& ctx) {
  return ctx.gateway.agents() ? &ctx.gateway.agents()->approvals() : nullptr;
}

const json& params_of(MethodContext& ctx) {
  static const json empty = json::object();
  return ctx.request.params.is_object() ? ctx.request.params : empty;
}

MethodResult list(MethodContext& ctx) {
  auto* m = manager(ctx);
  return m ? MethodResult(m->list()) : MethodResult(json::array());
}

MethodResult get(MethodContext& ctx) {
  Params p("exec.approval.get", ctx.request.params);
  std::string id;
  if (auto e = p.string("id", id, true, true)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  json row = m->get(id);
  if (row.is_null()) return RpcError{"APPROVAL_NOT_FOUND", "no pending exec approval \"" + id + "\"", nullptr, std::nullopt, std::nullopt};
  return row;
}

MethodResult request(MethodContext& ctx) {
  Params p("exec.approval.request", ctx.request.params);
  std::string command, cwd, agent_id, session_key;
  if (auto e = p.string("command", command, true, true)) return *e;
  if (auto e = p.string("cwd", cwd, false)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (auto e = p.string("sessionKey", session_key, false)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  const json& params = params_of(ctx);
  int64_t timeout_ms = params.contains("timeoutMs") && params["timeoutMs"].is_number_integer() ? params["timeoutMs"].get<int64_t>() : 120'000;
  if (timeout_ms < 1 || timeout_ms > 86'400'000) return invalid_params("exec.approval.request", "/timeoutMs must be 1..86400000");
  tools::approvals::ExecCall call;
  call.command = command;
  call.cwd = cwd;
  call.agent_id = agent_id.empty() ? "main" : agent_id;
  call.session_key = session_key;
  call.run_id = "rpc-" + ctx.request.id;
  if (params.contains("env") && params["env"].is_object()) {
    for (const auto& [k, v] : params["env"].items()) call.env[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string rid = ctx.request.id;
  auto created = std::make_shared<json>();
  const std::string id = m->request(std::move(call), timeout_ms, [&gw, conn, rid, created](const std::string& decision) {
    json out = *created;
    out["decision"] = decision.empty() ? json(nullptr) : json(decision);
    gw.send_to(conn, build_ok_value(rid, out));
  });
  json row = m->get(id);
  *created = {{"id", id}, {"createdAtMs", row.value("createdAtMs", int64_t{0})}, {"expiresAtMs", row.value("expiresAtMs", int64_t{0})}};
  if (params.value("twoPhase", false)) {
    json accepted = *created;
    accepted["status"] = "accepted";
    gw.send_to(conn, build_ok_value(rid, accepted));
  }
  return Deferred{};
}

MethodResult wait_decision(MethodContext& ctx) {
  Params p("exec.approval.waitDecision", ctx.request.params);
  std::string id;
  if (auto e = p.string("id", id, true, true)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string rid = ctx.request.id;
  const bool known = m->wait_decision(id, [&gw, conn, rid, id](const std::string& decision) {
    gw.send_to(conn, build_ok_value(rid, json{{"id", id}, {"decision", decision.empty() ? json(nullptr) : json(decision)}}));
  });
  if (!known) return RpcError{"APPROVAL_NOT_FOUND", "no exec approval \"" + id + "\"", nullptr, std::nullopt, std::nullopt};
  return Deferred{};
}

MethodResult resolve(MethodContext& ctx) {
  Params p("exec.approval.resolve", ctx.request.params);
  std::string id, decision, scope = "agent";
  if (auto e = p.string("id", id, true, true)) return *e;
  if (auto e = p.string("decision", decision, true, true)) return *e;
  if (auto e = p.string("scope", scope, false)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  const json& params = params_of(ctx);
  int64_t ttl_ms = 0;
  if (params.contains("ttlMs")) {
    if (!params["ttlMs"].is_number_integer() || params["ttlMs"].get<int64_t>() < 0) {
      return invalid_params("exec.approval.resolve", "/ttlMs must be a non-negative integer");
    }
    ttl_ms = params["ttlMs"].get<int64_t>();
  }
  const std::string by = ctx.client.info.id.empty() ? "gateway client" : ctx.client.info.id;
  if (auto st = m->resolve(id, decision, scope, ttl_ms, by); !st) {
    return RpcError{st.error().code, st.error().message, nullptr, std::nullopt, std::nullopt};
  }
  return json{{"ok", true}};
}

MethodResult grants_list(MethodContext& ctx) {
  Params p("exec.approval.grants.list", ctx.request.params);
  if (auto e = p.only({"limit"})) return *e;
  const json& params = params_of(ctx);
  int64_t limit = 500;
  if (params.contains("limit")) {
    if (!params["limit"].is_number_integer() || params["limit"].get<int64_t>() < 1 || params["limit"].get<int64_t>() > 500) {
      return invalid_params("exec.approval.grants.list", "/limit must be an integer 1..500");
    }
    limit = params["limit"].get<int64_t>();
  }
  auto* m = manager(ctx);
  if (!m) return json{{"grants", json::array()}};
  return json{{"grants", m->grants(static_cast<std::size_t>(limit))}};
}

MethodResult grants_revoke(MethodContext& ctx) {
  Params p("exec.approval.grants.revoke", ctx.request.params);
  if (auto e = p.only({"grantId"})) return *e;
  std::string grant_id;
  if (auto e = p.string("grantId", grant_id, true, true)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  const std::string by = ctx.client.info.id.empty() ? "gateway client" : ctx.client.info.id;
  return json{{"outcome", m->revoke_grant(grant_id, by)}};
}

json file_payload(tools::approvals::ApprovalManager& m) {
  std::error_code ec;
  return {{"path", m.file().path().string()}, {"exists", std::filesystem::exists(m.file().path(), ec)},
          {"hash", m.file().hash()}, {"file", m.file().doc()}};
}

MethodResult approvals_get(MethodContext& ctx) {
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  (void)m->reload_file();
  return file_payload(*m);
}

MethodResult approvals_set(MethodContext& ctx) {
  Params p("exec.approvals.set", ctx.request.params);
  if (auto e = p.only({"file", "baseHash"})) return *e;
  std::string base;
  if (auto e = p.string("baseHash", base, false)) return *e;
  auto* m = manager(ctx);
  if (!m) return no_runtime();
  const json& params = params_of(ctx);
  if (!params.contains("file")) return invalid_params("exec.approvals.set", "must have required property 'file'");
  (void)m->reload_file();
  if (!base.empty() && base != m->file().hash()) {
    return RpcError{"CONFLICT", "exec-approvals.json changed since it was read (baseHash does not match); read it again",
                    nullptr, std::nullopt, std::nullopt};
  }
  if (auto st = m->file().replace(params["file"]); !st) return RpcError::invalid(st.error().message);
  if (auto st = m->file().save(); !st) return RpcError::unavailable("cannot save exec-approvals.json: " + st.error().message);
  return file_payload(*m);
}

}  // namespace

void register_approval_methods(MethodRegistry& registry) {
  registry.add({"exec.approval.list", list});
  registry.add({"exec.approval.get", get});
  registry.add({"exec.approval.request", request});
  registry.add({"exec.approval.waitDecision", wait_decision});
  registry.add({"exec.approval.resolve", resolve});
  registry.add({"exec.approval.grants.list", grants_list});
  registry.add({"exec.approval.grants.revoke", grants_revoke});
  registry.add({"exec.approvals.get", approvals_get});
  registry.add({"exec.approvals.set", approvals_set, false, true});
  register_unified_approval_methods(registry);
}

void attach_approval_events(Gateway& gateway, agent::AgentService& agents) {
  agents.approvals().add_listener([&gateway](const std::string& event, const json& payload) {
    gateway.broadcast_scoped_event(event, payload, kScopeApprovals);
  });
}

}  // namespace pincer::gateway
