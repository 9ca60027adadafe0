// The tool policy pipeline (SPEC TL-2): each layer removes what it should, deny always wins, and
// the first removing layer is reported.
#include <regex>
#include <gtest/gtest.h>

#include "tools/cron_tool.h"
#include "tools/exec_tool.h"
#include "tools/fs_tools.h"
#include "tools/memory_tools.h"
#include "tools/policy/policy_pipeline.h"
#include "tools/web/web_tools.h"

namespace pincer::tools::policy {
namespace {

using nlohmann::json;

/// A tool that only has a name (and a group), for registries of control-plane tools Pincer lacks.
class NamedTool final : public Tool {
 public:
  NamedTool(std::string name, std::string group) : name_(std::move(name)), group_(std::move(group)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "test"; }
  const json& parameters() const override { return params_; }
  std::string_view group() const override { return group_; }
  ToolOutput run(const json&, ToolContext&) const override { return ToolOutput::ok(""); }

 private:
  std::string name_, group_;
  json params_ = {{"type", "object"}};
};

ToolRegistry registry() {
  // The tools these cases were written for (fs, runtime, memory, web, cron) plus `gateway`: tools
  // added to the built-in registry later (skills, session tools, subagents) change nothing here.
  ToolRegistry r;
  for (auto& t : make_fs_tools()) r.add(std::move(t));
  for (auto& t : make_runtime_tools()) r.add(std::move(t));
  for (auto& t : make_memory_tools()) r.add(std::move(t));
  for (auto& t : make_web_tools()) r.add(std::move(t));
  r.add(make_cron_tool());
  r.add(std::make_unique<NamedTool>("gateway", "automation"));
  return r;
}

std::vector<std::string> names(const PolicyDecision& d) {
  std::vector<std::string> out;
  for (const Tool* t : d.tools) out.emplace_back(t->name());
  return out;
}

const ToolVerdict& verdict(const PolicyDecision& d, const std::string& tool) {
  for (const auto& v : d.verdicts) {
    if (v.tool == tool) return v;
  }
  throw std::runtime_error("no verdict for " + tool);
}

PolicyDecision run(const json& config, PolicyOrigin origin = {}) {
  auto r = registry();
  static ToolRegistry keep;  // the decision points into the registry: keep one alive per call
  keep = std::move(r);
  auto d = decide(keep, config, origin);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message);
  return d ? *d : PolicyDecision{};
}

TEST(ToolPolicy, DefaultsOfferTheCodingProfileToTheOwner) {
  auto d = run(json{{"tools", {{"profile", "coding"}}}});
  EXPECT_EQ(names(d), (std::vector<std::string>{"read", "write", "edit", "apply_patch", "exec", "process", "memory_search",
                                               "memory_get", "web_fetch", "web_search", "cron", "gateway"}));
}

TEST(ToolPolicy, OwnerOnlyToolsAreRemovedForOtherSenders) {
  PolicyOrigin o;
  o.sender_is_owner = false;
  auto d = run(json{{"tools", {{"profile", "coding"}}}}, o);
  EXPECT_FALSE(verdict(d, "gateway").allowed);
  EXPECT_EQ(verdict(d, "gateway").layer, "owner-only");
  EXPECT_TRUE(verdict(d, "exec").allowed);
}

TEST(ToolPolicy, ProfileNarrowsAndAlsoAllowWidens) {
  auto d = run(json{{"tools", {{"profile", "minimal"}, {"alsoAllow", {"read"}}}}});
  EXPECT_EQ(names(d), (std::vector<std::string>{"read", "gateway"}));
  EXPECT_EQ(verdict(d, "exec").layer, "profile");
  EXPECT_NE(verdict(d, "exec").reason.find("minimal"), std::string::npos);
}

TEST(ToolPolicy, ByProviderUsesTheMostSpecificKey) {
  json cfg = {{"tools", {{"profile", "coding"}, {"byProvider", {{"mock", {{"deny", {"write"}}}}, {"mock/small", {{"allow", {"read"}}}}}}}}};
  PolicyOrigin o;
  o.provider = "mock";
  o.model = "small";
  auto d = run(cfg, o);
  EXPECT_EQ(names(d), (std::vector<std::string>{"read"}));
  EXPECT_EQ(verdict(d, "exec").layer, "byProvider");
  o.model = "big";
  d = run(cfg, o);
  EXPECT_FALSE(verdict(d, "write").allowed);
  EXPECT_TRUE(verdict(d, "exec").allowed);
}

TEST(ToolPolicy, GlobalDenyBeatsAllow) {
  auto d = run(json{{"tools", {{"profile", "coding"}, {"allow", {"group:runtime", "read"}}, {"deny", {"bash"}}}}});
  EXPECT_EQ(names(d), (std::vector<std::string>{"read", "process"}));
  EXPECT_EQ(verdict(d, "exec").layer, "global");
  EXPECT_NE(verdict(d, "exec").reason.find("tools.deny"), std::string::npos);
  EXPECT_EQ(verdict(d, "write").layer, "global");
}

TEST(ToolPolicy, AgentLayerAppliesToItsAgentOnly) {
  json cfg = {{"tools", {{"profile", "coding"}}},
              {"agents", {{"list", json::array({{{"id", "main"}}, {{"id", "work"}, {"tools", {{"deny", {"group:fs"}}}}}})}}}};
  PolicyOrigin o;
  o.agent_id = "work";
  auto d = run(cfg, o);
  EXPECT_EQ(verdict(d, "read").layer, "agent");
  EXPECT_TRUE(verdict(d, "exec").allowed);
  o.agent_id = "main";
  EXPECT_TRUE(verdict(run(cfg, o), "read").allowed);
}

TEST(ToolPolicy, AgentProfileReplacesTheGlobalOne) {
  json cfg = {{"tools", {{"profile", "coding"}}},
              {"agents", {{"list", json::array({{{"id", "main"}, {"tools", {{"profile", "minimal"}}}}})}}}};
  auto d = run(cfg);
  EXPECT_EQ(verdict(d, "exec").layer, "profile");
  EXPECT_NE(verdict(d, "exec").reason.find("agents.list[main].tools"), std::string::npos);
}

TEST(ToolPolicy, GroupLayerAppliesInGroupsNotInDirectMessages) {
  json cfg = {{"tools", {{"profile", "coding"}}},
              {"channels", {{"telegram", {{"groups", {{"-100", {{"tools", {{"deny", {"exec"}}}}}}, {"*", {{"tools", {{"allow", {"read"}}}}}}}}}}}}};
  PolicyOrigin o;
  o.channel = "telegram";
  o.is_group = true;
  o.group_id = "-100";
  auto d = run(cfg, o);
  EXPECT_EQ(verdict(d, "exec").layer, "group");
  EXPECT_TRUE(verdict(d, "write").allowed);
  o.group_id = "-200";  // the `*` entry
  d = run(cfg, o);
  EXPECT_EQ(names(d), (std::vector<std::string>{"read"}));
  o.is_group = false;  // a direct message skips the layer
  EXPECT_TRUE(verdict(run(cfg, o), "exec").allowed);
}

TEST(ToolPolicy, SandboxFloorRemovesWhatItDenies) {
  PolicyOrigin o;
  o.sandbox_floor = LayerRules{"", {}, {"process"}, "sandbox"};
  auto d = run(json{{"tools", {{"profile", "coding"}}}}, o);
  EXPECT_EQ(verdict(d, "process").layer, "sandbox");
}

TEST(ToolPolicy, SubagentsLoseTheControlPlaneByDefault) {
  PolicyOrigin o;
  o.subagent = true;
  auto d = run(json{{"tools", {{"profile", "coding"}}}}, o);
  EXPECT_EQ(verdict(d, "gateway").layer, "subagent");
  EXPECT_TRUE(verdict(d, "exec").allowed);
  d = run(json{{"tools", {{"profile", "coding"}, {"subagents", {{"tools", {{"deny", {"exec"}}}}}}}}}, o);
  EXPECT_EQ(verdict(d, "exec").layer, "subagent");
  EXPECT_TRUE(verdict(d, "gateway").allowed);
}

TEST(ToolPolicy, FirstRemovingLayerIsReported) {
  PolicyOrigin o;
  o.sender_is_owner = false;
  auto d = run(json{{"tools", {{"profile", "coding"}, {"deny", {"gateway"}}}}}, o);
  EXPECT_EQ(verdict(d, "gateway").layer, "owner-only");
  EXPECT_TRUE(std::regex_search(explain_text(d), std::regex("(^|\\n)gateway +removed by owner-only"))) << explain_text(d);
}

TEST(ToolPolicy, UnknownProfileNamesItsPath) {
  ToolRegistry r = registry();
  PolicyOrigin o;
  o.provider = "p";
  o.model = "m";
  auto d = decide(r, json{{"tools", {{"byProvider", {{"p", {{"profile", "nope"}}}}}}}}, o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "TOOLS_PROFILE_UNKNOWN");
  EXPECT_NE(d.error().message.find("tools.byProvider.p.profile"), std::string::npos) << d.error().message;
}

}  // namespace
}  // namespace pincer::tools::policy
