// The MCP protocol side of `pincer mcp serve`: lifecycle, tools/list, tools/call dispatch and
// cancellation. The tools themselves are in mcp_server_bridge.cpp.
#include "interop/mcp/mcp_server.h"

#include <spdlog/spdlog.h>

#include "interop/mcp/mcp_server_tools.h"
#include "core/json_dump.h"

namespace pincer::interop::mcp {

using nlohmann::json;
namespace rpc = jsonrpc;

namespace {

/// The MCP revisions this server speaks, newest first (the answer to an unknown one is the newest).
constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

std::string id_key(const json& id) { return id.dump(); }

}  // namespace

McpServer::McpServer(EventLoop& loop, StdioServer& rpc, GatewayLink& gateway, std::string version)
    : loop_(loop), rpc_(rpc), gateway_(gateway), version_(std::move(version)) {}

void McpServer::on_message(const rpc::Message& m) {
  switch (m.kind) {
    case rpc::Message::Kind::Request:
      on_request(m);
      return;
    case rpc::Message::Kind::Notification:
      if (m.method == "notifications/initialized") {
        initialized_ = true;
      } else if (m.method == "notifications/cancelled") {
        if (m.params.is_object() && m.params.contains("requestId")) cancel_request(m.params["requestId"]);
      }
      return;  // other notifications need no answer
    case rpc::Message::Kind::Response:
      return;  // this server sends no requests
  }
}

void McpServer::on_request(const rpc::Message& m) {
  if (!m.params.is_null() && !m.params.is_object()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: " + m.method + " takes an object");
    return;
  }
  if (m.method == "initialize") return initialize(m);
  if (m.method == "ping") return rpc_.reply(m.id, json::object());
  if (m.method == "tools/list") return rpc_.reply(m.id, json{{"tools", server_tool_definitions()}});
  if (m.method == "tools/call") return call_tool(m);
  if (m.method == "resources/list") return rpc_.reply(m.id, json{{"resources", json::array()}});
  if (m.method == "prompts/list") return rpc_.reply(m.id, json{{"prompts", json::array()}});
  rpc_.reply_error(m.id, rpc::kMethodNotFound, "Method not found: " + m.method);
}

void McpServer::initialize(const rpc::Message& m) {
  const json& params = m.params;
  if (!params.is_object() || !params.contains("protocolVersion") || !params["protocolVersion"].is_string()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: initialize needs protocolVersion (a string)");
    return;
  }
  const std::string asked = params["protocolVersion"].get<std::string>();
  std::string version = kProtocolVersions[0];
  for (const char* v : kProtocolVersions) {
    if (asked == v) version = v;
  }
  rpc_.reply(m.id, json{{"protocolVersion", version},
                        {"capabilities", {{"tools", {{"listChanged", false}}}}},
                        {"serverInfo", {{"name", "pincer"}, {"title", "Pincer"}, {"version", version_}}},
                        {"instructions",
                         "Pincer's conversations through its gateway: list them, read their messages, send a message "
                         "for the agent to answer, wait for new events, answer exec approvals."}});
}

void McpServer::call_tool(const rpc::Message& m) {
  const json& params = m.params;
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Invalid params: tools/call needs name (a string)");
    return;
  }
  const std::string name = params["name"].get<std::string>();
  const json* schema = server_tool_schema(name);
  if (!schema) {
    rpc_.reply_error(m.id, rpc::kInvalidParams, "Unknown tool: " + name);
    return;
  }
  const json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (auto problem = check_tool_arguments(*schema, args)) {
    tool_error(m.id, "MCP error -32602: Input validation error: Invalid arguments for tool " + name + ": " + *problem);
    return;
  }
  const json& a = args.is_object() ? args : json::object();
  pending_[id_key(m.id)] = m.id;
  if (name == "conversations_list") return conversations_list(m.id, a);
  if (name == "conversation_get") return conversation_get(m.id, a);
  if (name == "messages_read") return messages_read(m.id, a);
  if (name == "messages_send") return messages_send(m.id, a);
  if (name == "events_poll") return events_poll(m.id, a);
  if (name == "events_wait") return events_wait(m.id, a);
  if (name == "permissions_list_open") return permissions_list_open(m.id);
  if (name == "permissions_respond") return permissions_respond(m.id, a);
  tool_error(m.id, "tool " + name + " has no handler in this server (an internal error: please report it)");
}

void McpServer::cancel_request(const json& request_id) {
  const std::string key = id_key(request_id);
  if (auto w = waiters_.find(key); w != waiters_.end()) {
    loop_.cancel(w->second.timer);
    waiters_.erase(w);
  }
  pending_.erase(key);  // a gateway answer that comes later is dropped (MCP: no response after a cancel)
}

void McpServer::tool_result(const json& id, const json& structured) {
  const std::string key = id_key(id);
  if (!pending_.erase(key)) return;  // cancelled
  rpc_.reply(id, json{{"content", json::array({{{"type", "text"},
                                                 {"text", json_dump::compact(structured)}}})},
                      {"structuredContent", structured}});
}

void McpServer::tool_error(const json& id, const std::string& text) {
  pending_.erase(id_key(id));
  rpc_.reply(id, json{{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}});
}

void McpServer::gateway_tool(const json& id, const std::string& method, const json& params,
                             std::function<json(json)> shape) {
  gateway_.call(method, params, [this, id, method, shape = std::move(shape)](Result<json> r) {
    if (!pending_.count(id_key(id))) return;  // cancelled meanwhile
    if (!r) {
      tool_error(id, "gateway " + method + " failed: " + r.error().message +
                         (r.error().code.empty() ? "" : " [" + r.error().code + "]"));
      return;
    }
    json out = shape(std::move(*r));
    if (out.is_object() && out.contains("__error")) {
      tool_error(id, out["__error"].get<std::string>());
      return;
    }
    tool_result(id, out);
  });
}

void McpServer::on_gateway_closed(const std::string& why) {
  for (auto& [key, waiter] : waiters_) loop_.cancel(waiter.timer);
  waiters_.clear();
  const auto pending = pending_;
  for (const auto& [key, id] : pending) tool_error(id, "the gateway connection closed: " + why);
  spdlog::error("pincer mcp serve: the gateway connection closed: {}", why);
}

}  // namespace pincer::interop::mcp
