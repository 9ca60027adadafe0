// The MCP client's pure parts (docs/interop.md "MCP client"): agent tool names from server and
// tool names, CallToolResult → tool output, the settings of mcp.*, and
// the policy of dynamic tools (every layer but the profile).
#include <gtest/gtest.h>

#include "interop/mcp/mcp_config.h"
#include "interop/mcp/mcp_mapping.h"
#include "interop/mcp/mcp_tools.h"
#include "tools/policy/policy_pipeline.h"

namespace pincer::interop::mcp {
namespace {

using nlohmann::json;

bool provider_safe(const std::string& name) {
  if (name.empty() || name.size() > kMaxToolNameChars) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

TEST(McpToolNames, ServerAndToolJoinedByTwoUnderscores) {
  EXPECT_EQ(agent_tool_name("everything", "echo"), "everything__echo");
  EXPECT_EQ(agent_tool_name("files", "read_text_file"), "files__read_text_file");
  EXPECT_EQ(agent_tool_name("everything", "get-sum"), "everything__get-sum") << "hyphens are allowed";
}

TEST(McpToolNames, CharactersOutsideTheProviderCharsetBecomeUnderscores) {
  EXPECT_EQ(agent_tool_name("my server", "search.web"), "my_server__search_web");
  EXPECT_EQ(agent_tool_name("gh", "créer/issue"), "gh__cr__er_issue") << "each byte of é is replaced";
  EXPECT_TRUE(provider_safe(agent_tool_name("a:b", "c d/e")));
}

TEST(McpToolNames, LongNamesAreCutTo64WithAHashThatKeepsThemApart) {
  const std::string tool_a(80, 'a');
  std::string tool_b = tool_a;
  tool_b.back() = 'b';
  const std::string a = agent_tool_name("server", tool_a), b = agent_tool_name("server", tool_b);
  EXPECT_EQ(a.size(), kMaxToolNameChars);
  EXPECT_TRUE(provider_safe(a));
  EXPECT_NE(a, b) << "names that differ only past the cut stay different";
  EXPECT_EQ(a, agent_tool_name("server", tool_a)) << "stable";
  EXPECT_EQ(a.rfind("server__aaaa", 0), 0u);
}

TEST(McpToolNames, ClashesAfterSanitizingGetAHashSuffix) {
  const auto names = assign_tool_names({{"s", "a.b"}, {"s", "a_b"}, {"s", "c"}});
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "s__a_b");
  EXPECT_NE(names[1], "s__a_b");
  EXPECT_EQ(names[1].rfind("s__a_b_", 0), 0u) << names[1];
  EXPECT_EQ(names[2], "s__c");
  for (const auto& n : names) EXPECT_TRUE(provider_safe(n)) << n;
}

TEST(McpOneLine, FirstLineCutAtACharacterBoundary) {
  EXPECT_EQ(one_line("  Echoes back the input\nMore text"), "Echoes back the input");
  EXPECT_EQ(one_line(""), "");
  const std::string cut = one_line(std::string(200, 'x'), 20);
  EXPECT_EQ(cut, std::string(17, 'x') + "\u2026");
  const std::string accents = one_line("ééééééééééééééééééé", 10);  // 2-byte characters
  EXPECT_EQ(accents, "ééé\u2026") << "never half a character: 6 bytes + the 3 of the ellipsis";
}

TEST(McpResults, TextBlocksAreJoined) {
  auto out = map_call_result({{"content", json::array({{{"type", "text"}, {"text", "one"}}, {{"type", "text"}, {"text", "two"}}})}},
                             "srv", "tool", 1000);
  EXPECT_FALSE(out.is_error);
  EXPECT_EQ(out.text, "one\n\ntwo");
  EXPECT_EQ(out.details["server"], "srv");
  EXPECT_EQ(out.details["blocks"].size(), 2u);
}

TEST(McpResults, ImagesAudioAndResourcesBecomeDescriptions) {
  json result = {{"content", json::array({{{"type", "image"}, {"data", "aGVsbG8="}, {"mimeType", "image/png"}},
                                          {{"type", "audio"}, {"data", "AAAA"}, {"mimeType", "audio/wav"}},
                                          {{"type", "resource"}, {"resource", {{"uri", "file:///a.txt"}, {"text", "inside"}}}},
                                          {{"type", "resource"}, {"resource", {{"uri", "file:///b.bin"}, {"blob", "AAAAAAAA"}, {"mimeType", "application/octet-stream"}}}},
                                          {{"type", "resource_link"}, {"uri", "file:///c"}, {"name", "c"}}})}};
  auto out = map_call_result(result, "s", "t", 10000);
  EXPECT_NE(out.text.find("[image image/png, 5 bytes]"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("[audio audio/wav, 3 bytes]"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("[resource file:///a.txt]\ninside"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("[resource file:///b.bin: application/octet-stream, 6 bytes]"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("[resource link c <file:///c>]"), std::string::npos) << out.text;
  EXPECT_EQ(out.details["blocks"][0]["bytes"], 5);
}

TEST(McpResults, IsErrorMakesAnErrorOutput) {
  auto out = map_call_result({{"content", json::array({{{"type", "text"}, {"text", "no such file"}}})}, {"isError", true}}, "s", "t", 100);
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.text, "no such file");
  auto empty = map_call_result({{"content", json::array()}, {"isError", true}}, "s", "t", 100);
  EXPECT_TRUE(empty.is_error);
  EXPECT_NE(empty.text.find("without a message"), std::string::npos);
}

TEST(McpResults, MembersOfTheWrongTypeAreIgnoredNotThrown) {
  auto out = map_call_result({{"content", json::array({{{"type", "text"}, {"text", 5}}, {{"type", "resource"}, {"resource", "x"}}, 7})},
                              {"isError", "yes"}},
                             "s", "t", 100);
  EXPECT_FALSE(out.is_error) << "isError must be a boolean to count";
  EXPECT_NE(out.text.find("[resource : binary, 0 bytes]"), std::string::npos) << out.text;
}

TEST(McpResults, StructuredContentWhenThereIsNoContent) {
  auto out = map_call_result({{"content", json::array()}, {"structuredContent", {{"sum", 3}}}}, "s", "t", 100);
  EXPECT_EQ(out.text, R"({"sum":3})");
}

TEST(McpResults, LongTextIsCutAndBadUtf8Replaced) {
  auto out = map_call_result({{"content", json::array({{{"type", "text"}, {"text", std::string(500, 'x')}}})}}, "s", "t", 100);
  EXPECT_EQ(out.text.rfind(std::string(100, 'x'), 0), 0u);
  EXPECT_NE(out.text.find("[cut: 500 bytes in all]"), std::string::npos);
  auto bad = map_call_result({{"content", json::array({{{"type", "text"}, {"text", std::string("a\xff") + "b"}}})}}, "s", "t", 100);
  EXPECT_EQ(bad.text, "a\uFFFDb");
}

TEST(McpResults, ANonObjectResultIsAnErrorNamingIt) {
  auto out = map_call_result(json::array(), "srv", "tool", 100);
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.text.find("srv__tool"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("array"), std::string::npos) << out.text;
}

TEST(McpSettings, OpenClawShapes) {
  const json config = {{"mcp",
                        {{"eagerToolLimit", 5},
                         {"servers",
                          {{"local", {{"command", "npx"}, {"args", {"-y", "srv"}}, {"env", {{"A", "x"}, {"N", 3}, {"B", true}}},
                                      {"workingDirectory", "/tmp"}}},
                           {"remote", {{"url", "https://example.com/mcp"}, {"headers", {{"Authorization", "Bearer t"}}}}},
                           {"legacy", {{"url", "https://example.com/sse"}, {"transport", "sse"}}},
                           {"oauth", {{"url", "https://example.com/mcp"}, {"auth", "oauth"}}},
                           {"nothing", json::object()},
                           {"off", {{"command", "x"}, {"enabled", false}}}}}}}};
  const Settings s = read_settings(config);
  EXPECT_EQ(s.eager_tool_limit, 5);
  ASSERT_EQ(s.servers.size(), 6u);
  auto find = [&](const std::string& n) {
    for (const auto& c : s.servers) {
      if (c.name == n) return c;
    }
    return ServerConfig{};
  };
  const ServerConfig local = find("local");
  EXPECT_EQ(local.transport, TransportKind::Stdio);
  EXPECT_EQ(local.args, (std::vector<std::string>{"-y", "srv"}));
  EXPECT_EQ(local.env.at("N"), "3");
  EXPECT_EQ(local.env.at("B"), "true");
  EXPECT_EQ(local.cwd, "/tmp") << "workingDirectory is cwd's alias";
  EXPECT_TRUE(local.problem.empty());
  EXPECT_EQ(find("remote").transport, TransportKind::StreamableHttp);
  EXPECT_EQ(find("remote").headers.at(0).second, "Bearer t");
  EXPECT_NE(find("legacy").problem.find("sse"), std::string::npos);
  EXPECT_NE(find("oauth").problem.find("oauth"), std::string::npos);
  EXPECT_NE(find("nothing").problem.find("neither command"), std::string::npos);
  EXPECT_FALSE(find("off").enabled);
  EXPECT_EQ(read_settings(json::object()).servers.size(), 0u);
}

class FakeTool final : public tools::Tool {
 public:
  explicit FakeTool(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "fake"; }
  const json& parameters() const override { return schema_; }
  std::string_view group() const override { return "mcp"; }
  tools::ToolOutput run(const json&, tools::ToolContext&) const override { return tools::ToolOutput::ok(""); }

 private:
  std::string name_;
  json schema_ = {{"type", "object"}};
};

TEST(McpPolicy, EveryLayerButTheProfileApplies) {
  FakeTool echo("srv__echo"), add("srv__add");
  tools::policy::PolicyOrigin origin;
  origin.skip_profile = true;
  const json config = {{"tools", {{"profile", "minimal"}, {"deny", {"srv__add"}}}}};
  auto d = tools::policy::decide(std::vector<const tools::Tool*>{&echo, &add}, config, origin);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->tools.size(), 1u);
  EXPECT_EQ(d->tools[0]->name(), "srv__echo") << "the minimal profile does not remove it, tools.deny does remove add";
  const json group_deny = {{"tools", {{"deny", {"group:mcp"}}}}};
  auto none = tools::policy::decide(std::vector<const tools::Tool*>{&echo}, group_deny, origin);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->tools.empty()) << "group:mcp names them all";
  origin.skip_profile = false;
  auto with_profile = tools::policy::decide(std::vector<const tools::Tool*>{&echo}, config, origin);
  ASSERT_TRUE(with_profile);
  EXPECT_TRUE(with_profile->tools.empty()) << "the registry's rule, for comparison";
}

}  // namespace
}  // namespace pincer::interop::mcp
