// The runner shared by `pincer mcp serve` and `pincer acp` (docs/interop.md): a JSON-RPC server on
// stdio (interop/stdio_server.h) in front of one gateway connection (interop/gateway_link.h).
// Logs go to stderr only (stdout is the protocol channel). Exit codes: 0 when stdin ends; 1 when
// the gateway cannot be reached or refuses us (one "pincer: …" line on stderr, nothing on
// stdout) or when the connection ends while serving; 2 for bad flags or config.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/client_support.h"
#include "core/event_loop.h"
#include "interop/gateway_link.h"
#include "interop/stdio_server.h"

namespace pincer::app {

struct StdioBridgeSpec {
  std::string name;                 ///< e.g. "pincer mcp serve", for log lines
  bool verbose = false;             ///< debug logs on stderr
  std::vector<std::string> caps;    ///< connect.params.caps (e.g. "tool-events")
  /// Gateway calls made once connected, before stdin is read (e.g. sessions.subscribe).
  std::vector<std::pair<std::string, nlohmann::json>> setup_calls;
  std::function<std::unique_ptr<interop::BridgeServer>(EventLoop&, interop::StdioServer&, interop::GatewayLink&)> make;
};

int run_stdio_bridge(const ClientFlags& flags, const StdioBridgeSpec& spec);

}  // namespace pincer::app
