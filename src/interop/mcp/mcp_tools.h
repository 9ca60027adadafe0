// The agent-side objects of the MCP client (docs/interop.md "MCP client"):
//   - McpTool: one server tool as a tools::Tool — name `<server>__<tool>` (mcp_mapping.h), the
//     server's description and inputSchema as they are, group "mcp"; run() hands the call to the
//     loop (ToolCaller) and waits for its answer, which the loop guarantees by the server's
//     toolTimeoutMs (a stopped loop breaks the promise: an error output); a stopped run
//     (ToolContext::cancelled, looked at every 200 ms) returns at once without the answer;
//   - ToolSearchTool (`tool_search`): when a run has more MCP tools than `mcp.eagerToolLimit`,
//     the model sees only this tool, whose description is the catalogue (one line per tool); a
//     search returns the matching tools' descriptions and schemas and makes them callable from
//     the run's next model call;
//   - the RunToolSet of one run (make_run_tool_set).
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
  /// The catalogue line: "name: first line of the description" (cut at kCatalogueLineChars).
  std::string catalogue_line() const;

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

/// Longest description part of a catalogue line, in bytes (the first line of the description,
/// cut with "…"): 80 keeps a tool at ~25 tokens in the catalogue.
inline constexpr std::size_t kCatalogueLineChars = 80;

/// Most tools one tool_search answer returns.
inline constexpr int kMaxSearchResults = 8;

/// A run's MCP tools; `allowed` is the run's policy.
std::shared_ptr<tools::RunToolSet> make_run_tool_set(std::weak_ptr<RunSource> source,
                                                     std::function<bool(const tools::Tool&)> allowed);

/// The ranking of tool_search, exposed for tests: the indexes of `lines` ("name: description")
/// matching `query` best — exact names first (several may be given, separated by spaces or
/// commas), then by the number of query words found (case-insensitive) in the line; at most
/// `limit`, ties in catalogue order.
std::vector<std::size_t> search_catalogue(const std::vector<std::string>& names, const std::vector<std::string>& lines,
                                          const std::string& query, std::size_t limit);

}  // namespace pincer::interop::mcp
