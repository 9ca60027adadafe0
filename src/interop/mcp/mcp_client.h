// One MCP client session with one server over a Transport (docs/interop.md "MCP client"; the
// MCP specification's lifecycle and tools): `initialize` (protocol version offered: the newest
// Pincer knows; the server's answer must be one of kSupportedProtocolVersions; clientInfo
// "pincer"), `notifications/initialized`, `tools/list` following `nextCursor` to the last page,
// `tools/call`. Server requests are answered (`ping` with {}, anything else with "method not
// found"); `notifications/tools/list_changed` is reported through on_tools_changed.
//
// Every request has a deadline (on the loop's timers); a transport that closes fails every
// pending request with its reason. Bad JSON from the server closes the session ("the server
// wrote something that is not JSON-RPC: …") — a server that speaks garbage is not trusted further.
//
// Loop affinity: everything on the event-loop thread; callbacks are called there, never inline.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "core/result.h"
#include "interop/mcp/mcp_transport.h"

namespace pincer::interop::mcp {

/// Protocol versions Pincer speaks, newest first; the first is offered in `initialize`.
inline constexpr const char* kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/// One tool as the server lists it.
struct ServerTool {
  std::string name;
  std::string title;        ///< "" when none
  std::string description;
  nlohmann::json input_schema = nlohmann::json::object();
};

/// Most tools/list pages followed (a server that keeps answering with a cursor is cut off).
inline constexpr int kMaxToolPages = 100;

class Client : public std::enable_shared_from_this<Client> {
 public:
  /// `timeout_ms`: the deadline of initialize and tools/list.
  Client(EventLoop& loop, std::unique_ptr<Transport> transport, std::string server, int64_t timeout_ms);
  ~Client();

  /// Starts the transport and runs the handshake; `done` once: Ok when initialized, else the
  /// reason (e.g. "initialize timed out after 30000 ms", "the server process exited with code 1").
  void connect(std::function<void(Status)> done);
  /// Every tool, all pages. Errors: "MCP_ERROR" with the server's message, "MCP_TIMEOUT",
  /// "MCP_CLOSED".
  void list_tools(std::function<void(Result<std::vector<ServerTool>>)> done);
  /// tools/call: the CallToolResult object, or an error as for list_tools. Returns the request id
  /// (for cancel; 0 when the session is closed).
  int64_t call_tool(const std::string& name, const nlohmann::json& arguments, int64_t timeout_ms,
                    std::function<void(Result<nlohmann::json>)> done);
  /// Gives up request `id` (MCP "Cancellation": notifications/cancelled with `reason`); its
  /// callback gets "MCP_CANCELLED". No-op when it already finished.
  void cancel(int64_t id, const std::string& reason);
  /// Closes the transport; pending requests fail with "MCP_CLOSED".
  void close(const std::string& reason = "closed");

  /// The transport closed by itself (after connect succeeded): the reason. Set before connect.
  std::function<void(const std::string& reason)> on_closed;
  /// The server sent notifications/tools/list_changed.
  std::function<void()> on_tools_changed;

  const std::string& protocol_version() const { return protocol_version_; }
  const nlohmann::json& server_info() const { return server_info_; }
  bool closed() const { return closed_; }
  /// The stdio child's pid (0 for HTTP).
  int pid() const { return transport_ ? transport_->pid() : 0; }

 private:
  using Reply = std::function<void(Result<nlohmann::json>)>;
  int64_t request(const std::string& method, const nlohmann::json& params, int64_t timeout_ms, Reply reply);
  void on_message(std::string_view text);
  void dispatch(std::string_view text);
  void on_transport_closed(const std::string& reason);
  void fail_all(const std::string& code, const std::string& reason);
  void list_page(std::string cursor, int page, std::shared_ptr<std::vector<ServerTool>> acc,
                 std::function<void(Result<std::vector<ServerTool>>)> done);

  struct Pending {
    Reply reply;
    EventLoop::TimerId timer = 0;
  };

  EventLoop& loop_;
  std::unique_ptr<Transport> transport_;
  std::string server_;
  int64_t timeout_ms_;
  int64_t next_id_ = 1;
  std::map<int64_t, Pending> pending_;
  bool connected_ = false;
  bool closed_ = false;
  std::string protocol_version_;
  nlohmann::json server_info_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::interop::mcp
