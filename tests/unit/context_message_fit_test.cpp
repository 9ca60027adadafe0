// The message-fit check (context/message_fit.h, SPEC AG-5 with the CX-5 estimate and the CX-6
// budget): numbers computed by hand here.
#include <gtest/gtest.h>

#include "context/default_engine.h"
#include "context/message_fit.h"

namespace pincer::context {
namespace context_message_fit_test {  // named: unity builds share anonymous namespaces
namespace {

llm::Message user_text(std::size_t chars) {
  llm::UserMessage u;
  u.content.emplace_back(llm::TextContent{std::string(chars, 'x')});
  return u;
}

RequestFrame frame_of(std::size_t system_chars) {
  RequestFrame f;
  f.system_prompt = std::string(system_chars, 's');
  return f;
}

TEST(MessageFit, NumbersByHand) {
  // frame: 1000 chars → ceil(1000 / 4 × 1.2) = 300 tokens. Window 4000, reserve 600:
  // minPromptBudget = min(8000, 2000) = 2000; reserve min(600, 4000 − 2000) = 600 → budget 3400.
  // Room = 3400 − min(300, 1700) = 3100. 20 000 chars → 6000 tokens: refused.
  const MessageFit fit = fit_message(user_text(20000), frame_of(1000), 4000, 600);
  EXPECT_EQ(fit.message_tokens, 6000);
  EXPECT_EQ(fit.frame_tokens, 300);
  EXPECT_EQ(fit.window_tokens, 4000);
  EXPECT_EQ(fit.budget_tokens, 3400);
  EXPECT_EQ(fit.room_tokens, 3100);
  EXPECT_FALSE(fit.fits());
  EXPECT_EQ(message_too_large_text(fit, "mock/mock-model"),
            "This message is ~6000 tokens, but at most ~3100 fit in a request to mock/mock-model (context window 4000 "
            "tokens, less the reply reserve and the system prompt and tools). Shorten it or split it into parts.");
}

TEST(MessageFit, AFrameThatFillsTheWindowIsASetupProblemNamedWithItsNumbers) {
  // frame 13 334 chars → ceil(4000.2) = 4001 tokens ≥ window 4000; 13 330 → 3999: not filled.
  const MessageFit full = fit_message(user_text(4), frame_of(13334), 4000, 600);
  EXPECT_EQ(full.frame_tokens, 4001);
  EXPECT_TRUE(frame_fills_window(full));
  EXPECT_FALSE(frame_fills_window(fit_message(user_text(4), frame_of(13330), 4000, 600)));
  EXPECT_EQ(frame_too_large_text(full, "mock/tiny"),
            "mock/tiny works with a context window of 4000 tokens (its contextWindow, or agents.defaults.contextTokens "
            "when smaller), but the system prompt and tool definitions alone take ~4001 tokens (estimated), so no "
            "request to it can fit. Use a model with a larger window (or set its real contextWindow in "
            "models.providers), or send less with every request: fewer tools (tools.profile, tools.deny), smaller "
            "workspace files (AGENTS.md, SOUL.md …, agents.defaults.bootstrapTotalMaxChars).");
}

TEST(MessageFit, TheBoundaryIsTheRoomExactly) {
  // 10 333 chars → ceil(3099.9) = 3100 = room: fits; 10 334 → ceil(3100.2) = 3101: does not.
  EXPECT_TRUE(fit_message(user_text(10333), frame_of(1000), 4000, 600).fits());
  EXPECT_FALSE(fit_message(user_text(10334), frame_of(1000), 4000, 600).fits());
}

TEST(MessageFit, TheDefaultReserveInASmallWindowLeavesHalf) {
  // Reserve 16 384 in a 4000 window: min(16 384, 4000 − 2000) = 2000 → budget 2000; no frame.
  const MessageFit fit = fit_message(user_text(4), frame_of(0), 4000, kDefaultReserveTokens);
  EXPECT_EQ(fit.budget_tokens, 2000);
  EXPECT_EQ(fit.room_tokens, 2000);
  EXPECT_EQ(fit.message_tokens, 2);  // ceil(4 / 4 × 1.2)
  EXPECT_TRUE(fit.fits());
}

TEST(MessageFit, AFrameLargerThanHalfTheBudgetCountsAsHalf) {
  // frame 10 000 chars → 3000 tokens; budget 3400; room = 3400 − min(3000, 1700) = 1700: a short
  // message is not refused for the frame's size (the provider decides on that).
  const MessageFit fit = fit_message(user_text(100), frame_of(10000), 4000, 600);
  EXPECT_EQ(fit.frame_tokens, 3000);
  EXPECT_EQ(fit.room_tokens, 1700);
  EXPECT_EQ(fit.message_tokens, 30);
  EXPECT_TRUE(fit.fits());
}

TEST(MessageFit, ImagesCountAsTheEstimateCountsThem) {
  // One image = 4800 chars → 1440 tokens, plus "hi" (2 chars → 1 token): 1441.
  llm::UserMessage u;
  u.content.emplace_back(llm::TextContent{"hi"});
  u.content.emplace_back(llm::ImageContent{});
  const MessageFit fit = fit_message(u, frame_of(0), 4000, 600);
  EXPECT_EQ(fit.message_tokens, 1441);
  EXPECT_TRUE(fit.fits());
  EXPECT_FALSE(fit_message(u, frame_of(0), 2000, 600).fits());  // budget 1400 (reserve min(600, 1000))
}

TEST(MessageFit, TheProviderRefusalTextNamesTheNumbersAndKeepsTheSession) {
  const MessageFit big = fit_message(user_text(20000), frame_of(1000), 4000, 600);
  const std::string text = turn_too_large_text(big, 40, false, "p/m");
  EXPECT_NE(text.find("This message is ~6000 tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("at most ~3100 fit in a request to p/m (context window 4000 tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("the rest of the conversation takes only ~40 tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("history is kept"), std::string::npos) << text;
  const std::string turn = turn_too_large_text(fit_message(user_text(40), frame_of(0), 4000, 600), 5, true, "p/m");
  EXPECT_NE(turn.find("This turn (your message of ~12 tokens with its tool results)"), std::string::npos) << turn;
}

TEST(MessageFit, TheDefaultEngineCountsWhatComesBeforeTheLatestUserMessage) {
  DefaultEngine engine(EngineConfig{});
  EXPECT_EQ(engine.earlier_tokens(), 0);  // empty
  SessionHistory h;
  h.summary = "earlier";
  h.messages.push_back({user_text(100), "a"});
  llm::AssistantMessage reply;
  reply.content.emplace_back(llm::TextContent{std::string(100, 'r')});
  h.messages.push_back({llm::Message(reply), "b"});
  engine.bootstrap(h);
  // The summary as the model sees it, nothing else: the latest user message starts the turn.
  const std::size_t summary_chars = summary_message_text("earlier").size();
  EXPECT_EQ(engine.earlier_tokens(), estimate_tokens(summary_chars));
  engine.ingest(user_text(4000), "c");  // now the first turn (200 chars) is earlier too
  EXPECT_EQ(engine.earlier_tokens(), estimate_tokens(summary_chars + 200));
}

}  // namespace
}  // namespace context_message_fit_test
}  // namespace pincer::context
