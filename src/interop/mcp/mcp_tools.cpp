#include "interop/mcp/mcp_tools.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include "interop/mcp/mcp_mapping.h"

namespace pincer::interop::mcp {

namespace detail_mcp_tools {

using nlohmann::json;

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words_of(const std::string& query) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : query) {
    if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == ';') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

/// `tool_search`: the catalogue in its description, answers with schemas, loads what it found.
class ToolSearchTool final : public tools::Tool {
 public:
  using Load = std::function<std::vector<std::shared_ptr<const McpTool>>(const std::string& query, std::size_t limit)>;

  ToolSearchTool(std::string catalogue, Load load) : load_(std::move(load)) {
    description_ =
        "Find tools of the connected MCP servers and load them. The catalogue below lists every such tool "
        "(name: what it does); they are not callable until loaded. Call tool_search with the exact names you "
        "need (or words describing the task): the answer gives each found tool's description and parameters, "
        "and the tools become callable from your next step.\n\nCatalogue:\n" +
        catalogue;
    schema_ = {{"type", "object"},
               {"properties",
                {{"query", {{"type", "string"}, {"description", "Tool names from the catalogue (separated by spaces or commas), or words describing the task."}}},
                 {"limit", {{"type", "integer"}, {"description", "Most tools to load (default and maximum 8)."}}}}},
               {"required", json::array({"query"})}};
  }

  std::string_view name() const override { return "tool_search"; }
  std::string_view description() const override { return description_; }
  const json& parameters() const override { return schema_; }
  std::string_view group() const override { return "mcp"; }

  tools::ToolOutput run(const json& args, tools::ToolContext&) const override {
    const std::string query = tools::arg_or<std::string>(args, "query", "");
    int64_t limit = tools::arg_or<int64_t>(args, "limit", kMaxSearchResults);
    limit = std::clamp<int64_t>(limit, 1, kMaxSearchResults);
    auto found = load_(query, static_cast<std::size_t>(limit));
    if (found.empty()) {
      return tools::ToolOutput::ok("No tool in the catalogue matches \"" + query + "\". Use names as the catalogue lists them.",
                                   {{"found", json::array()}});
    }
    std::string text = "Loaded " + std::to_string(found.size()) + " tool" + (found.size() == 1 ? "" : "s") +
                       "; call them from your next step.\n";
    json names = json::array();
    for (const auto& t : found) {
      text += "\n## " + std::string(t->name()) + "\n" + std::string(t->description()) + "\nParameters (JSON Schema): " +
              t->parameters().dump() + "\n";
      names.push_back(std::string(t->name()));
    }
    return tools::ToolOutput::ok(std::move(text), {{"found", names}});
  }

 private:
  std::string description_;
  json schema_;
  Load load_;
};

class McpRunToolSet final : public tools::RunToolSet, public std::enable_shared_from_this<McpRunToolSet> {
 public:
  McpRunToolSet(std::weak_ptr<RunSource> source, std::function<bool(const tools::Tool&)> allowed)
      : source_(std::move(source)), allowed_(std::move(allowed)) {}

  void prepare(std::function<void()> ready) override {
    auto source = source_.lock();
    if (!source) return ready();
    source->when_settled(std::move(ready));
  }

  std::vector<const tools::Tool*> offered() override {
    auto source = source_.lock();
    if (!source) return {};
    std::vector<std::shared_ptr<const McpTool>> tools;
    for (auto& t : source->current_tools()) {
      if (!allowed_ || allowed_(*t)) tools.push_back(std::move(t));
    }
    std::lock_guard lock(mu_);
    for (const auto& t : tools) held_.insert(t);  // pointers stay valid for the whole run
    std::vector<const tools::Tool*> out;
    const bool search = static_cast<int>(tools.size()) > source->eager_tool_limit();
    if (!search) {
      for (const auto& t : tools) out.push_back(t.get());
      return out;
    }
    std::string catalogue;
    for (const auto& t : tools) catalogue += "- " + t->catalogue_line() + "\n";
    if (!search_tool_ || catalogue != catalogue_text_) {
      catalogue_text_ = catalogue;
      catalogue_ = tools;
      std::weak_ptr<McpRunToolSet> weak = weak_from_this();
      auto tool = std::make_shared<ToolSearchTool>(catalogue, [weak](const std::string& query, std::size_t limit) {
        auto self = weak.lock();
        return self ? self->load(query, limit) : std::vector<std::shared_ptr<const McpTool>>{};
      });
      if (allowed_ && !allowed_(*tool)) {  // tool_search itself denied: every tool, as without a limit
        for (const auto& t : tools) out.push_back(t.get());
        return out;
      }
      search_tool_ = tool;
      old_search_tools_.push_back(tool);
    }
    out.push_back(search_tool_.get());
    for (const auto& t : tools) {
      if (loaded_.count(std::string(t->name()))) out.push_back(t.get());
    }
    return out;
  }

  /// Worker thread (tool_search's run).
  std::vector<std::shared_ptr<const McpTool>> load(const std::string& query, std::size_t limit) {
    std::lock_guard lock(mu_);
    std::vector<std::string> names, lines;
    for (const auto& t : catalogue_) {
      names.emplace_back(t->name());
      lines.push_back(t->catalogue_line());
    }
    std::vector<std::shared_ptr<const McpTool>> out;
    for (std::size_t i : search_catalogue(names, lines, query, limit)) {
      loaded_.insert(names[i]);
      out.push_back(catalogue_[i]);
    }
    return out;
  }

 private:
  std::weak_ptr<RunSource> source_;
  std::function<bool(const tools::Tool&)> allowed_;
  std::mutex mu_;
  std::set<std::shared_ptr<const McpTool>> held_;
  std::vector<std::shared_ptr<const McpTool>> catalogue_;
  std::string catalogue_text_;
  std::shared_ptr<ToolSearchTool> search_tool_;
  std::vector<std::shared_ptr<ToolSearchTool>> old_search_tools_;
  std::set<std::string> loaded_;
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

std::string McpTool::catalogue_line() const {
  const std::string line = one_line(description_, kCatalogueLineChars);
  return line.empty() ? agent_name_ : agent_name_ + ": " + line;
}

tools::ToolOutput McpTool::run(const nlohmann::json& args, tools::ToolContext& ctx) const {
  auto promise = std::make_shared<std::promise<tools::ToolOutput>>();
  auto future = promise->get_future();
  const std::size_t max_chars = ctx.max_output_chars;
  auto handle = std::make_shared<CallHandle>();
  loop_.post([caller = caller_, promise, handle, server = server_, tool = tool_, args, max_chars, label = agent_name_] {
    auto c = caller.lock();
    if (!c) {
      promise->set_value(tools::ToolOutput::failure(label, "the MCP client is stopped", "MCP_UNAVAILABLE"));
      return;
    }
    c->call(server, tool, args, max_chars, handle, [promise](tools::ToolOutput out) { promise->set_value(std::move(out)); });
  });
  // The loop answers by the server's toolTimeoutMs; a stopped loop drops the promise (broken_promise,
  // which invoke_tool turns into an error output). An aborted run does not wait for it: the
  // cancellation flag is looked at between waits, as ToolContext asks of long tools.
  while (future.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
    if (ctx.is_cancelled()) {
      loop_.post([caller = caller_, handle] {
        if (auto c = caller.lock()) c->cancel(*handle);
      });
      return tools::ToolOutput::failure(agent_name_, "cancelled: the run was stopped while the MCP server worked", "ABORTED");
    }
  }
  return future.get();
}

std::shared_ptr<tools::RunToolSet> make_run_tool_set(std::weak_ptr<RunSource> source,
                                                     std::function<bool(const tools::Tool&)> allowed) {
  return std::make_shared<detail_mcp_tools::McpRunToolSet>(std::move(source), std::move(allowed));
}

std::vector<std::size_t> search_catalogue(const std::vector<std::string>& names, const std::vector<std::string>& lines,
                                          const std::string& query, std::size_t limit) {
  namespace d = detail_mcp_tools;
  const std::vector<std::string> words = d::words_of(query);
  std::vector<std::size_t> out;
  std::set<std::size_t> taken;
  for (const auto& w : words) {  // exact names first, in the order given
    for (std::size_t i = 0; i < names.size() && out.size() < limit; ++i) {
      if (!taken.count(i) && d::lowercase(names[i]) == d::lowercase(w)) {
        out.push_back(i);
        taken.insert(i);
      }
    }
  }
  if (!out.empty()) return out;  // names given: just those
  std::vector<std::pair<int, std::size_t>> scored;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line = d::lowercase(lines[i]);
    int score = 0;
    for (const auto& w : words) {
      if (line.find(d::lowercase(w)) != std::string::npos) ++score;
    }
    if (score > 0) scored.emplace_back(-score, i);
  }
  std::stable_sort(scored.begin(), scored.end());
  for (const auto& [neg, i] : scored) {
    if (out.size() >= limit) break;
    out.push_back(i);
  }
  return out;
}

}  // namespace pincer::interop::mcp
