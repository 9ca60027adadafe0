// Chat methods (GW-7 "chat"; openclaw-protocol.md §2.1): chat.send, chat.history, chat.abort,
// chat.message.get.
#include <algorithm>
#include <cctype>
#include <vector>

#include "agent/agent_service.h"
#include "agent/attachments.h"
#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "core/event_loop.h"
#include "core/redact.h"
#include "gateway/gateway.h"
#include "gateway/methods/agents.h"
#include "gateway/methods/chat_turn.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/run_event_bridge.h"
#include "core/json_dump.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;


/// The agent id of a canonical store key ("agent:<id>:…"); "" for anything else.
std::string store_agent_of(const std::string& key) {
  if (key.rfind("agent:", 0) != 0) return "";
  return key.substr(6, key.find(':', 6) - 6);
}

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
/// acknowledgement, as OpenClaw answers a command through chat.send. A command whose result comes
/// later (/compact, /tree ID) answers with a `delta` now and the `final` (both texts) when its
/// work ended, like a streamed reply. Not written to the transcript.
void answer_chat_command(Gateway& gateway, const Client& client, const agent::CommandInvocation& command,
                         const std::string& session_key, const std::string& run_id) {
  agent::AgentService& agents = *gateway.agents();
  const std::string key = agents.canonical_key(session_key);
  auto event = [&gateway, key, run_id](int seq, const char* state, const std::string& text) {
    json payload = {{"runId", run_id}, {"sessionKey", key}, {"seq", seq}, {"state", state}};
    if (std::string_view(state) == "final") payload["stopReason"] = "command";
    else payload["deltaText"] = text;
    payload["message"] = {{"role", "assistant"},
                          {"content", json::array({{{"type", "text"}, {"text", text}}})},
                          {"timestamp", gateway.clock().wall_ms()}};
    gateway.broadcast_run_event("chat", json_dump::compact(payload));
  };
  auto first = std::make_shared<std::string>();  // the immediate text, the final repeats it
  agent::CommandContext context{agents, session_key, {}};
  lend_config_access(context, gateway, client);  // /dreaming on|off
  context.follow_up = [&gateway, event, first](const agent::CommandReply& later) {
    // Posted, as the delta is: a compaction that fails at once must not overtake it.
    auto send = [event, first, text = later.ok ? later.text : redact::apply(later.text)] {
      event(2, "final", *first + "\n" + text);
    };
    if (EventLoop* loop = gateway.loop()) loop->post(send);
    else send();
  };
  const agent::CommandReply reply = agent::run_chat_command(command, context);
  *first = reply.text;
  auto send = [event, text = reply.text, follows = reply.follows] { event(1, follows ? "delta" : "final", text); };
  if (EventLoop* loop = gateway.loop()) loop->post(send);
  else send();
}

/// `chat.send {sessionKey, agentId?, sessionId?, message, thinking?, deliver?, attachments?,
/// timeoutMs?, idempotencyKey}` → `{runId, status:"started"}`; the reply streams as `chat`/`agent`
/// events. `sessionId` (OpenClaw's Control UI sends the one it shows) is accepted; Pincer routes by
/// the session key, whose current session the turn joins.
}  // namespace

MethodResult send_chat_turn(MethodContext& ctx, const std::string& method, const json& params) {
  Params p(method, params);
  std::string session_key, message, key, thinking, agent_id, session_id;
  if (auto e = p.only({"sessionKey", "agentId", "sessionId", "message", "thinking", "deliver", "attachments", "timeoutMs",
                       "idempotencyKey"})) {
    return *e;
  }
  if (auto e = p.string("sessionKey", session_key, true)) return *e;
  if (auto e = p.string("message", message, true)) return *e;
  if (auto e = p.string("idempotencyKey", key, true, true)) return *e;
  if (auto e = p.string("thinking", thinking, false)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("sessionId", session_id, false, true)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();

  // Images and files (agent/attachments.h): decoded, capped, images recognised by their bytes.
  auto attachments = agent::parse_chat_attachments(params.is_object() && params.contains("attachments") ? params["attachments"] : json());
  if (!attachments) return RpcError::invalid("invalid " + method + " params: " + attachments.error().message);
  if (agent::is_blank_message(message) && attachments->empty()) return RpcError::invalid("message or attachment required");
  if (attachments->empty() && is_stop_request(message)) {
    auto aborted = agents->abort(session_key, "", "stop");
    if (!aborted) return from_error(aborted.error());
    return json{{"ok", true}, {"aborted", !aborted->empty()}, {"runIds", *aborted}};
  }
  if (agents->is_active(key)) return json{{"runId", key}, {"status", "in_flight"}};
  // A skill command ("/summarize …", agent/skill_command_input.h) is the model's instruction to use that skill.
  if (auto skill = agent::expand_skill_command(message, agents->canonical_key(session_key, agent_id))) message = std::move(*skill);
  if (auto command = attachments->empty() ? agent::parse_chat_command(message) : std::nullopt) {
    answer_chat_command(ctx.gateway, ctx.client, *command, agent_id.empty() ? session_key : agents->canonical_key(session_key, agent_id),
                        key);
    return json{{"runId", key}, {"status", "started"}};
  }
  agent::SendRequest req{session_key, agent_id, message, key, thinking, agent::RunLane::Main};
  req.source = "chat.send";  // journaled before the answer: a restart resumes it (SS-6)
  req.attachments = std::move(*attachments);
  auto accepted = agents->send(req, make_run_event_sink(ctx.gateway));
  if (!accepted) return from_error(accepted.error(), ctx.gateway.config_drift_note());
  return json{{"runId", accepted->run_id}, {"status", "started"}};
}

namespace {

MethodResult chat_send(MethodContext& ctx) { return send_chat_turn(ctx, "chat.send", ctx.request.params); }

/// `chat.history {sessionKey, agentId?, sessionId?, limit? 1..1000 (200), maxBytes? >=1024,
/// inputRunIds?, includeHidden?}` → `{sessionKey, sessionId, messages, thinkingLevel, defaults, totalMessages,
/// hasMore, pendingInputs, inputReceipts?}`. The newest `limit` messages, then the oldest of those
/// dropped until the JSON array fits in maxBytes (the newest one always stays); hasMore says that
/// older messages were left out. A `sessionId` other than the key's current one (the session was
/// reset) has no messages. Pincer queues no inputs outside a run, so pendingInputs is empty and
/// each of `inputRunIds` has no receipt. Messages marked `display: false` (the startup context,
/// CX-2) are left out, as OpenClaw does, unless `includeHidden: true` (Pincer's own parameter, for
/// `pincer sessions show --startup-context`).
MethodResult history_of(MethodContext& ctx, const char* method) {
  Params p(method, ctx.request.params);
  std::string session_key, agent_id, session_id;
  int64_t limit = 200, max_bytes = INT64_MAX;
  bool include_hidden = false;
  if (auto e = p.only({"sessionKey", "agentId", "sessionId", "limit", "maxBytes", "inputRunIds", "includeHidden"})) return *e;
  if (const json& v = ctx.request.params; v.is_object() && v.contains("includeHidden")) {
    if (!v["includeHidden"].is_boolean()) return invalid_params(method, "/includeHidden must be boolean");
    include_hidden = v["includeHidden"].get<bool>();
  }
  if (auto e = p.string("sessionKey", session_key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("sessionId", session_id, false, true)) return *e;
  if (auto e = p.integer("limit", limit, 1, 1000)) return *e;
  if (auto e = p.integer("maxBytes", max_bytes, 1024, INT64_MAX)) return *e;
  const json& params = ctx.request.params;
  if (params.is_object() && params.contains("inputRunIds")) {
    const json& ids = params["inputRunIds"];
    if (!ids.is_array() || ids.empty() || ids.size() > 50) {
      return invalid_params(method, "/inputRunIds must be an array of 1..50 run ids");
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      const json& id = ids[i];
      if (!id.is_string() || id.get_ref<const std::string&>().empty() || id.get_ref<const std::string&>().size() > 256) {
        return invalid_params(method, "/inputRunIds items must be strings of 1..256 characters");
      }
      for (size_t j = 0; j < i; ++j) {
        if (ids[j] != id) continue;
        return invalid_params(method, "/inputRunIds must NOT have duplicate items (" + std::to_string(j) + " and " +
                                          std::to_string(i) + ")");
      }
    }
  }
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto history = agents->history(agents->canonical_key(session_key, agent_id), 0, /*entry_ids=*/true);
  if (!history) return from_error(history.error());
  json out = std::move(*history);
  json all = std::move(out["messages"]);
  if (!session_id.empty() && out.value("sessionId", "") != session_id) all = json::array();
  if (!include_hidden) {  // as OpenClaw: a message marked display:false (the startup context) is the model's only
    json shown = json::array();
    for (auto& m : all) {
      if (!(m.is_object() && m.contains("display") && m["display"] == false)) shown.push_back(std::move(m));
    }
    all = std::move(shown);
  }
  const size_t total = all.size();
  size_t first = total > static_cast<size_t>(limit) ? total - static_cast<size_t>(limit) : 0;
  // Bytes of the messages array as sent: "[" + items joined by "," + "]".
  std::vector<size_t> sizes;
  size_t bytes = 2;
  for (size_t i = first; i < total; ++i) {
    sizes.push_back(json_dump::compact(all[i]).size());
    bytes += sizes.back() + (i > first ? 1 : 0);
  }
  for (size_t k = 0; bytes > static_cast<uint64_t>(max_bytes) && first + 1 < total; ++k, ++first) bytes -= sizes[k] + 1;
  json messages = json::array();
  for (size_t i = first; i < total; ++i) messages.push_back(std::move(all[i]));
  out["messages"] = std::move(messages);
  out["totalMessages"] = total;
  out["hasMore"] = first > 0;
  out["pendingInputs"] = {{"items", json::array()}, {"total", 0}};
  if (params.is_object() && params.contains("inputRunIds")) {
    // A chat.send input is taken by its run at once (Pincer queues no input outside a run): an
    // input whose run no longer runs is consumed — the Control UI waits for that receipt before
    // it takes the next message.
    json receipts = json::array(), consumed = json::array();
    for (const auto& id : params["inputRunIds"]) {
      const std::string run_id = id.get<std::string>();
      if (agents->is_active(run_id)) {
        receipts.push_back({{"runId", run_id}, {"state", "pending"}});
      } else {
        receipts.push_back({{"runId", run_id}, {"state", "consumed"}, {"consumedByEventId", run_id}});
        consumed.push_back({{"runId", run_id}, {"consumedByEventId", run_id}});
      }
    }
    out["inputReceipts"] = std::move(receipts);
    out["inputConsumptions"] = std::move(consumed);
  }
  json defaults = agents->session_defaults(store_agent_of(out.value("sessionKey", "")));
  defaults.erase("agentId");
  out["defaults"] = std::move(defaults);
  return out;
}

MethodResult chat_history(MethodContext& ctx) { return history_of(ctx, "chat.history"); }

/// `chat.startup`: the Control UI's first page of a conversation. The sessionKey form answers as
/// chat.history; the short-link form ({shortId, agentId, …}) finds nothing, as Pincer has no
/// short chat links: `{resolution: {ok: false}}`.
MethodResult chat_startup(MethodContext& ctx) {
  const json& params = ctx.request.params;
  if (params.is_object() && params.contains("shortId") && !params.contains("sessionKey")) {
    Params p("chat.startup", params);
    std::string short_id, agent_id, slug;
    if (auto e = p.only({"shortId", "slugHint", "agentId", "limit", "maxBytes"})) return *e;
    if (auto e = p.string("shortId", short_id, true, true)) return *e;
    if (auto e = p.string("agentId", agent_id, true, true)) return *e;
    if (auto e = p.string("slugHint", slug, false, true)) return *e;
    return json{{"resolution", {{"ok", false}}}};
  }
  return history_of(ctx, "chat.startup");
}

/// `text` cut to at most `max_chars` code points (never inside a UTF-8 sequence); true when cut.
bool cut_to_chars(std::string& text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars++ == max_chars) {
      text.resize(i);
      return true;
    }
  }
  return false;
}

/// `chat.message.get {sessionKey, agentId?, messageId, maxChars? 1..2000000}` → `{ok:true,
/// message}` — the message of the session's current transcript whose entry id (chat.history's
/// `__openclaw.id`) is messageId, in chat.history's shape, each text part cut to maxChars
/// characters (`__openclaw.truncated` then) — or, as OpenClaw answers, `{ok:false,
/// unavailableReason:"not_found"}` for an id that is not there or a message chat.history hides.
MethodResult chat_message_get(MethodContext& ctx) {
  Params p("chat.message.get", ctx.request.params);
  std::string session_key, agent_id, message_id;
  int64_t max_chars = 1'000'000;
  if (auto e = p.only({"sessionKey", "agentId", "messageId", "maxChars"})) return *e;
  if (auto e = p.string("sessionKey", session_key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false, true)) return *e;
  if (auto e = p.string("messageId", message_id, true, true)) return *e;
  if (auto e = p.integer("maxChars", max_chars, 1, 2'000'000)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto history = agents->history(agents->canonical_key(session_key, agent_id), 0, /*entry_ids=*/true);
  if (!history) return from_error(history.error());
  for (auto& m : (*history)["messages"]) {
    if (!m.is_object() || !m.contains("__openclaw") || m["__openclaw"].value("id", "") != message_id) continue;
    if (m.contains("display") && m["display"] == false) break;  // hidden from chat.history: not found, as there
    bool cut = false;
    const auto limit = static_cast<size_t>(max_chars);
    if (m.contains("content") && m["content"].is_string()) {
      cut = cut_to_chars(m["content"].get_ref<std::string&>(), limit);
    } else if (m.contains("content") && m["content"].is_array()) {
      for (auto& part : m["content"]) {
        if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
          cut = cut_to_chars(part["text"].get_ref<std::string&>(), limit) || cut;
        }
      }
    }
    if (cut) m["__openclaw"]["truncated"] = true;
    return json{{"ok", true}, {"message", std::move(m)}};
  }
  return json{{"ok", false}, {"unavailableReason", "not_found"}};
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
  registry.add({"chat.startup", chat_startup});
  registry.add({"chat.abort", chat_abort});
  registry.add({"chat.message.get", chat_message_get});
}

}  // namespace pincer::gateway
