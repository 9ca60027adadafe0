// The rules of subagents (SPEC MA-3; agent/subagent_rules.h): settings from the config, depth and
// role, the children-per-session limit, allowAgents, the envelope (tools removed, prompt text),
// the outcome labels and the announce message.
#include <gtest/gtest.h>

#include "agent/subagent_rules.h"
#include "tools/registry.h"

namespace pincer::agent {
namespace subagents_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

class NamedTool final : public tools::Tool {
 public:
  explicit NamedTool(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "test"; }
  const json& parameters() const override { return params_; }
  std::string_view group() const override { return "sessions"; }
  tools::ToolOutput run(const json&, tools::ToolContext&) const override { return tools::ToolOutput::ok(""); }

 private:
  std::string name_;
  json params_ = {{"type", "object"}};
};

store::SessionEntry entry_of(store::OrderedJson fields) {
  fields["sessionId"] = "s-1";
  auto e = store::SessionEntry::from_json(std::move(fields));
  EXPECT_TRUE(static_cast<bool>(e));
  return *e;
}

SpawnCheck check_at(int depth, int children = 0, std::string target = "") {
  SpawnCheck c;
  c.caller_depth = depth;
  c.active_children = children;
  c.requester_agent = "main";
  c.target_agent = std::move(target);
  c.configured_agents = {"main", "ops", "research"};
  return c;
}

TEST(SubagentRules, SettingsDefaultsAndOverrides) {
  const SubagentSettings d = subagent_settings(json::object(), "main");
  EXPECT_EQ(d.max_spawn_depth, 2);
  EXPECT_EQ(d.max_children, 5);
  EXPECT_EQ(d.run_timeout_seconds, 0);
  EXPECT_FALSE(d.allow_agents_configured);

  const json config = {{"agents",
                        {{"defaults",
                          {{"subagents",
                            {{"maxSpawnDepth", 3}, {"maxChildrenPerAgent", 2}, {"runTimeoutSeconds", 30},
                             {"allowAgents", {"research"}}}}}},
                         {"list", {{{"id", "main"}, {"subagents", {{"allowAgents", {"ops"}}}}}, {{"id", "ops"}}}}}}};
  const SubagentSettings m = subagent_settings(config, "main");
  EXPECT_EQ(m.max_spawn_depth, 3);
  EXPECT_EQ(m.max_children, 2);
  EXPECT_EQ(m.run_timeout_seconds, 30);
  ASSERT_TRUE(m.allow_agents_configured);
  EXPECT_EQ(m.allow_agents, std::vector<std::string>{"ops"});  // the agent's list wins
  const SubagentSettings o = subagent_settings(config, "ops");
  EXPECT_EQ(o.allow_agents, std::vector<std::string>{"research"});  // the defaults' list
  // Out of range: clamped (the schema refuses them at load).
  const SubagentSettings c = subagent_settings(json::parse(R"({"agents":{"defaults":{"subagents":{"maxSpawnDepth":99,"maxChildrenPerAgent":0}}}})"), "main");
  EXPECT_EQ(c.max_spawn_depth, 5);
  EXPECT_EQ(c.max_children, 1);
}

TEST(SubagentRules, DepthAndRole) {
  EXPECT_EQ(subagent_role(0, 2), SubagentRole::Orchestrator);
  EXPECT_EQ(subagent_role(1, 2), SubagentRole::Orchestrator);
  EXPECT_EQ(subagent_role(2, 2), SubagentRole::Leaf);
  EXPECT_EQ(subagent_role(1, 1), SubagentRole::Leaf);
  EXPECT_STREQ(to_string(SubagentRole::Leaf), "leaf");
  EXPECT_EQ(session_depth(nullptr), 0);
  const store::SessionEntry main = entry_of({});
  EXPECT_EQ(session_depth(&main), 0);
  const store::SessionEntry child = entry_of({{"spawnedBy", "agent:main:main"}, {"spawnDepth", 2}});
  EXPECT_EQ(session_depth(&child), 2);
  const store::SessionEntry bad = entry_of({{"spawnDepth", "two"}});
  EXPECT_EQ(session_depth(&bad), 0);
  EXPECT_EQ(subagent_session_key("Main", "u-1"), "agent:main:subagent:u-1");
}

TEST(SubagentRules, SpawnChecks) {
  SubagentSettings s;  // depth 2, 5 children
  EXPECT_TRUE(check_spawn(check_at(0), s));
  EXPECT_TRUE(check_spawn(check_at(1), s));
  auto leaf = check_spawn(check_at(2), s);
  ASSERT_FALSE(leaf);
  EXPECT_EQ(leaf.error().code, "FORBIDDEN");
  EXPECT_NE(leaf.error().message.find("not allowed at this depth (current depth: 2, max: 2)"), std::string::npos)
      << leaf.error().message;
  EXPECT_NE(leaf.error().message.find("leaf"), std::string::npos);

  auto full = check_spawn(check_at(0, 5), s);
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().message.find("max active children for this session (5/5"), std::string::npos);
  EXPECT_TRUE(check_spawn(check_at(0, 4), s));

  // Another agent: refused unless allowAgents names it; its own agent is always fine.
  EXPECT_TRUE(check_spawn(check_at(0, 0, "main"), s));
  auto other = check_spawn(check_at(0, 0, "ops"), s);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, "FORBIDDEN");
  EXPECT_NE(other.error().message.find("agentId \"ops\" is not allowed for sessions_spawn (allowed: main"), std::string::npos)
      << other.error().message;
  s.allow_agents_configured = true;
  s.allow_agents = {"ops"};
  EXPECT_TRUE(check_spawn(check_at(0, 0, "ops"), s));
  auto research = check_spawn(check_at(0, 0, "research"), s);
  ASSERT_FALSE(research);
  EXPECT_NE(research.error().message.find("allowed: main, ops"), std::string::npos) << research.error().message;
  s.allow_agents = {"*"};
  EXPECT_TRUE(check_spawn(check_at(0, 0, "research"), s));
  auto unknown = check_spawn(check_at(0, 0, "nobody"), s);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "INVALID_REQUEST");
  EXPECT_NE(unknown.error().message.find("unknown agentId \"nobody\""), std::string::npos);
}

TEST(SubagentRules, EnvelopeRemovesToolsByRole) {
  std::vector<std::unique_ptr<tools::Tool>> owned;
  for (const char* n : {"read", "exec", "cron", "gateway", "message", "sessions_send", "sessions_spawn", "subagents",
                        "sessions_list", "sessions_history", "web_fetch"}) {
    owned.push_back(std::make_unique<NamedTool>(n));
  }
  auto all = [&] {
    std::vector<const tools::Tool*> v;
    for (const auto& t : owned) v.push_back(t.get());
    return v;
  };
  auto names = [](const std::vector<const tools::Tool*>& v) {
    std::vector<std::string> out;
    for (const auto* t : v) out.emplace_back(t->name());
    return out;
  };
  const json config = json::object();

  // Not a subagent session: nothing changes, no text.
  auto tools = all();
  const store::SessionEntry main = entry_of({});
  EXPECT_EQ(apply_subagent_envelope(config, &main, tools), "");
  EXPECT_EQ(tools.size(), owned.size());
  EXPECT_EQ(apply_subagent_envelope(config, nullptr, tools), "");

  // Depth 1 of 2: an orchestrator keeps the spawn tools, loses the control plane.
  const store::SessionEntry orch = entry_of({{"spawnedBy", "agent:main:main"}, {"spawnDepth", 1}, {"label", "dig"}});
  tools = all();
  const std::string text = apply_subagent_envelope(config, &orch, tools);
  EXPECT_EQ(names(tools), (std::vector<std::string>{"read", "exec", "sessions_spawn", "subagents", "sessions_list",
                                                    "sessions_history", "web_fetch"}));
  EXPECT_NE(text.find("agent:main:main spawned you"), std::string::npos) << text;
  EXPECT_NE(text.find("depth 1 of at most 2"), std::string::npos);
  EXPECT_NE(text.find("announced back"), std::string::npos);
  EXPECT_NE(text.find("sessions_spawn"), std::string::npos);
  EXPECT_NE(text.find("Label: dig"), std::string::npos);

  // Depth 2 of 2: a leaf loses the spawn and session tools too.
  const store::SessionEntry leaf = entry_of({{"spawnedBy", "agent:main:subagent:x"}, {"spawnDepth", 2}});
  tools = all();
  const std::string leaf_text = apply_subagent_envelope(config, &leaf, tools);
  EXPECT_EQ(names(tools), (std::vector<std::string>{"read", "exec", "web_fetch"}));
  EXPECT_NE(leaf_text.find("leaf"), std::string::npos);

  // A deeper configured limit makes the same session an orchestrator.
  tools = all();
  (void)apply_subagent_envelope(json::parse(R"({"agents":{"defaults":{"subagents":{"maxSpawnDepth":3}}}})"), &leaf, tools);
  EXPECT_EQ(tools.size(), 7u);
}

TEST(SubagentRules, OutcomesAndLabels) {
  EXPECT_EQ(child_outcome(0, "stop", "").status, "ok");
  const ChildOutcome err = child_outcome(1, "error", "HTTP 500 from provider");
  EXPECT_EQ(err.status, "error");
  EXPECT_EQ(outcome_label(err, 0), "failed: HTTP 500 from provider");
  const ChildOutcome timeout = child_outcome(2, "timeout", "");
  EXPECT_EQ(timeout.status, "timeout");
  EXPECT_EQ(outcome_label(timeout, 3), "timed out after 3 s");
  EXPECT_EQ(outcome_label(timeout, 0), "timed out");
  const ChildOutcome killed = child_outcome(2, "killed", "");
  EXPECT_EQ(killed.status, "aborted");
  EXPECT_EQ(outcome_label(killed, 0), "aborted (killed)");
  EXPECT_EQ(outcome_label(child_outcome(0, "", ""), 0), "completed");
}

TEST(SubagentRules, AnnounceMessage) {
  AnnounceInput in;
  in.child_session_key = "agent:main:subagent:u1";
  in.child_session_id = "sid";
  in.run_id = "r1";
  in.task_label = "count\nthe files";
  in.outcome = {"ok", ""};
  in.result = "There are 3 files.";
  in.runtime_ms = 65'000;
  in.input_tokens = 10;
  in.output_tokens = 4;
  const std::string ok = announce_message(in);
  EXPECT_NE(ok.find("session_key: agent:main:subagent:u1"), std::string::npos) << ok;
  EXPECT_NE(ok.find("task: count the files"), std::string::npos);  // one line
  EXPECT_NE(ok.find("status: completed"), std::string::npos);
  EXPECT_NE(ok.find("There are 3 files."), std::string::npos);
  EXPECT_NE(ok.find("runtime 1m5s"), std::string::npos);
  EXPECT_NE(ok.find("NO_REPLY"), std::string::npos);

  in.outcome = {"timeout", ""};
  in.timeout_seconds = 2;
  in.result = "partial text that must not be replayed";
  const std::string late = announce_message(in);
  EXPECT_NE(late.find("status: timed out after 2 s"), std::string::npos) << late;
  EXPECT_EQ(late.find("partial text"), std::string::npos);

  in.outcome = {"ok", ""};
  in.result = "";
  in.requester_is_subagent = true;
  const std::string nested = announce_message(in);
  EXPECT_NE(nested.find("(no output)"), std::string::npos);
  EXPECT_NE(nested.find("internal update"), std::string::npos);
}

}  // namespace
}  // namespace subagents_test
}  // namespace pincer::agent
