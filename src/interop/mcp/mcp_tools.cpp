#include "interop/mcp/mcp_tools.h"

#include <atomic>
#include <future>
#include <mutex>
#include <set>

#include "interop/mcp/mcp_mapping.h"

namespace pincer::interop::mcp {

namespace detail_mcp_tools {

class McpRunToolSet final : public tools::RunToolSet, public std::enable_shared_from_this<McpRunToolSet> {
 public:
  McpRunToolSet(std::weak_ptr<RunSource> source, std::function<bool(const tools::Tool&)> allowed)
      : source_(std::move(source)), allowed_(std::move(allowed)) {}

  void prepare(std::function<void()> ready) override {
    auto source = source_.lock();
    if (!source) return ready();
    source->when_settled(std::move(ready));
  }

  std::vector<const tools::Tool*> offered() override { return over_limit(false); }
  std::vector<const tools::Tool*> catalogued() override { return over_limit(true); }

 private:
  /// The allowed tools of the ready servers when `catalogue` is whether there are more of them
  /// than the eager limit (tool search then offers them, tool_search.h); none otherwise.
  std::vector<const tools::Tool*> over_limit(bool catalogue) {
    auto source = source_.lock();
    if (!source) return {};
    std::vector<std::shared_ptr<const McpTool>> tools;
    for (auto& t : source->current_tools()) {
      if (!allowed_ || allowed_(*t)) tools.push_back(std::move(t));
    }
    if ((static_cast<int>(tools.size()) > source->eager_tool_limit()) != catalogue) return {};
    std::lock_guard lock(mu_);
    std::vector<const tools::Tool*> out;
    for (auto& t : tools) {
      out.push_back(t.get());
      held_.insert(std::move(t));  // pointers stay valid for the whole run
    }
    return out;
  }

  std::weak_ptr<RunSource> source_;
  std::function<bool(const tools::Tool&)> allowed_;
  std::mutex mu_;
  std::set<std::shared_ptr<const McpTool>> held_;
};

}  // namespace detail_mcp_tools

McpTool::McpTool(EventLoop& loop, std::weak_ptr<ToolCaller> caller, std::string agent_name, std::string server,
                 std::string tool, std::string description, nlohmann::json input_schema)
    : loop_(loop),
      caller_(std::move(caller)),
      agent_name_(std::move(agent_name)),
      server_(std::move(server)),
      tool_(std::move(tool)),
      description_(std::move(description)),
      schema_(std::move(input_schema)) {
  if (description_.empty()) description_ = "Tool \"" + tool_ + "\" of the MCP server \"" + server_ + "\".";
}

tools::ToolOutput McpTool::run(const nlohmann::json& args, tools::ToolContext& ctx) const {
  auto promise = std::make_shared<std::promise<tools::ToolOutput>>();
  auto future = promise->get_future();
  // Answered once: by the server, by a stopped loop (the broken promise below) or by a stopped run.
  auto answered = std::make_shared<std::atomic<bool>>(false);
  auto answer = [promise, answered](tools::ToolOutput out) {
    if (!answered->exchange(true)) promise->set_value(std::move(out));
  };
  const std::size_t max_chars = ctx.max_output_chars;
  auto handle = std::make_shared<CallHandle>();
  loop_.post([caller = caller_, answer, handle, server = server_, tool = tool_, args, max_chars, label = agent_name_] {
    auto c = caller.lock();
    if (!c) {
      answer(tools::ToolOutput::failure(label, "the MCP client is stopped", "MCP_UNAVAILABLE"));
      return;
    }
    c->call(server, tool, args, max_chars, handle, [answer](tools::ToolOutput out) { answer(std::move(out)); });
  });
  // The loop answers by the server's toolTimeoutMs; a stopped loop drops the promise (broken_promise,
  // which invoke_tool turns into an error output). A stopped run answers at once and tells the
  // server (notifications/cancelled) from the loop.
  // (It holds the promise weakly: only the posted call keeps it, so a stopped loop still breaks it.)
  auto stop = ctx.on_cancel([weak = std::weak_ptr(promise), answered, handle, caller = caller_, loop = &loop_,
                             label = agent_name_] {
    if (auto p = weak.lock(); p && !answered->exchange(true)) {
      p->set_value(tools::ToolOutput::failure(label, "cancelled: the run was stopped while the MCP server worked", "ABORTED"));
    }
    loop->post([caller, handle] {
      if (auto c = caller.lock()) c->cancel(*handle);
    });
  });
  return future.get();
}

std::shared_ptr<tools::RunToolSet> make_run_tool_set(std::weak_ptr<RunSource> source,
                                                     std::function<bool(const tools::Tool&)> allowed) {
  return std::make_shared<detail_mcp_tools::McpRunToolSet>(std::move(source), std::move(allowed));
}

}  // namespace pincer::interop::mcp
