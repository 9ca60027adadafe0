// Tool search (tools/tool_search.h): the ranking, which built-ins are catalogued, `tools.toolSearch`,
// and a run's searchable tool set — catalogue in tool_search's description, schemas loaded by a
// search, a denied tool_search offering every schema, the catalogue of an inner (MCP) set merged.
#include <gtest/gtest.h>

#include "tools/tool_search.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

class NamedTool final : public Tool {
 public:
  NamedTool(std::string name, std::string group, std::string description)
      : name_(std::move(name)), group_(std::move(group)), description_(std::move(description)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  const json& parameters() const override { return schema_; }
  std::string_view group() const override { return group_; }
  ToolOutput run(const json&, ToolContext&) const override { return ToolOutput::ok(name_); }

 private:
  std::string name_, group_, description_;
  json schema_ = {{"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}};
};

/// An inner set (as the MCP client's) whose tools are either offered or catalogued.
class FixedSet final : public RunToolSet {
 public:
  FixedSet(std::vector<const Tool*> offered, std::vector<const Tool*> catalogued)
      : offered_(std::move(offered)), catalogued_(std::move(catalogued)) {}
  void prepare(std::function<void()> ready) override { ready(); }
  std::vector<const Tool*> offered() override { return offered_; }
  std::vector<const Tool*> catalogued() override { return catalogued_; }

 private:
  std::vector<const Tool*> offered_, catalogued_;
};

std::vector<std::string> names(const std::vector<const Tool*>& tools) {
  std::vector<std::string> out;
  for (const Tool* t : tools) out.emplace_back(t->name());
  return out;
}

const Tool* find(const std::vector<const Tool*>& tools, std::string_view name) {
  for (const Tool* t : tools) {
    if (t->name() == name) return t;
  }
  return nullptr;
}

TEST(ToolSearch, ExactNamesFirstThenWordMatches) {
  const std::vector<std::string> names = {"a__echo", "a__add", "b__weather"};
  const std::vector<std::string> lines = {"a__echo: Echoes back the input", "a__add: Adds two numbers",
                                          "b__weather: Weather forecast for a city"};
  EXPECT_EQ(search_catalogue(names, lines, "b__weather, A__ECHO", 8), (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(search_catalogue(names, lines, "numbers add", 8), (std::vector<std::size_t>{1}));
  EXPECT_EQ(search_catalogue(names, lines, "city forecast input", 8), (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(search_catalogue(names, lines, "a", 1).size(), 1u) << "the limit";
  EXPECT_TRUE(search_catalogue(names, lines, "zzz", 8).empty());
}

TEST(ToolSearch, FileShellMemoryAndMessagingToolsStayDirect) {
  NamedTool read("read", "fs", "Read a file."), exec("exec", "runtime", "Run."), mem("memory_search", "memory", "Search."),
      msg("message", "messaging", "Send."), web("web_fetch", "web", "Fetch."), cron("cron", "automation", "Jobs."),
      spawn("sessions_spawn", "sessions", "Spawn.");
  std::vector<const Tool*> tools = {&read, &web, &exec, &cron, &mem, &spawn, &msg};
  const auto catalogued = take_catalogued_builtins(tools);
  EXPECT_EQ(names(tools), (std::vector<std::string>{"read", "exec", "memory_search", "message"}));
  EXPECT_EQ(names(catalogued), (std::vector<std::string>{"web_fetch", "cron", "sessions_spawn"}));
}

TEST(ToolSearch, TheSettingIsOnUnlessTurnedOff) {
  EXPECT_TRUE(tool_search_enabled(json::object()));
  EXPECT_TRUE(tool_search_enabled({{"tools", {{"profile", "coding"}}}}));
  EXPECT_FALSE(tool_search_enabled({{"tools", {{"toolSearch", false}}}}));
  EXPECT_TRUE(tool_search_enabled({{"tools", {{"toolSearch", true}}}}));
  EXPECT_FALSE(tool_search_enabled({{"tools", {{"toolSearch", {{"enabled", false}}}}}}));
  EXPECT_TRUE(tool_search_enabled({{"tools", {{"toolSearch", json::object()}}}}));
}

TEST(ToolSearch, CatalogueLinesAreOneShortLine) {
  NamedTool t("cron", "automation", "  Schedule jobs\nSecond line");
  EXPECT_EQ(catalogue_line(t), "cron: Schedule jobs");
  NamedTool bare("x", "g", "");
  EXPECT_EQ(catalogue_line(bare), "x");
  NamedTool long_one("y", "g", std::string(300, 'z'));
  EXPECT_LE(catalogue_line(long_one).size(), 3 + kCatalogueLineChars);
}

TEST(ToolSearch, ASearchLoadsSchemasForTheNextCall) {
  NamedTool web("web_fetch", "web", "Fetch a URL as text."), cron("cron", "automation", "Schedule reminders.");
  auto set = make_searchable_tool_set({&web, &cron}, nullptr, nullptr);
  auto first = set->offered();
  ASSERT_EQ(names(first), (std::vector<std::string>{"tool_search"}));
  const std::string catalogue(first[0]->description());
  EXPECT_NE(catalogue.find("- web_fetch: Fetch a URL as text."), std::string::npos) << catalogue;
  EXPECT_NE(catalogue.find("- cron: Schedule reminders."), std::string::npos) << catalogue;
  EXPECT_EQ(names(set->catalogued()), (std::vector<std::string>{"web_fetch", "cron"}));

  ToolContext ctx;
  auto out = first[0]->run({{"query", "cron"}}, ctx);
  EXPECT_FALSE(out.is_error);
  EXPECT_NE(out.text.find("## cron\nSchedule reminders."), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("Parameters (JSON Schema): {\"properties\""), std::string::npos) << out.text;
  EXPECT_EQ(out.details["found"], json::array({"cron"}));
  EXPECT_EQ(names(set->offered()), (std::vector<std::string>{"tool_search", "cron"}));
  EXPECT_EQ(set->offered()[0], first[0]) << "the same catalogue keeps the same tool_search";

  auto none = first[0]->run({{"query", "nothing-like-this"}}, ctx);
  EXPECT_NE(none.text.find("No tool in the catalogue matches"), std::string::npos) << none.text;
}

TEST(ToolSearch, ADeniedToolSearchOffersEverySchema) {
  NamedTool web("web_fetch", "web", "Fetch."), cron("cron", "automation", "Jobs.");
  auto set = make_searchable_tool_set({&web, &cron}, nullptr, [](const Tool& t) { return t.name() != "tool_search"; });
  EXPECT_EQ(names(set->offered()), (std::vector<std::string>{"web_fetch", "cron"}));
}

TEST(ToolSearch, AnInnerSetsOfferedAndCataloguedToolsAreMerged) {
  NamedTool web("web_fetch", "web", "Fetch."), echo("srv__echo", "mcp", "Echo."), add("srv__add", "mcp", "Add.");
  auto inner = std::make_shared<FixedSet>(std::vector<const Tool*>{&echo}, std::vector<const Tool*>{&add});
  auto set = make_searchable_tool_set({&web}, inner, nullptr);
  bool ready = false;
  set->prepare([&] { ready = true; });
  EXPECT_TRUE(ready);
  auto offered = set->offered();
  EXPECT_EQ(names(offered), (std::vector<std::string>{"srv__echo", "tool_search"}));
  EXPECT_EQ(names(set->catalogued()), (std::vector<std::string>{"web_fetch", "srv__add"}));
  const Tool* search = find(offered, "tool_search");
  ASSERT_NE(search, nullptr);
  ToolContext ctx;
  search->run({{"query", "srv__add web_fetch"}}, ctx);
  EXPECT_EQ(names(set->offered()), (std::vector<std::string>{"srv__echo", "tool_search", "web_fetch", "srv__add"}));
}

TEST(ToolSearch, NothingCataloguedMeansNoToolSearch) {
  NamedTool echo("srv__echo", "mcp", "Echo.");
  auto set = make_searchable_tool_set({}, std::make_shared<FixedSet>(std::vector<const Tool*>{&echo}, std::vector<const Tool*>{}),
                                      nullptr);
  EXPECT_EQ(names(set->offered()), (std::vector<std::string>{"srv__echo"}));
}

}  // namespace
}  // namespace pincer::tools
