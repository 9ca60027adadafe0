// Agent methods (GW-7 "agent"; openclaw-protocol.md §2.1): `agent` answers twice — an ack at once
// and the result when the run ends — and `agent.wait` waits for a run to end.
#include "agent/agent_service.h"
#include "agent/attachments.h"
#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "core/event_loop.h"
#include "core/redact.h"
#include "context/message_fit.h"
#include "gateway/gateway.h"
#include "gateway/methods/agents.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/run_event_bridge.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

std::string_view status_of(const agent::RunEvent& e) {
  switch (e.kind) {
    case agent::RunEvent::Kind::End: return "ok";
    case agent::RunEvent::Kind::Aborted: return "aborted";
    default: return "error";
  }
}

/// `agent {message, agentId?, sessionKey?, thinking?, idempotencyKey, …}` →
/// first `{runId, status:"accepted", acceptedAt}`, later (same id)
/// `{runId, status:"ok", summary:"completed", result:{payloads:[{text}], meta}}` or an error.
MethodResult agent_run(MethodContext& ctx) {
  Params p("agent", ctx.request.params);
  std::string message, agent_id, session_key, key, thinking;
  if (auto e = p.string("message", message, true)) return *e;
  if (auto e = p.string("idempotencyKey", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (auto e = p.string("sessionKey", session_key, false)) return *e;
  if (auto e = p.string("thinking", thinking, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();

  // Images and files, as chat.send's (agent/attachments.h).
  auto attachments = agent::parse_chat_attachments(
      ctx.request.params.is_object() && ctx.request.params.contains("attachments") ? ctx.request.params["attachments"] : json());
  if (!attachments) return RpcError::invalid("invalid agent params: " + attachments.error().message);
  if (agent::is_blank_message(message) && attachments->empty()) return RpcError::invalid("message or attachment required");
  // A skill command ("/summarize …", agent/skill_command_input.h) is the model's instruction to use that skill.
  if (auto skill = agent::expand_skill_command(message, agents->canonical_key(session_key.empty() ? "main" : session_key, agent_id))) {
    message = std::move(*skill);
  }
  if (auto command = attachments->empty() ? agent::parse_chat_command(message) : std::nullopt) {
    // A slash command (agent/chat_commands.h) answers at once, in the shape of a finished run; one
    // whose result comes later (/compact, /tree ID) is acknowledged now and answered with both
    // texts (two payloads) when its work ended.
    const std::string key_used = agents->canonical_key(session_key.empty() ? "main" : session_key, agent_id);
    const std::string name = command->command->name;
    auto result = [key, key_used, name](json payloads, bool ok) {
      return json{{"runId", key},
                  {"status", "ok"},
                  {"summary", "command"},
                  {"result", {{"payloads", std::move(payloads)}, {"meta", {{"sessionKey", key_used}, {"command", name}, {"ok", ok}}}}}};
    };
    auto first = std::make_shared<std::string>();
    agent::CommandContext context{*agents, key_used, {}};
    lend_config_access(context, ctx.gateway, ctx.client);  // /dreaming on|off
    Gateway& gw = ctx.gateway;
    context.follow_up = [&gw, conn = ctx.client.id, request_id = ctx.request.id, result, first](const agent::CommandReply& later) {
      const std::string text = later.ok ? later.text : redact::apply(later.text);
      gw.send_to(conn, build_ok_value(request_id, result(json::array({json{{"text", *first}}, json{{"text", text}}}), later.ok)));
    };
    const agent::CommandReply reply = agent::run_chat_command(*command, context);
    if (reply.follows) {
      *first = reply.text;
      return json{{"runId", key}, {"status", "accepted"}, {"acceptedAt", gw.clock().wall_ms()}};
    }
    return result(json::array({json{{"text", reply.text}}}), reply.ok);
  }
  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string request_id = ctx.request.id;
  auto on_terminal = [&gw, conn, request_id](const agent::RunEvent& e) {
    if (e.kind == agent::RunEvent::Kind::End) {
      // A silent reply (NO_REPLY, agent/silent_reply.h) has no payload, as in OpenClaw.
      json result = {{"payloads", e.text.empty() ? json::array() : json::array({json{{"text", e.text}}})},
                     {"meta",
                      {{"sessionKey", e.session_key},
                       {"sessionId", e.session_id},
                       {"agentId", e.agent_id},
                       {"provider", e.provider},
                       {"model", e.model},
                       {"stopReason", e.stop_reason},
                       {"usage", {{"input", e.usage.input}, {"output", e.usage.output}, {"total", e.usage.total_tokens}}}}}};
      gw.send_to(conn, build_ok_value(request_id, json{{"runId", e.run_id}, {"status", "ok"}, {"summary", "completed"},
                                                       {"result", std::move(result)}}));
    } else {
      RpcError err = RpcError::unavailable(e.kind == agent::RunEvent::Kind::Aborted ? "run aborted (" + e.stop_reason + ")"
                                                                                    : e.error,
                                           {{"runId", e.run_id}, {"status", status_of(e)}});
      // A message too large for the model is the request's fault, not the service's: retrying it
      // cannot help (the OpenAI HTTP API answers 400 context_length_exceeded for it likewise).
      if (e.error_reason == context::kMessageTooLargeReason) err.code = "INVALID_REQUEST";
      gw.send_to(conn, build_error(request_id, err));
    }
  };
  agent::SendRequest req{session_key.empty() ? "main" : session_key, agent_id, message, key, thinking, agent::RunLane::Main};
  req.source = "agent";  // journaled before the answer: a restart resumes it (SS-6)
  req.attachments = std::move(*attachments);
  auto accepted = agents->send(req, make_run_event_sink(gw, on_terminal));
  if (!accepted) {
    const std::string note = gw.config_drift_note();  // e.g. the model is in a file that could not be reloaded
    return RpcError::unavailable(note.empty() ? accepted.error().message : accepted.error().message + " (" + note + ")",
                                 {{"code", accepted.error().code}});
  }
  return json{{"runId", accepted->run_id}, {"status", "accepted"}, {"acceptedAt", gw.clock().wall_ms()}};
}

/// `agent.wait {runId, timeoutMs? (30000)}` → `{runId, status:"ok"|"error"|"aborted"|"timeout", error?}`.
MethodResult agent_wait(MethodContext& ctx) {
  Params p("agent.wait", ctx.request.params);
  std::string run_id;
  int64_t timeout_ms = 30'000;
  if (auto e = p.only({"runId", "timeoutMs"})) return *e;
  if (auto e = p.string("runId", run_id, true, true)) return *e;
  if (auto e = p.integer("timeoutMs", timeout_ms, 0, 24LL * 3600 * 1000)) return *e;
  auto* agents = ctx.gateway.agents();
  EventLoop* loop = ctx.gateway.loop();
  if (!agents || !loop) return no_runtime();

  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string request_id = ctx.request.id;
  // Whichever comes first answers; the other finds `answered` set.
  auto answered = std::make_shared<bool>(false);
  auto timer = std::make_shared<std::optional<EventLoop::TimerId>>();
  const bool known = agents->when_finished(run_id, [=, &gw](const agent::RunEvent& e) {
    if (*answered) return;
    *answered = true;
    if (*timer) loop->cancel(**timer);
    json r = {{"runId", run_id}, {"status", status_of(e)}};
    if (e.kind == agent::RunEvent::Kind::Error) r["error"] = redact::apply(e.error);
    gw.send_to(conn, build_ok_value(request_id, r));
  });
  if (!known) return json{{"runId", run_id}, {"status", "error"}, {"error", "unknown runId"}};
  if (*answered) return Deferred{};
  *timer = loop->after(timeout_ms, [=, &gw] {
    if (*answered) return;
    *answered = true;
    gw.send_to(conn, build_ok_value(request_id, json{{"runId", run_id}, {"status", "timeout"}}));
  });
  return Deferred{};
}

}  // namespace

void register_agent_methods(MethodRegistry& registry) {
  registry.add({"agent", agent_run, /*requires_idempotency_key=*/true});
  registry.add({"agent.wait", agent_wait});
}

}  // namespace pincer::gateway
