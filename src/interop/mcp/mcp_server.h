// `pincer mcp serve` (SPEC IX-1; docs/interop.md "MCP server"): an MCP server on stdio whose tools
// read and drive the running gateway's conversations through its WebSocket protocol, as OpenClaw's
// `openclaw mcp serve` does. Protocol: MCP (revisions 2024-11-05 … 2025-11-25) — initialize,
// notifications/initialized, ping, tools/list, tools/call, notifications/cancelled.
//
// Tools (mcp_server_tools.h): conversations_list, conversation_get, messages_read, messages_send,
// events_poll, events_wait, permissions_list_open, permissions_respond. A result carries
// `structuredContent` and the same JSON as its text content; a failing call is a result with
// `isError: true` (bad arguments: "MCP error -32602: Input validation error: …" naming the field,
// as the SDK's McpServer words it). Protocol errors: unknown method -32601; params that are not an
// object, a tools/call without `name` or with an unknown tool -32602.
//
// Events: the gateway's `session.message` (a reply written to a session) and
// `exec.approval.requested|resolved` events are queued in memory from the moment the server
// connected (at most kQueueLimit, oldest dropped), each with a cursor 1, 2, …; events_poll reads
// after a cursor, events_wait waits (timer on the loop, no polling) up to timeout_ms.
//
// Thread affinity: everything runs on the EventLoop thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "interop/gateway_link.h"
#include "interop/stdio_server.h"

namespace pincer::interop::mcp {

class McpServer : public BridgeServer {
 public:
  static constexpr std::size_t kQueueLimit = 1000;

  McpServer(EventLoop& loop, StdioServer& rpc, GatewayLink& gateway, std::string version);

  /// A message from the client (StdioServer's handler).
  void on_message(const jsonrpc::Message& message) override;
  /// A gateway event (GatewayLink::event_forwarder's target).
  void on_gateway_event(const std::string& event, const nlohmann::json& payload) override;
  /// The gateway connection ended: every pending call is answered with an error.
  void on_gateway_closed(const std::string& why) override;

 private:
  struct Waiter {
    nlohmann::json request_id;
    int64_t after_cursor = 0;
    std::string session_key;
    EventLoop::TimerId timer = 0;
  };

  void on_request(const jsonrpc::Message& m);
  void initialize(const jsonrpc::Message& m);
  void call_tool(const jsonrpc::Message& m);
  void cancel_request(const nlohmann::json& request_id);

  // The tools (mcp_server_bridge.cpp); each answers `id` itself, now or later.
  void conversations_list(const nlohmann::json& id, const nlohmann::json& args);
  void conversation_get(const nlohmann::json& id, const nlohmann::json& args);
  void messages_read(const nlohmann::json& id, const nlohmann::json& args);
  void messages_send(const nlohmann::json& id, const nlohmann::json& args);
  void events_poll(const nlohmann::json& id, const nlohmann::json& args);
  void events_wait(const nlohmann::json& id, const nlohmann::json& args);
  void permissions_list_open(const nlohmann::json& id);
  void permissions_respond(const nlohmann::json& id, const nlohmann::json& args);

  void enqueue(nlohmann::json event);
  bool matches(const nlohmann::json& event, int64_t after_cursor, const std::string& session_key) const;

  /// Answers a tools/call with structured content (also as JSON text).
  void tool_result(const nlohmann::json& id, const nlohmann::json& structured);
  /// Answers a tools/call with an error result (isError: true) whose text is `text`.
  void tool_error(const nlohmann::json& id, const std::string& text);
  /// Runs `method` on the gateway and answers `id` with `shape(payload)` or the gateway's error.
  void gateway_tool(const nlohmann::json& id, const std::string& method, const nlohmann::json& params,
                    std::function<nlohmann::json(nlohmann::json)> shape);

  EventLoop& loop_;
  StdioServer& rpc_;
  GatewayLink& gateway_;
  std::string version_;
  bool initialized_ = false;
  std::deque<nlohmann::json> queue_;
  int64_t cursor_ = 0;
  std::map<std::string, Waiter> waiters_;  ///< by the request id's JSON text
  std::map<std::string, nlohmann::json> pending_;  ///< tools/call ids waiting for the gateway
};

}  // namespace pincer::interop::mcp
