// Chat methods (GW-7 "chat"; openclaw-protocol.md §2.1): chat.send, chat.history, chat.abort.
#include <algorithm>
#include <cctype>

#include "agent/agent_service.h"
#include "agent/chat_commands.h"
#include "core/event_loop.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/run_event_bridge.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

RpcError no_runtime() { return RpcError::unavailable("agent runtime not available"); }

/// `note`: Gateway::config_drift_note() — why the running config may not be what the file says.
RpcError from_error(const Error& e, const std::string& note = "") {
  if (e.code == "INVALID_REQUEST" || e.code == "RUN_SESSION_MISMATCH") return RpcError::invalid(e.message);
  return RpcError::unavailable(note.empty() ? e.message : e.message + " (" + note + ")", {{"code", e.code}});
}

/// Messages that stop the session's run instead of starting one (`/stop`, "stop", "abort" …).
bool is_stop_request(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) || std::ispunct(static_cast<unsigned char>(text.back())))) {
    text.pop_back();
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  static const char* kTriggers[] = {"/stop", "stop", "abort", "esc", "halt", "interrupt", "please stop", "stop please"};
  return std::any_of(std::begin(kTriggers), std::end(kTriggers), [&](const char* t) { return text == t; });
}

/// A slash command sent as a chat message (agent/chat_commands.h): run at once; its answer is
/// the run's `chat` final event (an assistant message, stopReason "command"), sent after the
/// acknowledgement, as OpenClaw answers a command through chat.send. Not written to the transcript.
std::string answer_chat_command(Gateway& gateway, const agent::CommandInvocation& command, const std::string& session_key,
                                const std::string& run_id) {
  agent::AgentService& agents = *gateway.agents();
  agent::CommandContext context{agents, session_key, {}};
  const agent::CommandReply reply = agent::run_chat_command(command, context);
  const int64_t ts = gateway.clock().wall_ms();
  json payload = {{"runId", run_id},
                  {"sessionKey", agents.canonical_key(session_key)},
                  {"seq", 1},
                  {"state", "final"},
                  {"stopReason", "command"},
                  {"message", {{"role", "assistant"}, {"content", json::array({{{"type", "text"}, {"text", reply.text}}})}, {"timestamp", ts}}}};
  auto send = [&gateway, text = payload.dump(-1, ' ', false, json::error_handler_t::replace)] {
    gateway.broadcast_run_event("chat", text);
  };
  if (EventLoop* loop = gateway.loop()) loop->post(send);
  else send();
  return reply.text;
}

/// `chat.send {sessionKey, message, thinking?, deliver?, attachments?, timeoutMs?, idempotencyKey}`
/// → `{runId, status:"started"}`; the reply streams as `chat`/`agent` events.
MethodResult chat_send(MethodContext& ctx) {
  Params p("chat.send", ctx.request.params);
  std::string session_key, message, key, thinking;
  if (auto e = p.only({"sessionKey", "message", "thinking", "deliver", "attachments", "timeoutMs", "idempotencyKey"})) return *e;
  if (auto e = p.string("sessionKey", session_key, true)) return *e;
  if (auto e = p.string("message", message, true)) return *e;
  if (auto e = p.string("idempotencyKey", key, true, true)) return *e;
  if (auto e = p.string("thinking", thinking, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();

  if (agent::is_blank_message(message)) return RpcError::invalid("message or attachment required");
  if (is_stop_request(message)) {
    auto aborted = agents->abort(session_key, "", "stop");
    if (!aborted) return from_error(aborted.error());
    return json{{"ok", true}, {"aborted", !aborted->empty()}, {"runIds", *aborted}};
  }
  if (agents->is_active(key)) return json{{"runId", key}, {"status", "in_flight"}};
  if (auto command = agent::parse_chat_command(message)) {
    answer_chat_command(ctx.gateway, *command, session_key, key);
    return json{{"runId", key}, {"status", "started"}};
  }
  agent::SendRequest req{session_key, "", message, key, thinking, agent::RunLane::Main};
  auto accepted = agents->send(req, make_run_event_sink(ctx.gateway));
  if (!accepted) return from_error(accepted.error(), ctx.gateway.config_drift_note());
  return json{{"runId", accepted->run_id}, {"status", "started"}};
}

/// `chat.history {sessionKey, limit? 1..1000 (200)}` → `{sessionKey, sessionId, messages, thinkingLevel}`.
MethodResult chat_history(MethodContext& ctx) {
  Params p("chat.history", ctx.request.params);
  std::string session_key;
  int64_t limit = 200;
  if (auto e = p.only({"sessionKey", "limit"})) return *e;
  if (auto e = p.string("sessionKey", session_key, true)) return *e;
  if (auto e = p.integer("limit", limit, 1, 1000)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto history = agents->history(session_key, static_cast<int>(limit));
  if (!history) return from_error(history.error());
  return std::move(*history);
}

/// `chat.abort {sessionKey, runId?}` → `{ok:true, aborted, runIds}`.
MethodResult chat_abort(MethodContext& ctx) {
  Params p("chat.abort", ctx.request.params);
  std::string session_key, run_id;
  if (auto e = p.only({"sessionKey", "runId"})) return *e;
  if (auto e = p.string("sessionKey", session_key, true)) return *e;
  if (auto e = p.string("runId", run_id, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto aborted = agents->abort(session_key, run_id, "rpc");
  if (!aborted) return from_error(aborted.error());
  return json{{"ok", true}, {"aborted", !aborted->empty()}, {"runIds", *aborted}};
}

}  // namespace

void register_chat_methods(MethodRegistry& registry) {
  registry.add({"chat.send", chat_send, /*requires_idempotency_key=*/true});
  registry.add({"chat.history", chat_history});
  registry.add({"chat.abort", chat_abort});
}

}  // namespace pincer::gateway
