// The branches of a transcript tree (store/session_tree.h, SPEC SS-4).
#include "store/session_tree.h"

#include <gtest/gtest.h>

#include "agent/branch_switch.h"

namespace pincer::store {
namespace {

/// A transcript: root → u1 → a1 → u2 → a2 → u3 → a3, and an older branch u2 → a2 → x1 → x2
/// (x1 a user message hanging off a2; the file's last entry, a3, is the leaf).
constexpr const char* kTree =
    R"({"type":"session","version":3,"id":"s1","timestamp":"2026-12-01T10:00:00Z","cwd":"/w"}
{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-12-01T10:00:01Z","message":{"role":"user","content":"first   question\nhere"}}
{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-12-01T10:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}]}}
{"type":"message","id":"bbbb0001","parentId":"aaaa0002","timestamp":"2026-12-01T10:00:03Z","message":{"role":"user","content":[{"type":"text","text":"second"}]}}
{"type":"message","id":"bbbb0002","parentId":"bbbb0001","timestamp":"2026-12-01T10:00:04Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}
{"type":"message","id":"cccc0001","parentId":"bbbb0002","timestamp":"2026-12-01T10:00:05Z","message":{"role":"user","content":"old third"}}
{"type":"message","id":"cccc0002","parentId":"cccc0001","timestamp":"2026-12-01T10:00:06Z","message":{"role":"assistant","content":[{"type":"text","text":"old three"}]}}
{"type":"message","id":"dddd0001","parentId":"bbbb0002","timestamp":"2026-12-01T10:00:07Z","message":{"role":"user","content":"new third"}}
{"type":"message","id":"dddd0002","parentId":"dddd0001","timestamp":"2026-12-01T10:00:08Z","message":{"role":"assistant","content":[{"type":"text","text":"new three"}]}}
)";

TEST(SessionTree, ListsTheActiveTurnsAndTheOtherBranches) {
  const auto t = parse_transcript(kTree);
  const TreeView view = tree_view(t.entries);
  EXPECT_EQ(view.leaf_id, "dddd0002");
  ASSERT_EQ(view.turns.size(), 3u);
  EXPECT_EQ(view.turns[0].entry_id, "aaaa0001");
  EXPECT_EQ(view.turns[0].text, "first question here");  // whitespace folded
  EXPECT_EQ(view.turns[1].text, "second");                // text blocks
  EXPECT_EQ(view.turns[2].entry_id, "dddd0001");
  ASSERT_EQ(view.branches.size(), 1u);
  EXPECT_EQ(view.branches[0].leaf_id, "cccc0002");
  EXPECT_EQ(view.branches[0].fork_id, "bbbb0002");
  EXPECT_EQ(view.branches[0].messages, 2u);
  EXPECT_EQ(view.branches[0].text, "old third");
  EXPECT_EQ(view.branches[0].timestamp, "2026-12-01T10:00:06Z");
}

TEST(SessionTree, PreviewsAreCutAtACharacter) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "\xe4\xbd\xa0";  // 你 × 30
  const std::string line = R"({"type":"message","id":"aaaa0001","parentId":null,"message":{"role":"user","content":")" +
                           text + "\"}}\n";
  const auto t = parse_transcript(R"({"type":"session","version":3,"id":"s"})" "\n" + line);
  const TreeView view = tree_view(t.entries, 10);
  ASSERT_EQ(view.turns.size(), 1u);
  EXPECT_EQ(view.turns[0].text, text.substr(0, 30) + "…");
}

TEST(SessionTree, ResolvesIdsAndPrefixes) {
  const auto t = parse_transcript(kTree);
  EXPECT_EQ(t.entries[*resolve_entry(t.entries, "cccc0001")].id, "cccc0001");
  EXPECT_EQ(t.entries[*resolve_entry(t.entries, "dddd0001")].id, "dddd0001");
  EXPECT_EQ(resolve_entry(t.entries, "cccc").error().code, "AMBIGUOUS");
  EXPECT_EQ(resolve_entry(t.entries, "eeee").error().code, "ENTRY_NOT_FOUND");
  EXPECT_EQ(resolve_entry(t.entries, "abc").error().code, "INVALID_REQUEST");   // too short
  EXPECT_EQ(resolve_entry(t.entries, "zzzz").error().code, "INVALID_REQUEST");  // not hex
}

TEST(SessionTree, GoingBackToAUserMessageContinuesFromItsParent) {
  const auto t = parse_transcript(kTree);
  auto plan = plan_branch_switch(t.entries, "bbbb0001");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->new_parent, "aaaa0002");
  EXPECT_EQ(plan->old_leaf, "dddd0002");
  EXPECT_EQ(plan->retry_text, "second");
  std::vector<std::string> abandoned;
  for (const auto* e : plan->abandoned) abandoned.push_back(e->id);
  EXPECT_EQ(abandoned, (std::vector<std::string>{"bbbb0001", "bbbb0002", "dddd0001", "dddd0002"}));
}

TEST(SessionTree, SwitchingToAnotherLeafAbandonsOnlyWhatItDoesNotShare) {
  const auto t = parse_transcript(kTree);
  auto plan = plan_branch_switch(t.entries, "cccc0002");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->new_parent, "cccc0002");
  EXPECT_TRUE(plan->retry_text.empty());
  ASSERT_EQ(plan->abandoned.size(), 2u);
  EXPECT_EQ(plan->abandoned[0]->id, "dddd0001");
  // What the summariser is given: the abandoned messages as text.
  const agent::BranchPlan runner = agent::make_branch_plan(*plan);
  ASSERT_EQ(runner.abandoned.size(), 2u);
  EXPECT_NE(runner.abandoned[0].find("new third"), std::string::npos);
  EXPECT_NE(runner.abandoned[1].find("new three"), std::string::npos);
}

TEST(SessionTree, TheFirstMessageStartsANewRootAndTheLeafIsNothingToDo) {
  const auto t = parse_transcript(kTree);
  auto root = plan_branch_switch(t.entries, "aaaa0001");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->new_parent, "");
  EXPECT_EQ(root->abandoned.size(), 6u);
  EXPECT_EQ(plan_branch_switch(t.entries, "dddd0002").error().code, "NOTHING_TO_DO");
}

TEST(SessionTree, TheExtractiveSummaryKeepsTheLatestMessagesCut) {
  std::vector<std::string> messages;
  for (int i = 0; i < 40; ++i) messages.push_back("[User]: message " + std::to_string(i) + " " + std::string(400, 'x'));
  const std::string s = agent::extractive_branch_summary(messages, "timeout");
  EXPECT_NE(s.find("timeout"), std::string::npos);
  EXPECT_NE(s.find("last messages"), std::string::npos);
  EXPECT_NE(s.find("message 39 "), std::string::npos);
  EXPECT_EQ(s.find("message 0 "), std::string::npos);
  EXPECT_LT(s.size(), 4600u);
  EXPECT_EQ(agent::extractive_branch_summary({"[User]: hi"}, "x").find("last"), std::string::npos);
}

}  // namespace
}  // namespace pincer::store
