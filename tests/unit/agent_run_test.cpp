// History sanitising before a provider call (AG-2): unanswered tool calls never reach a provider
// (they reject orphans); failed and aborted replies reach it marked as incomplete.
#include <gtest/gtest.h>

#include "agent/agent_run.h"

namespace pincer::agent {
namespace {

llm::UserMessage user(const std::string& text) {
  llm::UserMessage m;
  m.content.emplace_back(llm::TextContent{text});
  return m;
}

llm::AssistantMessage assistant(const std::string& text, llm::StopReason stop = llm::StopReason::Stop,
                                std::vector<std::string> tool_ids = {}) {
  llm::AssistantMessage m;
  if (!text.empty()) m.content.emplace_back(llm::TextContent{text});
  for (const auto& id : tool_ids) m.content.emplace_back(llm::ToolCall{id, "exec", nlohmann::json::object()});
  m.stop_reason = stop;
  return m;
}

llm::ToolResultMessage result(const std::string& id) {
  llm::ToolResultMessage m;
  m.tool_call_id = id;
  m.tool_name = "exec";
  m.content.emplace_back(llm::TextContent{"ok"});
  return m;
}

TEST(SanitizeHistory, KeepsAWellFormedConversation) {
  std::vector<llm::Message> h = {user("hi"), assistant("", llm::StopReason::ToolUse, {"t1"}), result("t1"), assistant("done")};
  EXPECT_EQ(sanitize_history(h).size(), 4u);
}

TEST(SanitizeHistory, FailedAndAbortedRepliesReachTheModelMarkedIncomplete) {
  // The providers' history rules drop error/aborted replies; a dropped reply would leave its
  // request unanswered (two user messages in a row) and the model would answer it again.
  std::vector<llm::Message> h = {user("a"), assistant("", llm::StopReason::Error), user("b"),
                                 assistant("partial", llm::StopReason::Aborted), user("c")};
  auto out = sanitize_history(h);
  ASSERT_EQ(out.size(), 5u);
  const auto& failed = std::get<llm::AssistantMessage>(out[1]);
  EXPECT_EQ(failed.text(), "[this reply is incomplete: the model call failed]");
  EXPECT_EQ(failed.stop_reason, llm::StopReason::Stop);
  const auto& partial = std::get<llm::AssistantMessage>(out[3]);
  EXPECT_EQ(partial.text(), "partial\n\n[this reply is incomplete: aborted]");
  EXPECT_EQ(partial.stop_reason, llm::StopReason::Stop);
}

TEST(SanitizeHistory, DropsUnansweredToolCallsAndOrphanResults) {
  std::vector<llm::Message> h = {user("a"), assistant("let me look", llm::StopReason::Aborted, {"t1", "t2"}),
                                 result("t2"), result("ghost"), user("b")};
  auto out = sanitize_history(h);
  ASSERT_EQ(out.size(), 4u);  // user, assistant (text + t2), result t2, user
  const auto& a = std::get<llm::AssistantMessage>(out[1]);
  ASSERT_EQ(a.tool_calls().size(), 1u);
  EXPECT_EQ(a.tool_calls()[0]->id, "t2");
  EXPECT_EQ(std::get<llm::ToolResultMessage>(out[2]).tool_call_id, "t2");
}

TEST(SanitizeHistory, AnAssistantMessageLeftEmptyIsDropped) {
  std::vector<llm::Message> h = {user("a"), assistant("", llm::StopReason::ToolUse, {"t1"}), user("b")};
  auto out = sanitize_history(h);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<llm::UserMessage>(out[1]));
}

}  // namespace
}  // namespace pincer::agent
