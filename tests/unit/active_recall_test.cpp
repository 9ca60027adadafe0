// Active recall's pure parts (SPEC DR-6): its settings, the search and conversation it builds per
// query mode and prompt style, the reading of the recall model's answer, and the injected block;
// and a recall stopped while its memory search runs (the turn was aborted).
#include <gtest/gtest.h>

#include <future>
#include <set>

#include "core/event_loop.h"
#include "core/http_client.h"
#include "memory/recall/active_recall.h"
#include "memory/recall/active_recall_settings.h"
#include "memory/recall/recall_prompt.h"

namespace pincer::memory::recall {
namespace active_recall_test {
namespace {

using nlohmann::json;

json config_with(json entry) { return {{"plugins", {{"entries", {{"active-memory", std::move(entry)}}}}}}; }

TEST(ActiveRecallSettings, OffUnlessTheEntryIsEnabledAndTheAgentListed) {
  EXPECT_FALSE(resolve_active_recall(json::object(), "main"));
  EXPECT_FALSE(resolve_active_recall(config_with({{"config", {{"agents", {"main"}}}}}), "main"));  // entry not enabled
  EXPECT_FALSE(resolve_active_recall(config_with({{"enabled", true}}), "main"));                   // no agents
  EXPECT_FALSE(resolve_active_recall(config_with({{"enabled", true}, {"config", {{"agents", {"ops"}}}}}), "main"));
  EXPECT_FALSE(resolve_active_recall(
      config_with({{"enabled", true}, {"config", {{"agents", {"main"}}, {"enabled", false}}}}), "main"));
  EXPECT_TRUE(resolve_active_recall(config_with({{"enabled", true}, {"config", {{"agents", {"ops", "main"}}}}}), "main"));
}

TEST(ActiveRecallSettings, DefaultsAndStyleByQueryMode) {
  auto s = resolve_active_recall(config_with({{"enabled", true}, {"config", {{"agents", {"main"}}}}}), "main");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->timeout_ms, 15000);
  EXPECT_EQ(s->cache_ttl_ms, 15000);
  EXPECT_EQ(s->max_summary_chars, 220);
  EXPECT_EQ(s->query_mode, QueryMode::Recent);
  EXPECT_EQ(s->prompt_style, PromptStyle::Balanced);
  EXPECT_EQ(s->recent_user_turns, 2);
  EXPECT_EQ(s->recent_assistant_turns, 1);
  auto by_mode = [](const char* mode) {
    return resolve_active_recall(
               config_with({{"enabled", true}, {"config", {{"agents", {"main"}}, {"queryMode", mode}}}}), "main")
        ->prompt_style;
  };
  EXPECT_EQ(by_mode("message"), PromptStyle::Strict);
  EXPECT_EQ(by_mode("full"), PromptStyle::Contextual);
  auto explicit_style = resolve_active_recall(
      config_with({{"enabled", true},
                   {"config", {{"agents", {"main"}}, {"queryMode", "message"}, {"promptStyle", "preference-only"},
                               {"timeoutMs", 5}, {"maxSummaryChars", 5000}}}}),
      "main");
  EXPECT_EQ(explicit_style->prompt_style, PromptStyle::PreferenceOnly);
  EXPECT_EQ(explicit_style->timeout_ms, 250);          // clamped to the schema's range
  EXPECT_EQ(explicit_style->max_summary_chars, 1000);
}

TEST(ActiveRecallSettings, ChatTypesFromTheSessionKey) {
  EXPECT_EQ(chat_type_of("agent:main:main"), "direct");
  EXPECT_EQ(chat_type_of("agent:main:telegram:direct:42"), "direct");
  EXPECT_EQ(chat_type_of("agent:main:telegram:direct:group"), "direct");  // a peer named "group"
  EXPECT_EQ(chat_type_of("agent:main:discord:group:987"), "group");
  EXPECT_EQ(chat_type_of("agent:main:Slack:CHANNEL:C1:thread:9"), "channel");
  EXPECT_EQ(chat_type_of("agent:group:main"), "direct");  // an agent named "group"
  ActiveRecallSettings s;
  EXPECT_TRUE(allowed_in(s, "agent:main:main"));
  EXPECT_FALSE(allowed_in(s, "agent:main:discord:group:987"));
  auto groups = resolve_active_recall(
      config_with({{"enabled", true}, {"config", {{"agents", {"main"}}, {"allowedChatTypes", {"group", "channel"}}}}}),
      "main");
  EXPECT_TRUE(allowed_in(*groups, "agent:main:discord:group:987"));
  EXPECT_TRUE(allowed_in(*groups, "agent:main:slack:channel:C1"));
  EXPECT_FALSE(allowed_in(*groups, "agent:main:main"));
}

ActiveRecallSettings with_style(PromptStyle style, QueryMode mode = QueryMode::Recent) {
  ActiveRecallSettings s;
  s.prompt_style = style;
  s.query_mode = mode;
  return s;
}

TEST(ActiveRecallSearch, EachStyleSearchesDifferently) {
  const std::vector<RecentTurn> turns = {{true, "I am planning the trip to Lisbon"}, {false, "Sounds great."}};
  const auto strict = plan_search(with_style(PromptStyle::Strict), "and hotels?", turns);
  EXPECT_EQ(strict.query, "and hotels?");
  EXPECT_EQ(strict.max_results, 3);
  EXPECT_FALSE(strict.min_score);

  const auto balanced = plan_search(with_style(PromptStyle::Balanced), "and hotels?", turns);
  EXPECT_EQ(balanced.query, "I am planning the trip to Lisbon and hotels?");  // a very short message gets context
  EXPECT_EQ(balanced.max_results, 4);
  EXPECT_EQ(plan_search(with_style(PromptStyle::Balanced), "which hotels do I like there?", turns).query,
            "which hotels do I like there?");

  const auto contextual = plan_search(with_style(PromptStyle::Contextual), "which hotels do I like there?", turns);
  EXPECT_EQ(contextual.query, "I am planning the trip to Lisbon which hotels do I like there?");
  EXPECT_EQ(contextual.max_results, 5);

  const auto heavy = plan_search(with_style(PromptStyle::RecallHeavy), "which hotels?", turns);
  EXPECT_EQ(heavy.max_results, 6);
  EXPECT_DOUBLE_EQ(*heavy.min_score, 0.2);

  const auto precise = plan_search(with_style(PromptStyle::PrecisionHeavy), "and hotels?", turns);
  EXPECT_EQ(precise.query, "and hotels?");
  EXPECT_EQ(precise.max_results, 2);
  EXPECT_DOUBLE_EQ(*precise.min_score, 0.6);

  const auto prefs = plan_search(with_style(PromptStyle::PreferenceOnly), "which hotels?", turns);
  EXPECT_TRUE(prefs.preferences_only);
  EXPECT_FALSE(balanced.preferences_only);

  EXPECT_EQ(plan_search(with_style(PromptStyle::Balanced), "   ", {}).query, "");  // nothing to search
  EXPECT_LE(plan_search(with_style(PromptStyle::Strict), std::string(2000, 'a'), {}).query.size(), kMaxSearchQueryChars);
}

TEST(ActiveRecallSearch, PreferenceWords) {
  EXPECT_TRUE(reads_as_preference("The user prefers aisle seats."));
  EXPECT_TRUE(reads_as_preference("Favourite tea: oolong"));
  EXPECT_TRUE(reads_as_preference("She usually runs at 6."));
  EXPECT_FALSE(reads_as_preference("The deploy happened on 2026-03-02."));
  EXPECT_FALSE(reads_as_preference("unlikely"));  // whole words only
}

TEST(ActiveRecallConversation, ByQueryMode) {
  const std::vector<RecentTurn> turns = {{true, "first question"},   {false, "first answer"},
                                         {true, "second question"},  {false, "second answer"},
                                         {true, "third   question"}, {false, std::string(300, 'x')}};
  EXPECT_EQ(conversation_excerpt(with_style(PromptStyle::Strict, QueryMode::Message), "now?", turns), "now?");
  EXPECT_EQ(conversation_excerpt(with_style(PromptStyle::Balanced, QueryMode::Recent), "now?", turns),
            "Recent turns:\nuser: second question\nuser: third question\nassistant: " + std::string(180, 'x') +
                "\n\nLatest user message:\nnow?");
  const std::string full = conversation_excerpt(with_style(PromptStyle::Contextual, QueryMode::Full), "now?", turns);
  EXPECT_TRUE(full.starts_with("Conversation so far:\nuser: first question\nassistant: first answer\n")) << full;
  EXPECT_NE(full.find(std::string(300, 'x')), std::string::npos);
  EXPECT_EQ(conversation_excerpt(with_style(PromptStyle::Balanced, QueryMode::Recent), "now?", {}), "now?");
  // Bounded: the oldest lines go first.
  std::vector<RecentTurn> many;
  for (int i = 0; i < 100; ++i) many.push_back({true, "turn " + std::to_string(i) + " " + std::string(500, 'y')});
  const std::string bounded = conversation_excerpt(with_style(PromptStyle::Contextual, QueryMode::Full), "now?", many);
  EXPECT_LE(bounded.size(), kMaxConversationBytes);
  EXPECT_NE(bounded.find("turn 99 "), std::string::npos);
  EXPECT_EQ(bounded.find("turn 0 "), std::string::npos);
}

TEST(ActiveRecallPrompt, StylesDifferAndOperatorTextApplies) {
  std::set<std::string> prompts;
  for (auto style : {PromptStyle::Balanced, PromptStyle::Strict, PromptStyle::Contextual, PromptStyle::RecallHeavy,
                     PromptStyle::PrecisionHeavy, PromptStyle::PreferenceOnly}) {
    const std::string p = recall_instructions(with_style(style));
    EXPECT_NE(p.find("Style " + std::string(to_string(style)) + ":"), std::string::npos) << p;
    EXPECT_NE(p.find("NONE"), std::string::npos);
    prompts.insert(p);
  }
  EXPECT_EQ(prompts.size(), 6u);
  ActiveRecallSettings s;
  s.prompt_override = "Only say NONE.";
  s.prompt_append = "Prefer food.";
  EXPECT_EQ(recall_instructions(s), "Only say NONE.\n\nMore instructions from the operator:\nPrefer food.");
}

TEST(ActiveRecallSummary, ReadsTheAnswer) {
  EXPECT_FALSE(read_summary("NONE", 220));
  EXPECT_FALSE(read_summary("  none.\n", 220));
  EXPECT_FALSE(read_summary("None - nothing relevant", 220));
  EXPECT_FALSE(read_summary("", 220));
  EXPECT_EQ(*read_summary("- The user\nprefers  oolong tea.", 220), "The user prefers oolong tea.");
  EXPECT_EQ(*read_summary("Memory: The user likes ramen.", 220), "The user likes ramen.");
  const auto cut = read_summary("The user likes very long walks along the river every single evening after work", 40);
  ASSERT_TRUE(cut);
  EXPECT_EQ(*cut, "The user likes very long walks along…");
  const auto unicode = read_summary(std::string(60, 'a') + "é" + std::string(300, 'b'), 220);
  EXPECT_TRUE(unicode->ends_with("…"));
  EXPECT_EQ(cut_code_points(*unicode, 1000), *unicode);
}

TEST(ActiveRecallSummary, HintBlockEscapesTheNote) {
  const std::string block = hint_block("Likes <b> & </active_memory_plugin>");
  EXPECT_NE(block.find("<active_memory_plugin>\nLikes &lt;b&gt; &amp; &lt;/active_memory_plugin&gt;\n</active_memory_plugin>"),
            std::string::npos)
      << block;
  EXPECT_TRUE(block.ends_with("\n\n"));
}

/// A memory whose search waits (on the loop's worker) until the test lets it answer one hit.
class ActiveRecallGatedMemory : public tools::MemoryBackend {
 public:
  json search(const std::string&, const std::filesystem::path&, const json&) override {
    entered_.set_value();
    gate_.wait();
    return {{"results", json::array({{{"path", "MEMORY.md"}, {"startLine", 3}, {"snippet", "Favourite tea: oolong"}}})}};
  }
  json get(const std::string&, const std::filesystem::path&, const json&) override { return json::object(); }
  std::promise<void> entered_, open_;
  std::shared_future<void> gate_ = open_.get_future().share();
};

TEST(ActiveRecallStop, AStopWhileTheSearchRunsEndsTheRecallAndItsAnswerIsIgnored) {
  EventLoop loop(1);  // one worker: the marker offloaded last ends after the search
  net::HttpClient http(loop);
  ActiveRecallGatedMemory memory;
  ActiveRecall recall(loop, http, memory);
  RecallRequest request;
  request.settings = *resolve_active_recall(config_with({{"enabled", true}, {"config", {{"agents", {"main"}}}}}), "main");
  request.agent_id = "main";
  request.session_key = "agent:main:main";
  request.latest = "Which tea should I make?";
  // A model with no HTTP api: a recall that went on after its search would end "failed" at once.
  request.model.provider = "none";
  request.model.id = "none";
  request.model.api = "no-such-api";
  std::optional<RecallOutcome> outcome;
  std::function<void()> stop;
  auto entered = memory.entered_.get_future();
  loop.post([&] {
    stop = recall.recall(request, [&](RecallOutcome o) { outcome = std::move(o); });
  });
  std::thread driver([&] {
    entered.wait();  // the search runs on the worker now
    loop.post([&] {
      stop();  // the turn was aborted
      memory.open_.set_value();
      loop.offload([] {}, [&] { loop.stop(); });  // after the search's own completion
    });
  });
  loop.run();
  driver.join();
  EXPECT_FALSE(outcome) << outcome->status << " " << outcome->error;
  EXPECT_EQ(recall.cached(), 0u);
  stop();  // a second stop does nothing
}

}  // namespace
}  // namespace active_recall_test
}  // namespace pincer::memory::recall
