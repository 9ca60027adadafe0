// The MCP client in the gateway process (IX-2; docs/interop.md "MCP client"): the server manager
// (interop/mcp/mcp_manager.h) as the agent's dynamic tool source, its own HTTP client for
// streamable HTTP servers, the `mcp.status` gateway method (scope operator.read) and hot reload
// of `mcp.*`. Loop thread; destroyed before the loop and the agent service.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "gateway/gateway.h"
#include "interop/mcp/mcp_manager.h"

namespace pincer::app {

class McpRuntime {
 public:
  McpRuntime(EventLoop& loop, agent::AgentService& agents, gateway::Gateway& gateway, const nlohmann::json& config,
             const std::string& state_dir);
  ~McpRuntime();

  /// `mcp.*` changed (hot): servers whose settings changed restart on the next run.
  void reconfigure(const nlohmann::json& config);

 private:
  agent::AgentService& agents_;
  gateway::Gateway& gateway_;
  net::HttpClient http_;
  interop::mcp::Manager manager_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::app
