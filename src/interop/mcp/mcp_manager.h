// The MCP client's servers (docs/interop.md "MCP client"): one slot per `mcp.servers.<name>`,
// each with its state
//   idle        configured, not started yet (servers start when the first run that could use
//               them begins, in the background: the gateway never waits for them);
//   starting    the process / first request and the handshake are under way;
//   ready       initialized, tools listed; its tools are offered to runs;
//   unavailable it failed (the reason is kept, also while it restarts: "initialize timed out after 2000 ms", "the server
//               process exited with code 1 (stderr: …)", "the server wrote something that is not
//               JSON-RPC …"); restarted after a backoff of 1 s, doubling up to 5 min;
//   disabled    `enabled: false` or a configuration it cannot run with (the reason says which).
// `notifications/tools/list_changed` lists the tools again. A run waits for servers that are
// starting (at most their connectionTimeoutMs) before its first model call.
//
// As a tools::DynamicToolSource it gives every run its MCP tools (`<server>__<tool>`, group
// "mcp"), filtered by the run's policy; with more than `mcp.eagerToolLimit` of them the run gets
// `tool_search` instead (mcp_tools.h).
//
// Loop affinity: construct, reconfigure, status and open_run on the event-loop thread. The tools
// it hands out run on workers and reach the loop through post().
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "tools/dynamic_tools.h"

namespace pincer::interop::mcp {

struct ManagerImpl;

class Manager final : public tools::DynamicToolSource {
 public:
  /// `state_dir`: the working directory of stdio servers without `cwd`.
  Manager(EventLoop& loop, net::HttpClient& http, const Clock& clock, const nlohmann::json& config,
          std::string state_dir);
  ~Manager() override;
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// A new config: removed or changed servers are stopped (their tools leave the next runs), new
  /// ones wait for a run; unchanged ones keep running.
  void reconfigure(const nlohmann::json& config);

  /// {eagerToolLimit, servers: [{name, transport, state, reason?, tools: [agent names],
  /// toolCount, protocolVersion?, serverInfo?, pid? (stdio), failures, restartInMs?}]} (servers in
  /// name order; the optional members while ready, restartInMs while a restart is pending).
  nlohmann::json status() const;

  /// Starts every enabled idle server now (not waiting for a run); `pincer mcp status --start`.
  void start_all();

  std::shared_ptr<tools::RunToolSet> open_run(std::function<bool(const tools::Tool&)> allowed) override;
  /// The ready servers' tools now, starting none (tools.effective).
  std::vector<std::shared_ptr<const tools::Tool>> known_tools() const override;
  /// The enabled servers not ready: idle or starting, or failed (unavailable, or restarting after
  /// a failure; with its reason).
  std::vector<Pending> pending_sources() const override;

 private:
  std::shared_ptr<ManagerImpl> impl_;
};

}  // namespace pincer::interop::mcp
