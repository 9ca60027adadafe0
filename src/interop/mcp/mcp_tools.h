// The agent-side objects of the MCP client (docs/interop.md "MCP client"):
//   - McpTool: one server tool as a tools::Tool — name `<server>__<tool>` (mcp_mapping.h), the
//     server's description and inputSchema as they are, group "mcp"; run() hands the call to the
//     loop (ToolCaller) and waits for its answer, which the loop guarantees by the server's
//     toolTimeoutMs (a stopped loop breaks the promise: an error output); a stopped run
//     (ToolContext::cancelled, looked at every 200 ms) returns at once without the answer;
//   - the RunToolSet of one run (make_run_tool_set): with more MCP tools than `mcp.eagerToolLimit`
//     they are catalogued — offered through `tool_search` (tools/tool_search.h) — instead of
//     offered with their schemas.
// Thread-safety: Tool objects are immutable; the run set locks its own state.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "tools/dynamic_tools.h"
#include "tools/tool.h"

namespace pincer::interop::mcp {

class Client;

/// One tools/call in flight (written and read on the loop only).
struct CallHandle {
  std::weak_ptr<Client> client;  ///< the session it went to (a restarted server is another one)
  int64_t request_id = 0;        ///< 0 = not sent
};

/// The manager's side of a call. Loop thread; `done` exactly once on the loop (also after cancel).
class ToolCaller {
 public:
  virtual ~ToolCaller() = default;
  virtual void call(const std::string& server, const std::string& tool, const nlohmann::json& args,
                    std::size_t max_chars, std::shared_ptr<CallHandle> handle,
                    std::function<void(tools::ToolOutput)> done) = 0;
  /// The run stopped: the server is told (notifications/cancelled).
  virtual void cancel(const CallHandle& handle) = 0;
};

class McpTool final : public tools::Tool {
 public:
  McpTool(EventLoop& loop, std::weak_ptr<ToolCaller> caller, std::string agent_name, std::string server,
          std::string tool, std::string description, nlohmann::json input_schema);

  std::string_view name() const override { return agent_name_; }
  std::string_view description() const override { return description_; }
  const nlohmann::json& parameters() const override { return schema_; }
  std::string_view group() const override { return "mcp"; }
  tools::ToolOutput run(const nlohmann::json& args, tools::ToolContext& ctx) const override;

  const std::string& server() const { return server_; }
  const std::string& server_tool() const { return tool_; }

 private:
  EventLoop& loop_;
  std::weak_ptr<ToolCaller> caller_;
  std::string agent_name_, server_, tool_, description_;
  nlohmann::json schema_;
};

/// What a run's tool set asks the manager. Loop thread.
class RunSource {
 public:
  virtual ~RunSource() = default;
  /// Every tool of the ready servers, in server then tool order.
  virtual std::vector<std::shared_ptr<const McpTool>> current_tools() = 0;
  /// `done` on the loop once no server the run could use is starting (maybe inline).
  virtual void when_settled(std::function<void()> done) = 0;
  virtual int eager_tool_limit() const = 0;
};

/// A run's MCP tools; `allowed` is the run's policy.
std::shared_ptr<tools::RunToolSet> make_run_tool_set(std::weak_ptr<RunSource> source,
                                                     std::function<bool(const tools::Tool&)> allowed);

}  // namespace pincer::interop::mcp
