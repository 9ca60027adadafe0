// The context engine's pure parts (CX-5 estimator, CX-6 clamp, CX-7 routes, CX-9 cut point,
// identifiers, the summariser's pieces) and the default engine's assembly without a summariser.
#include <gtest/gtest.h>

#include "context/budget.h"
#include "context/compaction.h"
#include "context/default_engine.h"

namespace pincer::context {
namespace {

llm::Message user(std::string text) {
  llm::UserMessage m;
  m.content.emplace_back(llm::TextContent{std::move(text)});
  return m;
}
llm::Message assistant(std::string text, int64_t input_tokens = 0) {
  llm::AssistantMessage m;
  m.content.emplace_back(llm::TextContent{std::move(text)});
  m.usage.input = input_tokens;
  return m;
}
llm::Message tool_call(std::string id) {
  llm::AssistantMessage m;
  m.content.emplace_back(llm::ToolCall{id, "read", {{"path", "/tmp/x"}}});
  m.stop_reason = llm::StopReason::ToolUse;
  return m;
}
llm::Message tool_result(std::string id, std::string text) {
  llm::ToolResultMessage m;
  m.tool_call_id = std::move(id);
  m.tool_name = "read";
  m.content.emplace_back(llm::TextContent{std::move(text)});
  return m;
}

TEST(ContextEstimate, CharsOverFourTimesTheSafetyMargin) {
  EXPECT_EQ(estimate_tokens(0), 0);
  EXPECT_EQ(estimate_tokens(400), 120);  // 100 × 1.2
  EXPECT_EQ(estimate_tokens(1), 1);      // rounded up
  EXPECT_EQ(estimate_tokens(400, 0.5), 60);
  EXPECT_EQ(message_chars(user("hello")), 5u);
  EXPECT_GT(message_chars(tool_call("c1")), 4u);  // name + JSON arguments
}

TEST(ContextEstimate, UsageCorrectionIsTheReportedShareClamped) {
  EXPECT_DOUBLE_EQ(usage_correction(1000, 1500), 1.5);
  EXPECT_DOUBLE_EQ(usage_correction(1000, 100), kMinCorrection);
  EXPECT_DOUBLE_EQ(usage_correction(1000, 100000), kMaxCorrection);
  EXPECT_DOUBLE_EQ(usage_correction(0, 100), 1.0);
  EXPECT_DOUBLE_EQ(usage_correction(100, 0), 1.0);
}

TEST(ContextBudget, PromptBudgetClampIsSpecCx6) {
  EXPECT_EQ(prompt_budget(20000, 100000), 8000);  // the SPEC's example
  EXPECT_EQ(prompt_budget(200000, 16384), 183616);
  EXPECT_EQ(prompt_budget(4000, 16384), 2000);    // min budget = half the window
  EXPECT_EQ(prompt_budget(4000, 500), 3500);
  EXPECT_EQ(prompt_budget(1, 100), 1);
  EXPECT_EQ(prompt_budget(0, 0), 1);
}

TEST(ContextBudget, ContextTokensCapsTheWindowAndReportsAClamp) {
  EXPECT_EQ(effective_window(128000, std::nullopt).tokens, 128000);
  auto capped = effective_window(128000, 4000);
  EXPECT_EQ(capped.tokens, 4000);
  EXPECT_FALSE(capped.clamped);
  auto clamped = effective_window(8000, 32000);
  EXPECT_EQ(clamped.tokens, 8000);
  EXPECT_TRUE(clamped.clamped);
}

TEST(ContextBudget, KeepRecentScalesDownForSmallWindows) {
  EXPECT_EQ(keep_recent_tokens(20000, 180000), 20000);
  EXPECT_EQ(keep_recent_tokens(20000, 2000), 800);
  EXPECT_EQ(keep_recent_tokens(20000, -5), 1);
}

TEST(ContextBudget, OverflowRoutesOfCx7) {
  EXPECT_EQ(overflow_route(100, 100, 0), OverflowRoute::Fits);
  EXPECT_EQ(overflow_route(150, 100, 0), OverflowRoute::CompactOnly);
  EXPECT_EQ(overflow_route(150, 100, 50), OverflowRoute::TruncateToolResultsOnly);
  EXPECT_EQ(overflow_route(150, 100, 20), OverflowRoute::CompactThenTruncate);
  EXPECT_EQ(to_string(OverflowRoute::CompactThenTruncate), "compact_then_truncate");
}

TEST(ContextCut, CutsAtATurnStartKeepingTheRecentTokens) {
  std::vector<llm::Message> m = {user("a"), assistant("b"), user("c"), tool_call("t1"), tool_result("t1", "r"),
                                 assistant("d"), user("e"), assistant("f")};
  std::vector<int64_t> t = {10, 10, 10, 10, 10, 10, 10, 10};
  // 20 tokens from the end reach message 6 (user "e"): the cut is there.
  EXPECT_EQ(find_cut(m, t, 20), 6u);
  // 30 reach message 5 (inside the tool turn): back to its start, message 2; never inside.
  EXPECT_EQ(find_cut(m, t, 30), 2u);
  EXPECT_EQ(find_cut(m, t, 45), 2u);
  // Keeping everything: forward to the next turn start instead (something must be summarised).
  EXPECT_EQ(find_cut(m, t, 1000), 2u);
}

TEST(ContextCut, NeverCutsPastTheLatestUserMessage) {
  std::vector<llm::Message> m = {user("a"), assistant("b"), user("c"), tool_call("t1"), tool_result("t1", "big")};
  std::vector<int64_t> t = {10, 10, 10, 10, 1000};
  EXPECT_EQ(find_cut(m, t, 5), 2u);  // the latest instruction and its unfinished work stay
  // One turn only: nothing to compact.
  std::vector<llm::Message> one = {user("a"), tool_call("t1"), tool_result("t1", "x")};
  EXPECT_FALSE(find_cut(one, {10, 10, 10}, 5).has_value());
  EXPECT_FALSE(find_cut({}, {}, 5).has_value());
}

TEST(ContextIdentifiers, FindsIdsPathsNamesAmountsDatesUrls) {
  const auto ids = extract_identifiers(
      "Order ORD-7731-XK for $1,250.00 ships 2026-03-05; see https://example.com/t?id=9 and "
      "/srv/app/config.yaml. Call parse_invoice() or fetchUser, std::vector, issue #42, 40%, hex 3f9a2c1b. "
      "Plain words and 12 stay out.");
  auto has = [&](const std::string& s) { return std::find(ids.begin(), ids.end(), s) != ids.end(); };
  for (const char* want : {"ORD-7731-XK", "$1,250.00", "2026-03-05", "https://example.com/t?id=9",
                           "/srv/app/config.yaml", "parse_invoice", "fetchUser", "std::vector", "#42", "40%",
                           "3f9a2c1b"}) {
    EXPECT_TRUE(has(want)) << want;
  }
  EXPECT_FALSE(has("Plain"));
  EXPECT_FALSE(has("12"));
  EXPECT_FALSE(has("words"));
}

TEST(ContextIdentifiers, MissingOnesAreAppendedVerbatim) {
  std::size_t missing = 0;
  const std::string s = ensure_identifiers("The user ordered ORD-1234X.", {"ORD-1234X", "/etc/app.conf"}, 1000, &missing);
  EXPECT_EQ(missing, 1u);
  EXPECT_NE(s.find("/etc/app.conf"), std::string::npos);
  EXPECT_EQ(s.find("ORD-1234X"), s.rfind("ORD-1234X"));  // the kept one is not repeated
  EXPECT_EQ(ensure_identifiers("all here ORD-1234X", {"ORD-1234X"}, 1000), "all here ORD-1234X");
}

TEST(ContextSummary, LongPartsAreSplitIntoPiecesThatFit) {
  const std::vector<std::string> blocks = {"aaaa", "bbbb", std::string(25, 'c'), "dd"};
  const auto pieces = split_for_summary(blocks, 10);
  ASSERT_GE(pieces.size(), 5u);
  std::string joined;
  for (const auto& p : pieces) {
    EXPECT_LE(p.size(), 10u);
    joined += p;
  }
  EXPECT_NE(joined.find("aaaa"), std::string::npos);
  EXPECT_EQ(std::count(joined.begin(), joined.end(), 'c'), 25);
  EXPECT_NE(serialize_for_summary(tool_result("t", std::string(5000, 'x'))).find("more chars"), std::string::npos);
}

TEST(ContextEngine, AssemblesEverythingWhenItFitsAndPrunesOldToolResultsFirst) {
  EngineConfig config;
  config.window_tokens = 4000;
  DefaultEngine engine(config);
  SessionHistory h;
  h.messages.push_back({user("read it"), "e1"});
  h.messages.push_back({tool_call("t1"), "e2"});
  h.messages.push_back({tool_result("t1", std::string(12000, 'z')), "e3"});
  h.messages.push_back({assistant("done"), "e4"});
  for (int i = 0; i < 3; ++i) {
    h.messages.push_back({user("next " + std::to_string(i)), "u" + std::to_string(i)});
    h.messages.push_back({assistant("ok"), "a" + std::to_string(i)});
  }
  const llm::SharedMessage stored_result = h.messages[2].message, stored_reply = h.messages[3].message;
  engine.bootstrap(std::move(h));
  RequestFrame frame{"system", {}};
  std::optional<Assembled> got;
  engine.assemble(frame, 100000, [&](Assembled a) { got = std::move(a); });
  ASSERT_TRUE(got);
  EXPECT_EQ(got->route, OverflowRoute::Fits);
  EXPECT_EQ(got->messages.size(), 10u);
  // Kept messages are the session's own (shared, not copied per request).
  EXPECT_EQ(got->messages.shared(2), stored_result);
  EXPECT_EQ(got->messages.shared(3), stored_reply);
  // A budget the old result breaks: pruned (no summariser needed), the recent turns intact.
  got.reset();
  engine.assemble(frame, 2000, [&](Assembled a) { got = std::move(a); });
  ASSERT_TRUE(got);
  EXPECT_EQ(got->route, OverflowRoute::TruncateToolResultsOnly);
  EXPECT_LE(got->estimated_tokens, 2000);
  ASSERT_EQ(got->messages.size(), 10u);
  const auto& pruned = std::get<llm::ToolResultMessage>(got->messages[2]);
  EXPECT_LT(std::get<llm::TextContent>(pruned.content[0]).text.size(), 5000u);
  // The pruned text is the request's copy: the session keeps the whole result.
  EXPECT_NE(got->messages.shared(2), stored_result);
  EXPECT_EQ(std::get<llm::TextContent>(std::get<llm::ToolResultMessage>(*stored_result).content[0]).text.size(), 12000u);
  EXPECT_EQ(got->messages.shared(3), stored_reply);
}

TEST(ContextEngine, ReportedUsageCorrectsTheEstimate) {
  EngineConfig config;
  config.window_tokens = 100000;
  DefaultEngine engine(config);
  engine.bootstrap({});
  engine.ingest(user(std::string(4000, 'q')), "e1");
  RequestFrame frame{"", {}};
  std::optional<Assembled> got;
  engine.assemble(frame, 100000, [&](Assembled a) { got = std::move(a); });
  ASSERT_TRUE(got);
  EXPECT_EQ(got->estimated_tokens, 1200);
  engine.ingest(assistant("a", /*input_tokens=*/1800), "e2");  // the provider counted 1.5×
  EXPECT_DOUBLE_EQ(engine.correction(), 1.5);
  EXPECT_GT(engine.estimate(frame), 1800);
}

}  // namespace
}  // namespace pincer::context
