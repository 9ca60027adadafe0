// The two MCP transports under one interface (docs/interop.md "MCP client"): stdio (a child
// process speaking newline-delimited JSON-RPC on stdin/stdout) and streamable HTTP (JSON-RPC
// POSTed to one endpoint, answered as application/json or text/event-stream).
//
// Loop affinity: created, started, used and destroyed on the event-loop thread; handlers are
// called there, never inline from start()/send(). After close() (or the destructor) no handler
// is called again.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/result.h"
#include "interop/mcp/mcp_config.h"

namespace pincer::interop::mcp {

class Transport {
 public:
  struct Handlers {
    /// One JSON-RPC message (the text of one line or one SSE event / JSON body).
    std::function<void(std::string_view message)> on_message;
    /// The transport is gone (the child exited, a pipe closed, an HTTP request failed below
    /// JSON-RPC, a line over the size limit): one line saying why. Called at most once.
    std::function<void(const std::string& reason)> on_closed;
  };

  virtual ~Transport() = default;
  /// Starts the child / checks the URL. Errors: "MCP_SPAWN_FAILED" (command not found, cwd
  /// missing …) or "MCP_BAD_URL", with a one-line message.
  virtual Status start(Handlers handlers) = 0;
  /// Sends one serialized JSON-RPC message (no trailing newline). Ignored after close.
  virtual void send(std::string message) = 0;
  /// After initialize: the negotiated protocol version (HTTP sends it as MCP-Protocol-Version).
  virtual void set_protocol_version(const std::string&) {}
  /// Stops: the child's process group gets SIGTERM, then SIGKILL 2 s later; HTTP requests in
  /// flight are cancelled.
  virtual void close() = 0;
  /// The last lines the server wrote to stderr (stdio), for status reasons; "" when none.
  virtual std::string stderr_tail() const { return ""; }
  /// The child's pid (stdio, once started); 0 otherwise.
  virtual int pid() const { return 0; }
};

/// A stdio server (config.command, args, env over the gateway's scrubbed environment, cwd or
/// `default_cwd`). The child is in its own process group, registered with the process guard
/// (tools/process_guard.h) and given PR_SET_PDEATHSIG, so it dies with the gateway; its stdout
/// is read as the loop sees it readable (no polling), lines of at most 16 MiB.
std::unique_ptr<Transport> make_stdio_transport(EventLoop& loop, const ServerConfig& config,
                                                const std::string& default_cwd);

/// A streamable HTTP server (config.url, headers) through the core HTTP client.
std::unique_ptr<Transport> make_http_transport(EventLoop& loop, net::HttpClient& http, const ServerConfig& config);

}  // namespace pincer::interop::mcp
