#include "tools/memory_tools.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

json unavailable(const std::string& why) {
  return {{"results", json::array()},
          {"disabled", true},
          {"unavailable", true},
          {"error", why},
          {"warning", "Memory search is unavailable: " + why},
          {"action", "Tell the user memory is unavailable; check `pincer memory status`."}};
}

class MemorySearchTool : public Tool {
 public:
  std::string_view name() const override { return "memory_search"; }
  std::string_view description() const override {
    return "Search the agent's memory (MEMORY.md, USER.md, memory/*.md) before answering about prior work, "
           "decisions, dates, people, preferences or todos. Returns ranked snippets with path and line range "
           "(memory_get reads more). If disabled=true or partial=true comes back, tell the user, with the warning.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"query", {{"type", "string"}, {"description", "What to look for, in natural language."}}},
          {"maxResults", {{"type", "integer"}, {"minimum", 1}}},
          {"minScore", {{"type", "number"}}},
          {"corpus", {{"type", "string"}, {"enum", {"memory", "wiki", "all", "sessions"}}}}}},
        {"required", {"query"}},
        {"additionalProperties", false}};
    return schema;
  }
  std::string_view group() const override { return "memory"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    json out = ctx.memory ? ctx.memory->search_for_session(ctx.agent_id, ctx.workspace, args, ctx.session_key, ctx.lane)
                          : unavailable("memory is disabled");
    return ToolOutput::ok(out.dump(2, ' ', false, json::error_handler_t::replace), out);
  }
};

class MemoryGetTool : public Tool {
 public:
  std::string_view name() const override { return "memory_get"; }
  std::string_view description() const override {
    return "Exact excerpt read from a memory file (MEMORY.md, USER.md, memory/*.md or a configured extra path). "
           "`from` is the 1-based first line, `lines` how many; without them a bounded excerpt is returned with "
           "truncated/nextFrom when more follows.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}}},
          {"from", {{"type", "integer"}, {"minimum", 1}}},
          {"lines", {{"type", "integer"}, {"minimum", 1}}},
          {"corpus", {{"type", "string"}, {"enum", {"memory", "wiki", "all"}}}}}},
        {"required", {"path"}},
        {"additionalProperties", false}};
    return schema;
  }
  std::string_view group() const override { return "memory"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    json out = ctx.memory ? ctx.memory->get(ctx.agent_id, ctx.workspace, args)
                          : json{{"path", args.value("path", "")}, {"text", ""}, {"disabled", true},
                                 {"error", "memory is disabled"}};
    const bool failed = out.contains("error") && !out.contains("disabled");
    std::string text = out.dump(2, ' ', false, json::error_handler_t::replace);
    return failed ? ToolOutput::error(std::move(text), out) : ToolOutput::ok(std::move(text), out);
  }
};

}  // namespace

std::vector<std::unique_ptr<Tool>> make_memory_tools() {
  std::vector<std::unique_ptr<Tool>> out;
  out.push_back(std::make_unique<MemorySearchTool>());
  out.push_back(std::make_unique<MemoryGetTool>());
  return out;
}

}  // namespace pincer::tools
