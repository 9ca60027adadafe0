#include "app/mcp_runtime.h"

#include "core/clock.h"
#include "gateway/methods/registry.h"

namespace pincer::app {

McpRuntime::McpRuntime(EventLoop& loop, agent::AgentService& agents, gateway::Gateway& gateway,
                       const nlohmann::json& config, const std::string& state_dir)
    : agents_(agents), gateway_(gateway), http_(loop), manager_(loop, http_, SystemClock::instance(), config, state_dir) {
  agents_.set_dynamic_tools(&manager_);
  // mcp.status: every configured server, its state and the reason when it is not ready. params
  // {start: true} starts the idle ones first (they otherwise wait for a run).
  gateway_.mutable_methods().add({"mcp.status", [this, alive = alive_](gateway::MethodContext& ctx) -> gateway::MethodResult {
    if (!*alive) return gateway::RpcError::unavailable("the gateway is stopping");
    const nlohmann::json& params = ctx.request.params;
    if (params.is_object() && params.value("start", false)) manager_.start_all();
    return manager_.status();
  }});
}

McpRuntime::~McpRuntime() {
  *alive_ = false;
  agents_.set_dynamic_tools(nullptr);
}

void McpRuntime::reconfigure(const nlohmann::json& config) { manager_.reconfigure(config); }

}  // namespace pincer::app
