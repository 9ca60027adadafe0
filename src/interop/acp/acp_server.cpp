#include "interop/acp/acp_server.h"

#include <spdlog/spdlog.h>

#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "core/ids.h"
#include "store/session_keys.h"

namespace pincer::interop::acp {

using nlohmann::json;
namespace rpc = jsonrpc;

namespace detail_acp_server {

/// The JSON-RPC code for a session key that cannot be used: the caller's mistake (a reserved
/// namespace, a required session that does not exist) is -32602, anything else -32603.
int key_error_code(const pincer::Error& error) {
  return error.code == "INVALID_PARAMS" || error.code == "NOT_FOUND" ? rpc::kInvalidParams : rpc::kInternalError;
}

constexpr int kProtocolVersion = 1;
constexpr const char* kPrefixStart = "[Working directory: ";

/// A replayed user message without the working-directory line this bridge put before it.
std::string without_cwd_prefix(const std::string& text) {
  if (text.rfind(kPrefixStart, 0) != 0) return text;
  const auto end = text.find("]\n\n");
  return end == std::string::npos ? text : text.substr(end + 3);
}

std::string string_param(const json& params, const char* name) {
  return params.is_object() && params.contains(name) && params[name].is_string() ? params[name].get<std::string>() : "";
}

/// Pincer's chat commands (/status, /new, /model …) and the skill commands (/summarize …,
/// agent/skill_command_input.h; the gateway turns them into the skill's instruction) as ACP's
/// available commands.
json available_commands() {
  json out = json::array();
  for (const auto& c : agent::chat_commands()) {
    if (c.terminal_only) continue;
    json command = {{"name", c.name}, {"description", c.help}};
    if (!c.args.empty()) command["input"] = {{"hint", c.args}};
    out.push_back(std::move(command));
  }
  for (const auto& c : agent::skill_commands_of_all_agents()) {
    out.push_back({{"name", c.name}, {"description", c.description}, {"input", {{"hint", "what the skill should work on"}}}});
  }
  return out;
}

}  // namespace detail_acp_server

using namespace detail_acp_server;

AcpServer::AcpServer(StdioServer& rpc, GatewayLink& gateway, AcpOptions options)
    : rpc_(rpc), gateway_(gateway), options_(std::move(options)) {}

void AcpServer::on_message(const rpc::Message& m) {
  if (m.kind == rpc::Message::Kind::Request) return on_request(m);
  if (m.kind == rpc::Message::Kind::Response) return on_permission_answer(m);
  if (m.method == "session/cancel") {
    const std::string id = string_param(m.params, "sessionId");
    if (!id.empty()) cancel(id);
  }
  // Other notifications: nothing to do.
}

void AcpServer::on_request(const rpc::Message& m) {
  if (!m.params.is_null() && !m.params.is_object()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: " + m.method + " takes an object");
    return;
  }
  if (m.method == "initialize") return initialize(m);
  if (m.method == "authenticate") return rpc_.reply(m.id, json::object());
  if (m.method == "session/new") return new_session(m);
  if (m.method == "session/load") return load_session(m);
  if (m.method == "session/prompt") return prompt(m);
  rpc_.reply_error(m.id, rpc::kMethodNotFound, "Method not found: " + m.method);
}

void AcpServer::initialize(const rpc::Message& m) {
  if (!m.params.is_object() || !m.params.contains("protocolVersion") || !m.params["protocolVersion"].is_number_integer()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: initialize needs protocolVersion (an integer)");
    return;
  }
  rpc_.reply(m.id, json{{"protocolVersion", kProtocolVersion},
                        {"agentCapabilities",
                         {{"loadSession", true},
                          {"promptCapabilities", {{"image", true}, {"audio", false}, {"embeddedContext", true}}},
                          {"mcpCapabilities", {{"http", false}, {"sse", false}}}}},
                        {"agentInfo", {{"name", "pincer"}, {"title", "Pincer"}, {"version", options_.version}}},
                        {"authMethods", json::array()}});
}

/// The checks session/new and session/load share: cwd a string, no per-session MCP servers.
static std::optional<std::string> session_setup_problem(const json& params) {
  if (!params.is_object() || !params.contains("cwd") || !params["cwd"].is_string()) return "cwd: expected a string";
  if (params.contains("mcpServers")) {
    if (!params["mcpServers"].is_array()) return "mcpServers: expected an array";
    if (!params["mcpServers"].empty()) {
      return "mcpServers: per-session MCP servers are not supported; configure MCP servers on the Pincer gateway instead";
    }
  }
  return std::nullopt;
}

void AcpServer::new_session(const rpc::Message& m) {
  if (auto problem = session_setup_problem(m.params)) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: " + *problem);
    return;
  }
  const std::string session_id = ids::uuid_v4();
  const std::string cwd = m.params["cwd"].get<std::string>();
  const SessionMeta meta = read_session_meta(m.params.contains("_meta") ? m.params["_meta"] : json());
  resolve_key(meta, "acp-bridge:" + session_id, [this, id = m.id, session_id, cwd](Result<std::string> key) {
    if (!key) return rpc_.reply_error(id, key_error_code(key.error()), key.error().message);
    sessions_[session_id] = Session{*key, cwd};
    spdlog::debug("acp: session/new {} -> {}", session_id, *key);
    rpc_.reply(id, json{{"sessionId", session_id}});
    update(session_id, json{{"sessionUpdate", "available_commands_update"}, {"availableCommands", available_commands()}});
  });
}

void AcpServer::load_session(const rpc::Message& m) {
  if (auto problem = session_setup_problem(m.params)) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: " + *problem);
    return;
  }
  const std::string session_id = string_param(m.params, "sessionId");
  if (session_id.empty()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: sessionId: expected a non-empty string");
    return;
  }
  const std::string cwd = m.params["cwd"].get<std::string>();
  const SessionMeta meta = read_session_meta(m.params.contains("_meta") ? m.params["_meta"] : json());
  std::string fallback;
  if (auto known = sessions_.find(session_id); known != sessions_.end()) fallback = known->second.key;
  else fallback = session_id.find(':') != std::string::npos ? session_id : "acp-bridge:" + session_id;
  resolve_key(meta, fallback, [this, id = m.id, session_id, cwd](Result<std::string> key) {
    if (!key) return rpc_.reply_error(id, key_error_code(key.error()), key.error().message);
    sessions_[session_id] = Session{*key, cwd};
    spdlog::debug("acp: session/load {} -> {}", session_id, *key);
    replay_history(id, session_id, *key);
  });
}

void AcpServer::replay_history(const json& request_id, const std::string& session_id, const std::string& key) {
  gateway_.call("chat.history", json{{"sessionKey", key}, {"limit", 1000}}, [this, request_id, session_id, key](Result<json> r) {
    if (!r) {
      return rpc_.reply_error(request_id, rpc::kInternalError,
                              "cannot read the history of " + key + ": " + r.error().message);
    }
    const json& messages = r->contains("messages") && (*r)["messages"].is_array() ? (*r)["messages"] : json::array();
    for (const auto& message : messages) {
      const std::string role = message.is_object() ? message.value("role", "") : "";
      if (role != "user" && role != "assistant") continue;
      std::string text = message_text(message);
      if (role == "user") text = without_cwd_prefix(text);
      if (text.empty()) continue;
      update(session_id, json{{"sessionUpdate", role == "user" ? "user_message_chunk" : "agent_message_chunk"},
                              {"content", {{"type", "text"}, {"text", text}}}});
    }
    rpc_.reply(request_id, json::object());
    update(session_id, json{{"sessionUpdate", "available_commands_update"}, {"availableCommands", available_commands()}});
  });
}

void AcpServer::resolve_key(const SessionMeta& meta, const std::string& fallback, KeyDone done) {
  const bool require = meta.require_existing.value_or(options_.require_existing);
  const bool reset = meta.reset.value_or(options_.reset_session);
  auto then_reset = [this, reset, done](Result<std::string> key) {
    if (!key || !reset) return done(std::move(key));
    const std::string k = *key;
    gateway_.call("sessions.reset", json{{"key", k}}, [done, k](Result<json> r) {
      // A key with no session yet has nothing to reset.
      if (!r && r.error().message.find("no session") == std::string::npos) {
        return done(Error{r.error().code, "cannot reset session " + k + ": " + r.error().message});
      }
      done(k);
    });
  };
  // A label (the request's, or the command line's when the request names no key) → sessions.list.
  const std::optional<std::string> label = meta.session_label ? meta.session_label
                                            : meta.session_key ? std::nullopt
                                                               : options_.session_label;
  if (label) {
    gateway_.call("sessions.list", json::object(), [label = *label, then_reset](Result<json> r) {
      if (!r) return then_reset(Error{r.error().code, "cannot resolve session label " + label + ": " + r.error().message});
      if (r->contains("sessions") && (*r)["sessions"].is_array()) {
        for (const auto& row : (*r)["sessions"]) {
          if (row.is_object() && row.value("label", "") == label) return then_reset(row.value("key", ""));
        }
      }
      then_reset(Error{"NOT_FOUND", "Unable to resolve session label: " + label});
    });
    return;
  }
  const std::optional<std::string> key = meta.session_key ? meta.session_key : options_.session_key;
  if (!key) return then_reset(fallback);
  if (auto reserved = store::reserved_session_namespace(*key)) {
    return done(Error{"INVALID_PARAMS", "session key " + *key + " is in the reserved namespace `" + *reserved +
                                            "` (the gateway's own sessions); choose another key"});
  }
  if (!require) return then_reset(*key);
  gateway_.call("sessions.describe", json{{"key", *key}}, [key = *key, then_reset](Result<json> r) {
    if (!r) return then_reset(Error{r.error().code, "cannot look up session " + key + ": " + r.error().message});
    if (!r->contains("session") || !(*r)["session"].is_object()) return then_reset(Error{"NOT_FOUND", "Session key not found: " + key});
    then_reset((*r)["session"].value("key", key));
  });
}

void AcpServer::prompt(const rpc::Message& m) {
  const std::string session_id = string_param(m.params, "sessionId");
  auto session = sessions_.find(session_id);
  if (session == sessions_.end()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams,
                     session_id.empty() ? "Invalid params: sessionId: expected a string" : "Session " + session_id + " not found");
    return;
  }
  auto input = read_prompt(m.params.contains("prompt") ? m.params["prompt"] : json());
  if (!input) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: " + input.error().message);
    return;
  }
  if (prompts_.count(session_id)) cancel(session_id);  // a new prompt replaces a running one
  const SessionMeta meta = read_session_meta(m.params.contains("_meta") ? m.params["_meta"] : json());
  std::string message = input->text;
  // A chat command ("/status") goes as it is: the gateway runs it only at the start of the text.
  if (meta.prefix_cwd.value_or(options_.prefix_cwd) && message.rfind('/', 0) != 0) {
    message = kPrefixStart + shorten_home(session->second.cwd, options_.home) + "]\n\n" + message;
  }
  if (message.size() > kMaxPromptBytes) {
    rpc_.reply_error(m.id, rpc::kInvalidParams,
                     "Invalid params: prompt exceeds the maximum allowed size of " + std::to_string(kMaxPromptBytes) + " bytes");
    return;
  }
  Prompt p;
  p.request_id = m.id;
  p.session_id = session_id;
  p.key = session->second.key;
  p.run_id = ids::uuid_v4();
  const std::string run_id = p.run_id;
  prompts_[session_id] = std::move(p);
  json params = {{"sessionKey", session->second.key}, {"message", message}, {"idempotencyKey", run_id}};
  if (!input->attachments.empty()) params["attachments"] = input->attachments;
  if (m.params.contains("_meta") && m.params["_meta"].is_object()) {
    const json& mt = m.params["_meta"];
    for (const char* k : {"thinking", "thinkingLevel"}) {
      if (mt.contains(k) && mt[k].is_string()) params["thinking"] = mt[k];
    }
  }
  gateway_.call("chat.send", params, [this, session_id, run_id](Result<json> ack) {
    auto it = prompts_.find(session_id);
    if (it == prompts_.end() || it->second.run_id != run_id) return;  // cancelled meanwhile
    if (!ack) return fail(session_id, rpc::kInternalError, ack.error().message);
    // A stop word ("stop", "/stop") aborts the session's run instead of starting one.
    if (ack->is_object() && ack->contains("aborted") && !ack->contains("runId")) return finish(session_id, "end_turn");
    // Otherwise the run's chat events end the prompt.
  });
}

void AcpServer::cancel(const std::string& session_id) {
  auto it = prompts_.find(session_id);
  if (it == prompts_.end()) return;
  gateway_.call("chat.abort", json{{"sessionKey", it->second.key}, {"runId", it->second.run_id}}, [](Result<json> r) {
    if (!r) spdlog::warn("acp: chat.abort failed: {}", r.error().message);
  });
  finish(session_id, "cancelled");
}

AcpServer::Prompt* AcpServer::prompt_of_run(const std::string& run_id) {
  for (auto& [id, p] : prompts_) {
    if (p.run_id == run_id) return &p;
  }
  return nullptr;
}

void AcpServer::on_gateway_event(const std::string& event, const json& payload) {
  if (!payload.is_object()) return;
  if (event == "chat") return on_chat_event(payload);
  if (event == "exec.approval.requested") return on_approval_requested(payload);
  if (event == "agent" && payload.value("stream", "") == "tool") return on_tool_event(payload);
}

void AcpServer::on_chat_event(const json& payload) {
  Prompt* p = prompt_of_run(payload.value("runId", ""));
  if (!p) return;
  const std::string state = payload.value("state", "");
  if ((state == "delta" || state == "final" || state == "aborted") && payload.contains("message")) {
    send_chunk(*p, message_text(payload["message"]));
  }
  const std::string session_id = p->session_id;
  if (state == "final") {
    const std::string why = payload.value("stopReason", "");
    finish(session_id, why == "length" || why == "max_tokens" ? "max_tokens" : "end_turn");
  } else if (state == "aborted") {
    finish(session_id, "cancelled");
  } else if (state == "error") {
    fail(session_id, rpc::kInternalError, payload.value("errorMessage", "the run failed"));
  }
}

void AcpServer::on_tool_event(const json& payload) {
  Prompt* p = prompt_of_run(payload.value("runId", ""));
  if (!p || !payload.contains("data") || !payload["data"].is_object()) return;
  const json& data = payload["data"];
  const std::string call_id = data.value("toolCallId", "");
  if (call_id.empty()) return;
  const std::string phase = data.value("phase", "");
  const std::string name = data.value("name", "");
  if (phase == "start") {
    if (!p->open_tools.emplace(call_id, name).second) return;
    if (name == "exec") p->last_exec_call = call_id;
    p->stream.new_step();
    json u = {{"sessionUpdate", "tool_call"}, {"toolCallId", call_id},
              {"title", tool_title(name, data.contains("args") ? data["args"] : json())},
              {"kind", tool_kind(name)}, {"status", "in_progress"}};
    if (data.contains("args") && data["args"].is_object()) u["rawInput"] = data["args"];
    update(p->session_id, std::move(u));
  } else if (phase == "result") {
    p->open_tools.erase(call_id);
    json u = {{"sessionUpdate", "tool_call_update"}, {"toolCallId", call_id},
              {"status", data.value("isError", false) ? "failed" : "completed"}};
    if (data.contains("result")) {
      u["rawOutput"] = data["result"];
      if (json content = tool_content(data["result"]); !content.is_null()) u["content"] = std::move(content);
    }
    update(p->session_id, std::move(u));
  }
}

void AcpServer::on_approval_requested(const json& payload) {
  const json& request = payload.contains("request") && payload["request"].is_object() ? payload["request"] : json::object();
  Prompt* p = prompt_of_run(request.value("runId", ""));
  const std::string approval_id = payload.value("id", "");
  if (!p || approval_id.empty()) return;  // not a run of this agent's prompts
  const std::string command = request.value("command", "");
  std::string call_id = p->open_tools.count(p->last_exec_call) ? p->last_exec_call : "exec:" + approval_id;
  json raw = {{"name", "exec"}, {"approvalId", approval_id}};
  if (!command.empty()) raw["command"] = command;
  if (request.contains("host")) raw["host"] = request["host"];
  if (request.contains("cwd")) raw["cwd"] = request["cwd"];
  json params = {
      {"sessionId", p->session_id},
      {"toolCall",
       {{"toolCallId", call_id},
        {"title", command.empty() ? std::string("Command approval requested") : tool_title("exec", json{{"command", command}})},
        {"kind", "execute"},
        {"status", "pending"},
        {"rawInput", raw},
        {"_meta", {{"toolName", "exec"}, {"approvalId", approval_id}}}}},
      {"options", json::array({{{"optionId", "allow-once"}, {"name", "Allow once"}, {"kind", "allow_once"}},
                               {{"optionId", "allow-always"}, {"name", "Allow always"}, {"kind", "allow_always"}},
                               {{"optionId", "deny"}, {"name", "Deny"}, {"kind", "reject_once"}}})}};
  const json id = "pincer-permission-" + std::to_string(next_request_id_++);
  asks_[id.dump()] = PermissionAsk{approval_id, p->session_id, p->run_id};
  spdlog::debug("acp: exec approval {} relayed to the client as {}", approval_id, id.dump());
  rpc_.request(id, "session/request_permission", params);
}

void AcpServer::on_permission_answer(const rpc::Message& m) {
  auto it = asks_.find(m.id.dump());
  if (it == asks_.end()) return;
  const PermissionAsk ask = it->second;
  asks_.erase(it);
  std::string decision = "deny";  // cancelled, refused, or an answer we cannot read
  if (!m.error && m.result.is_object() && m.result.contains("outcome") && m.result["outcome"].is_object()) {
    const json& outcome = m.result["outcome"];
    const std::string chosen = outcome.value("outcome", "") == "selected" ? outcome.value("optionId", "") : "";
    if (chosen == "allow-once" || chosen == "allow-always") decision = chosen;
  }
  // A prompt that ended (cancelled) meanwhile: its run is gone, and so is the request.
  auto p = prompts_.find(ask.session_id);
  if (p == prompts_.end() || p->second.run_id != ask.run_id) decision = "deny";
  gateway_.call("exec.approval.resolve", json{{"id", ask.approval_id}, {"decision", decision}},
                [approval = ask.approval_id, decision](Result<json> r) {
                  // Answered elsewhere first (the web chat, a timeout): the first answer won.
                  if (!r) spdlog::debug("acp: exec approval {} ({}) not resolved: {}", approval, decision, r.error().message);
                });
}

void AcpServer::send_chunk(Prompt& p, const std::string& text) {
  const std::string chunk = p.stream.next(text);
  if (chunk.empty()) return;
  update(p.session_id, json{{"sessionUpdate", "agent_message_chunk"}, {"content", {{"type", "text"}, {"text", chunk}}}});
}

void AcpServer::update(const std::string& session_id, json update) {
  rpc_.notify("session/update", json{{"sessionId", session_id}, {"update", std::move(update)}});
}

void AcpServer::finish(const std::string& session_id, const std::string& stop_reason) {
  auto it = prompts_.find(session_id);
  if (it == prompts_.end()) return;
  const json id = it->second.request_id;
  prompts_.erase(it);
  rpc_.reply(id, json{{"stopReason", stop_reason}});
}

void AcpServer::fail(const std::string& session_id, int code, const std::string& message) {
  auto it = prompts_.find(session_id);
  if (it == prompts_.end()) return;
  const json id = it->second.request_id;
  prompts_.erase(it);
  rpc_.reply_error(id, code, message);
}

void AcpServer::on_gateway_closed(const std::string& why) {
  std::vector<std::string> ids;
  for (const auto& [id, p] : prompts_) ids.push_back(id);
  for (const auto& id : ids) fail(id, rpc::kInternalError, "the gateway connection closed: " + why);
  spdlog::error("pincer acp: the gateway connection closed: {}", why);
}

}  // namespace pincer::interop::acp
