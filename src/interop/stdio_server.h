// The stdio side of Pincer's JSON-RPC servers (`pincer mcp serve`, `pincer acp`; docs/interop.md):
// newline-delimited JSON-RPC 2.0 on stdin/stdout, the other side being the process that spawned us
// (an MCP client, an editor). stdout carries protocol messages only: every log line goes to stderr.
//
// Threads: a private reader thread blocks on stdin (poll + read), frames lines with
// jsonrpc::LineFramer and posts each line to the EventLoop; everything else — parsing, handlers,
// writes to stdout — runs on the loop thread. Writes are blocking (a client that stops reading
// stdout stops the server, which is the back-pressure a pipe gives).
//
// Bad input is answered here, never passed on: a line that is not JSON → -32700 with id null; JSON
// that is not a JSON-RPC message → -32600 (with the message's id when it has a readable one); a line
// longer than the limit → -32600 with id null, the line dropped without being buffered. End of
// stdin (or a closed stdout) calls on_end once.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "interop/jsonrpc/jsonrpc.h"

namespace pincer::interop {

class StdioServer {
 public:
  using MessageHandler = std::function<void(const jsonrpc::Message&)>;

  /// `in_fd`/`out_fd`: usually 0 and 1 (borrowed, not closed). `max_line_bytes`: the longest
  /// message accepted.
  StdioServer(EventLoop& loop, int in_fd, int out_fd,
              std::size_t max_line_bytes = jsonrpc::LineFramer::kDefaultMaxLineBytes);
  ~StdioServer();  ///< stops and joins the reader thread
  StdioServer(const StdioServer&) = delete;
  StdioServer& operator=(const StdioServer&) = delete;

  /// Starts the reader thread. `on_message` gets every valid request, notification and response;
  /// `on_end` runs once when stdin ends or stdout is closed. Both run on the loop thread.
  void start(MessageHandler on_message, std::function<void()> on_end);

  /// Loop thread only. Each writes one line to stdout.
  void reply(const nlohmann::json& id, const nlohmann::json& result);
  void reply_error(const nlohmann::json& id, int code, std::string_view message, const nlohmann::json& data = nullptr);
  void notify(std::string_view method, const nlohmann::json& params);
  void request(const nlohmann::json& id, std::string_view method, const nlohmann::json& params);

  /// True once stdin ended or stdout failed.
  bool ended() const { return ended_; }

 private:
  void read_loop();
  void handle_line(const std::string& line);
  void write_line(std::string line);
  void end();

  EventLoop& loop_;
  int in_fd_;
  int out_fd_;
  std::size_t max_line_bytes_;
  int wake_[2] = {-1, -1};  ///< self-pipe that stops the reader
  std::thread reader_;
  MessageHandler on_message_;
  std::function<void()> on_end_;
  bool ended_ = false;
  /// Cleared by the destructor before it joins: lines the reader posts after that are dropped.
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
};

/// A protocol server behind a StdioServer and a GatewayLink (McpServer, AcpServer). All calls on
/// the loop thread.
class BridgeServer {
 public:
  virtual ~BridgeServer() = default;
  virtual void on_message(const jsonrpc::Message& message) = 0;
  virtual void on_gateway_event(const std::string& event, const nlohmann::json& payload) = 0;
  /// The gateway connection ended: answer what is pending with an error.
  virtual void on_gateway_closed(const std::string& why) = 0;
};

}  // namespace pincer::interop
