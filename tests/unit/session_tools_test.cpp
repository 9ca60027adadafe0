// The session tools' pure parts (TL-1, MA-2): argument checks of the five tools, the answer of a
// tool without a backend, the agent-to-agent policy and the visibility decisions, the ping-pong
// cap and the sentinel replies, session kinds, and the history a tool shows.
#include <gtest/gtest.h>

#include "agent/session_tools_policy.h"
#include "tools/registry.h"
#include "tools/sessions/session_tools.h"

namespace pincer {
namespace session_tools_unit {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
using agent::SessionVisibility;

std::string check(const std::string& tool, const json& args) {
  auto st = tools::check_session_tool_args(tool, args);
  return st ? "" : st.error().message;
}

TEST(SessionTools, ArgumentsAreCheckedWithTheArgumentNamed) {
  EXPECT_EQ(check("sessions_list", json::object()), "");
  EXPECT_EQ(check("sessions_list", {{"limit", 0}}), "sessions_list: argument \"limit\" must be between 1 and 200, got 0");
  EXPECT_EQ(check("sessions_list", {{"messageLimit", 21}}),
            "sessions_list: argument \"messageLimit\" must be between 0 and 20, got 21");
  EXPECT_NE(check("sessions_list", {{"kinds", {"main", "dm"}}}).find("\"kinds\" has \"dm\""), std::string::npos);
  EXPECT_EQ(check("sessions_list", {{"label", "  "}}), "sessions_list: argument \"label\" is empty");
  EXPECT_EQ(check("sessions_history", {{"sessionKey", ""}}), "sessions_history: missing required argument \"sessionKey\"");
  EXPECT_EQ(check("sessions_history", {{"sessionKey", "main"}, {"limit", 5}}), "");
  EXPECT_EQ(check("session_status", json::object()), "");
  EXPECT_EQ(check("sessions_send", {{"sessionKey", "main"}}), "sessions_send: argument \"message\" is missing or empty");
  EXPECT_EQ(check("sessions_send", {{"message", "hi"}}), "sessions_send: give sessionKey, label or agentId (the target)");
  EXPECT_EQ(check("sessions_send", {{"message", "hi"}, {"sessionKey", "a"}, {"label", "b"}}),
            "sessions_send: give either sessionKey or label, not both");
  EXPECT_EQ(check("sessions_send", {{"message", "hi"}, {"agentId", "work"}, {"timeoutSeconds", 3601}}),
            "sessions_send: argument \"timeoutSeconds\" must be between 0 and 3600, got 3601");
  EXPECT_EQ(check("sessions_send", {{"message", "hi"}, {"label", "helper"}, {"timeoutSeconds", 0}}), "");
  EXPECT_EQ(check("message", {{"message", "hi"}}), "");
  EXPECT_EQ(check("message", {{"message", "hi"}, {"action", "pin"}}),
            "message: action \"pin\" is not supported (send or react)");
  EXPECT_EQ(check("message", {{"action", "react"}}), "message: react: argument \"emoji\" is missing or empty");
  EXPECT_EQ(check("message", {{"action", "react"}, {"emoji", "👍"}}), "");  // no text needed
  EXPECT_EQ(check("message", {{"action", "react"}, {"emoji", "👍"}, {"messageId", "1"}, {"message_id", "2"}}),
            "message: messageId and message_id name different messages");
  EXPECT_EQ(check("message", {{"message", ""}}), "message: argument \"message\" is missing or empty");
  EXPECT_EQ(check("message", {{"message", "x"}, {"target", "1"}, {"to", "2"}}), "message: target and to name different recipients");
}

TEST(SessionTools, RegisteredInTheirGroupsAndUnavailableWithoutABackend) {
  const auto reg = tools::ToolRegistry::builtin();
  for (const char* name : {"sessions_list", "sessions_history", "session_status", "sessions_send"}) {
    const tools::Tool* t = reg.find(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->group(), "sessions");
    EXPECT_TRUE(tools::policy_entry_matches("group:sessions", *t)) << name;
  }
  const tools::Tool* message = reg.find("message");
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(tools::policy_entry_matches("group:messaging", *message));
  tools::ToolContext ctx;
  auto out = tools::invoke_tool(*reg.find("sessions_send"), {{"message", "hi"}, {"agentId", "work"}}, ctx);
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.details["code"], "UNAVAILABLE") << out.text;
  auto bad = tools::invoke_tool(*reg.find("sessions_send"), {{"message", "hi"}}, ctx);  // checked before the backend
  EXPECT_EQ(bad.details["code"], "TOOL_ARGS_INVALID") << bad.text;
  EXPECT_TRUE(tools::invoke_tool(*message, {{"message", "hi"}}, ctx).is_error);
}

TEST(SessionTools, TheReactActionIsOfferedOnlyToRunsFromAChannelWithReactions) {
  const auto reg = tools::ToolRegistry::builtin();
  const tools::Tool* plain = reg.find("message");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->parameters()["properties"]["action"]["enum"], json({"send"}));
  EXPECT_FALSE(plain->parameters()["properties"].contains("emoji"));
  // Asked anyway (a model that remembers another run's schema): refused by the schema, no backend call.
  tools::ToolContext ctx;
  auto refused = tools::invoke_tool(*plain, {{"action", "react"}, {"emoji", "👍"}}, ctx);
  EXPECT_TRUE(refused.is_error);
  EXPECT_NE(refused.text.find("argument \"action\" must be one of \"send\", got \"react\""), std::string::npos) << refused.text;

  std::vector<const tools::Tool*> run_tools = {reg.find("read"), plain};
  tools::offer_message_reactions(run_tools);
  ASSERT_EQ(run_tools.size(), 2u);
  EXPECT_EQ(run_tools[0], reg.find("read"));
  EXPECT_NE(run_tools[1], plain);
  EXPECT_EQ(run_tools[1]->name(), "message");
  EXPECT_EQ(run_tools[1]->group(), "messaging");
  EXPECT_EQ(run_tools[1]->parameters()["properties"]["action"]["enum"], json({"send", "react"}));
  EXPECT_TRUE(run_tools[1]->parameters()["properties"].contains("emoji"));
  // A run whose policy removed `message` gets none.
  std::vector<const tools::Tool*> without = {reg.find("read")};
  tools::offer_message_reactions(without);
  EXPECT_EQ(without, std::vector<const tools::Tool*>{reg.find("read")});
}

TEST(SessionTools, AgentToAgentPolicyAsOpenClaw) {
  auto p = agent::agent_to_agent_policy(json::object());
  EXPECT_TRUE(p.enabled);  // on by default, every pair
  EXPECT_TRUE(p.allows("main", "work"));
  p = agent::agent_to_agent_policy({{"tools", {{"agentToAgent", {{"enabled", false}}}}}});
  EXPECT_FALSE(p.allows("main", "work"));
  EXPECT_TRUE(p.allows("work", "work")) << "the same agent is always allowed";
  p = agent::agent_to_agent_policy({{"tools", {{"agentToAgent", {{"allow", {"main", "Team-*"}}}}}}});
  EXPECT_TRUE(p.allows("main", "team-alpha")) << "patterns match any case";
  EXPECT_FALSE(p.allows("main", "other")) << "both agents must match";
  EXPECT_FALSE(p.allows("other", "main"));
  EXPECT_FALSE(agent::agent_to_agent_policy({{"tools", {{"agentToAgent", {{"allow", {"Main"}}}}}}}).allows("main", "main2"))
      << "exact ids are case-sensitive";
  EXPECT_FALSE(agent::agent_to_agent_policy({{"tools", {{"agentToAgent", {{"allow", {" "}}}}}}}).allows("a", "b"))
      << "a blank entry denies";
  EXPECT_TRUE(agent::agent_to_agent_policy({{"tools", {{"agentToAgent", {{"allow", {"*"}}}}}}}).allows("a", "b"));
}

TEST(SessionTools, VisibilityAndPolicyDecideEachTarget) {
  const agent::AgentToAgentPolicy open;
  agent::AgentToAgentPolicy off;
  off.enabled = false;
  auto decide = [](SessionVisibility v, const agent::AgentToAgentPolicy& p, const std::string& target_agent,
                   const std::string& target_key, bool spawned = false, const std::string& caller = "agent:main:main") {
    return agent::session_access("send", v, p, "main", caller, target_agent, target_key, spawned);
  };
  EXPECT_TRUE(decide(SessionVisibility::All, open, "work", "agent:work:main").allowed);
  auto refused = decide(SessionVisibility::All, off, "work", "agent:work:main");
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.status, "forbidden");
  EXPECT_NE(refused.error.find("tools.agentToAgent.enabled=true"), std::string::npos) << refused.error;
  EXPECT_TRUE(decide(SessionVisibility::All, off, "main", "agent:main:other").allowed);
  EXPECT_FALSE(decide(SessionVisibility::Agent, open, "work", "agent:work:main").allowed);
  EXPECT_TRUE(decide(SessionVisibility::Agent, open, "main", "agent:main:x").allowed);
  EXPECT_FALSE(decide(SessionVisibility::Self, open, "main", "agent:main:x").allowed);
  EXPECT_TRUE(decide(SessionVisibility::Self, open, "main", "agent:main:main").allowed) << "itself";
  EXPECT_TRUE(decide(SessionVisibility::Tree, open, "main", "agent:main:x").allowed) << "main sees its agent's sessions";
  EXPECT_FALSE(decide(SessionVisibility::Tree, open, "main", "agent:main:x", false, "agent:main:side").allowed);
  EXPECT_TRUE(decide(SessionVisibility::Tree, open, "main", "agent:main:x", true, "agent:main:side").allowed) << "spawned";
  EXPECT_NE(agent::session_access("list", SessionVisibility::All, off, "main", "agent:main:main", "work", "agent:work:main", false)
                .error.find("listing is disabled"),
            std::string::npos);
}

TEST(SessionTools, PingPongCapAndSentinels) {
  EXPECT_EQ(agent::max_ping_pong_turns(json::object()), 5);
  EXPECT_EQ(agent::max_ping_pong_turns({{"session", {{"agentToAgent", {{"maxPingPongTurns", 2}}}}}}), 2);
  EXPECT_EQ(agent::max_ping_pong_turns({{"session", {{"agentToAgent", {{"maxPingPongTurns", 9}}}}}}), 5) << "at most 5";
  EXPECT_EQ(agent::max_ping_pong_turns({{"session", {{"agentToAgent", {{"maxPingPongTurns", -1}}}}}}), 0);
  for (const char* t : {"REPLY_SKIP", " REPLY_SKIP.\n", "ANNOUNCE_SKIP", "NO_REPLY", "HEARTBEAT_OK"})
    EXPECT_TRUE(agent::is_non_deliverable_reply(t)) << t;
  for (const char* t : {"", "ok", "I will REPLY_SKIP later"}) EXPECT_FALSE(agent::is_non_deliverable_reply(t)) << t;
  const agent::AgentToAgentParties parties{"agent:main:main", "", "agent:work:main", ""};
  const std::string step = agent::a2a_reply_context(parties, true, 2, 5);
  EXPECT_NE(step.find("Current agent: Agent 1 (requester)."), std::string::npos) << step;
  EXPECT_NE(step.find("Turn 2 of 5."), std::string::npos);
  EXPECT_NE(step.find("reply exactly \"REPLY_SKIP\""), std::string::npos);
  const std::string marked = agent::inter_session_message("agent:main:main", "telegram", "hello");
  EXPECT_EQ(marked.rfind("[Inter-session message] sourceSession=agent:main:main sourceChannel=telegram "
                         "sourceTool=sessions_send isUser=false\n", 0), 0u) << marked;
  EXPECT_EQ(marked.substr(marked.size() - 6), "\nhello");
}

TEST(SessionTools, KindsAndTheHistoryAToolShows) {
  EXPECT_EQ(agent::session_kind("agent:main:main"), "main");
  EXPECT_EQ(agent::session_kind("agent:main:telegram:group:-100"), "group");
  EXPECT_EQ(agent::session_kind("agent:main:irc:channel:#x"), "group");
  EXPECT_EQ(agent::session_kind("agent:main:cron:job1"), "cron");
  EXPECT_EQ(agent::session_kind("agent:main:hook:gmail"), "hook");
  EXPECT_EQ(agent::session_kind("agent:main:telegram:direct:42"), "other");

  const json messages = json::array({
      {{"role", "user"}, {"content", "question"}},
      {{"role", "assistant"}, {"content", {{{"type", "toolCall"}, {"name", "read"}}}}},
      {{"role", "toolResult"}, {"content", {{{"type", "text"}, {"text", "file"}}}}},
      {{"role", "assistant"}, {"content", {{{"type", "thinking"}, {"thinking", "hm"}}, {{"type", "text"}, {"text", std::string(50, 'x')}}}}},
  });
  const json plain = agent::history_for_tool(messages, false, 10, 1 << 20);
  ASSERT_EQ(plain["messages"].size(), 2u) << plain.dump();  // the tool call and result are left out
  EXPECT_EQ(plain["messages"][1]["content"].size(), 1u);     // the thinking block too
  EXPECT_EQ(plain["messages"][1]["content"][0]["text"], std::string(10, 'x') + "\n…(truncated)");
  EXPECT_EQ(plain["contentTruncated"], true);
  EXPECT_EQ(plain["droppedMessages"], false);
  EXPECT_EQ(agent::history_for_tool(messages, true, 4000, 1 << 20)["messages"].size(), 4u);
  const json small = agent::history_for_tool(messages, true, 4000, 150);
  EXPECT_EQ(small["droppedMessages"], true);
  EXPECT_LE(small["bytes"].get<std::size_t>(), 150u);
  EXPECT_LT(small["messages"].size(), 4u);
}

TEST(SessionTools, TheChatOfASessionForTheAnnounceStep) {
  auto chat = [](const std::string& key) {
    auto c = agent::session_chat(key);
    return c ? c->channel + "|" + c->account_id + "|" + c->to + "|" + c->thread_id : std::string("none");
  };
  EXPECT_EQ(chat("agent:main:main"), "last|||");
  EXPECT_EQ(chat("agent:main:telegram:direct:42"), "telegram||42|");
  EXPECT_EQ(chat("agent:main:telegram:group:-100123:topic:7"), "telegram||-100123|7");
  EXPECT_EQ(chat("agent:main:irc:channel:#ops:thread:abc"), "irc||#ops|abc");
  EXPECT_EQ(chat("agent:main:telegram:alerts:direct:42"), "telegram|alerts|42|");
  EXPECT_EQ(chat("agent:main:cron:job1"), "none");
  EXPECT_EQ(chat("agent:main:subagent:1234"), "none");
  EXPECT_EQ(chat("main"), "none");
}

}  // namespace
}  // namespace session_tools_unit
}  // namespace pincer
