// Session, model and agent listing methods (GW-7): sessions.list, sessions.reset,
// sessions.delete, sessions.compact, sessions.patch, sessions.preview, models.list, agents.list.
#include "agent/agent_service.h"
#include "core/redact.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/agents.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;


/// `sessions.list {limit?, agentId?, …}` → `{ts, path, count, totalCount, defaults, sessions}`.
/// `defaults` (the model, context and thinking defaults of the agent's sessions) is what
/// OpenClaw's Control UI reads before it renders the chat; `path` is the agent's sessions.json.
MethodResult sessions_list(MethodContext& ctx) {
  Params p("sessions.list", ctx.request.params);
  int64_t limit = 0;
  std::string agent_id;
  if (auto e = p.integer("limit", limit, 1, 100000)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  json out = agents->list_sessions(static_cast<int>(limit));
  json defaults = agents->session_defaults(agent_id);
  out["path"] = (ctx.gateway.settings().state_dir / "agents" / defaults.value("agentId", "main") / "sessions" /
                 "sessions.json").string();
  defaults.erase("agentId");
  out["defaults"] = std::move(defaults);
  return out;
}

/// `sessions.subscribe {…sessions.list params}` → `{subscribed:true}` (with params also
/// `list`: the sessions.list answer). From then on the connection gets `sessions.changed` (a run
/// starts, ends or fails) and `session.message` (a reply was written) events.
MethodResult sessions_subscribe(MethodContext& ctx) {
  const json& params = ctx.request.params;
  if (!params.is_null() && !params.is_object()) return invalid_params("sessions.subscribe", "must be object");
  json out = {{"subscribed", true}};
  if (params.is_object() && !params.empty()) {
    MethodContext list_ctx{ctx.gateway, ctx.client, ctx.request};
    MethodResult list = sessions_list(list_ctx);
    if (auto* error = std::get_if<RpcError>(&list)) {
      RpcError e = *error;
      if (e.message.rfind("invalid sessions.list", 0) == 0) e.message.replace(0, 21, "invalid sessions.subscribe");
      return e;
    }
    out["list"] = std::move(std::get<json>(list));
  }
  ctx.gateway.set_session_events(ctx.client.id, true);
  return out;
}

/// `sessions.unsubscribe` → `{subscribed:false}`: no more session events for this connection.
MethodResult sessions_unsubscribe(MethodContext& ctx) {
  ctx.gateway.set_session_events(ctx.client.id, false);
  return json{{"subscribed", false}};
}

/// Shared by reset/delete: `{key}` (OpenClaw) or `{sessionKey}`.
template <class Fn>
MethodResult with_key(MethodContext& ctx, const char* method, Fn fn) {
  Params p(method, ctx.request.params);
  std::string key, session_key;
  if (auto e = p.string("key", key, false)) return *e;
  if (auto e = p.string("sessionKey", session_key, false)) return *e;
  if (key.empty()) key = session_key;
  if (key.empty()) return invalid_params(method, "must have required property 'key'");
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto r = fn(*agents, key);
  if (!r) {
    if (r.error().code == "SESSION_NOT_FOUND") return RpcError::invalid(r.error().message);
    return RpcError::unavailable(r.error().message);
  }
  return std::move(*r);
}

MethodResult sessions_reset(MethodContext& ctx) {
  return with_key(ctx, "sessions.reset", [](agent::AgentService& a, const std::string& k) { return a.reset_session(k); });
}

MethodResult sessions_delete(MethodContext& ctx) {
  return with_key(ctx, "sessions.delete", [](agent::AgentService& a, const std::string& k) { return a.delete_session(k); });
}

/// `sessions.compact {key | sessionKey, instructions?, maxLines?}` → when done, `{ok, key, compacted,
/// tokensBefore?, tokensAfter?, reason?}`. A loss-safe summary compaction (CX-9) queued on the
/// session's lane, not OpenClaw's line cut: `maxLines` is accepted from its clients and ignored
/// (nothing is ever dropped unsummarised).
MethodResult sessions_compact(MethodContext& ctx) {
  Params p("sessions.compact", ctx.request.params);
  std::string key, session_key, instructions;
  int64_t max_lines = 0;
  if (auto e = p.only({"key", "sessionKey", "instructions", "maxLines"})) return *e;
  if (auto e = p.string("key", key, false)) return *e;
  if (auto e = p.string("sessionKey", session_key, false)) return *e;
  if (auto e = p.string("instructions", instructions, false)) return *e;
  if (auto e = p.integer("maxLines", max_lines, 1, 1'000'000)) return *e;
  if (key.empty()) key = session_key;
  if (key.empty()) return invalid_params("sessions.compact", "must have required property 'key'");
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string request_id = ctx.request.id;
  // The first of: the compaction's end event, or the run's end without one (refused, failed).
  auto answered = std::make_shared<bool>(false);
  auto accepted = agents->compact_session(key, instructions, [&gw, conn, request_id, answered](const agent::RunEvent& e) {
    using Kind = agent::RunEvent::Kind;
    const bool end = e.kind == Kind::Compaction && e.data.value("phase", "") == "end";
    if (*answered || !(end || e.kind == Kind::Error || e.kind == Kind::Aborted || e.kind == Kind::End)) return;
    *answered = true;
    json r = {{"ok", true}, {"key", e.session_key}, {"compacted", end && e.data.value("compacted", false)}};
    if (end) {
      r["tokensBefore"] = e.data.value("tokensBefore", 0);
      r["tokensAfter"] = e.data.value("tokensAfter", 0);
      if (e.data.contains("error")) r["reason"] = e.data["error"];
    } else {
      r["reason"] = e.kind == Kind::Aborted ? std::string("aborted") : redact::apply(e.error);
    }
    gw.send_to(conn, build_ok_value(request_id, r));
  });
  if (!accepted && accepted.error().code == "NOTHING_TO_COMPACT") {  // OpenClaw's answer for a session without one
    return json{{"ok", true}, {"key", agents->canonical_key(key)}, {"compacted", false}, {"reason", "no sessionId"}};
  }
  if (!accepted && accepted.error().code == "SINGLE_TURN") {  // answered as the engine's refusal is
    return json{{"ok", true}, {"key", agents->canonical_key(key)}, {"compacted", false}, {"reason", accepted.error().message}};
  }
  if (!accepted) return RpcError::invalid(accepted.error().message);
  return Deferred{};
}

/// `sessions.patch {key, label?, thinkingLevel?, model?}` (null clears) → `{ok, path, key, entry,
/// resolved:{modelProvider, model}, liveSwitch}` (AgentService::patch_session).
MethodResult sessions_patch(MethodContext& ctx) {
  const json& params = ctx.request.params;
  if (!params.is_object()) return invalid_params("sessions.patch", "must be object");
  std::string key = params.contains("key") && params["key"].is_string() ? params["key"].get<std::string>() : "";
  if (key.empty() && params.contains("sessionKey") && params["sessionKey"].is_string()) key = params["sessionKey"];
  if (key.empty()) return invalid_params("sessions.patch", "must have required property 'key'");
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto r = agents->patch_session(key, params);
  if (!r) {
    if (r.error().code == "INVALID_REQUEST") return RpcError::invalid(r.error().message);
    return RpcError::unavailable(r.error().message);
  }
  return std::move(*r);
}

/// `sessions.preview {keys[≥1], limit? (12), maxChars? (240, ≥20)}` → `{ts, previews:[{key, status,
/// items:[{role, text}]}]}` (AgentService::preview_sessions).
MethodResult sessions_preview(MethodContext& ctx) {
  Params p("sessions.preview", ctx.request.params);
  if (auto e = p.only({"keys", "limit", "maxChars"})) return *e;
  int64_t limit = 12, max_chars = 240;
  if (auto e = p.integer("limit", limit, 1, 1000)) return *e;
  if (auto e = p.integer("maxChars", max_chars, 20, 100000)) return *e;
  const json& params = ctx.request.params;
  if (!params.contains("keys") || !params["keys"].is_array() || params["keys"].empty()) {
    return invalid_params("sessions.preview", "must have required property 'keys' (a non-empty array)");
  }
  std::vector<std::string> keys;
  for (const auto& k : params["keys"]) {
    if (!k.is_string()) return invalid_params("sessions.preview", "keys must be strings");
    if (!k.get<std::string>().empty()) keys.push_back(k.get<std::string>());
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  return agents->preview_sessions(keys, static_cast<int>(limit), static_cast<int>(max_chars));
}

MethodResult models_list(MethodContext& ctx) {
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  return agents->list_models();
}

MethodResult agents_list(MethodContext& ctx) {
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  return agents->list_agents();
}

}  // namespace

void register_session_methods(MethodRegistry& registry) {
  registry.add({"sessions.list", sessions_list});
  registry.add({"sessions.subscribe", sessions_subscribe});
  registry.add({"sessions.unsubscribe", sessions_unsubscribe});
  registry.add({"sessions.reset", sessions_reset});
  registry.add({"sessions.delete", sessions_delete});
  registry.add({"sessions.compact", sessions_compact});
  registry.add({"sessions.patch", sessions_patch});
  registry.add({"sessions.preview", sessions_preview});
  registry.add({"models.list", models_list});
  registry.add({"agents.list", agents_list});
  register_agents_methods(registry);  // agents.create|update|delete (methods/agents.cpp)
  register_session_lifecycle_methods(registry);
  register_command_methods(registry);
}

}  // namespace pincer::gateway
