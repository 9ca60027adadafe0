// Telegram updates as the pipeline sees them (src/channels/telegram/telegram_api.h): mention
// gating by the message's entities (offsets in UTF-16 units) or, without entities, by "@bot" as a
// whole word; forum topics (topic_id / thread_id, the General topic); inline buttons and presses.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/telegram/telegram_api.h"

namespace pincer::channels::telegram {
namespace {

using nlohmann::json;

constexpr int64_t kBotId = 777;

InboundMessage parse_one(json message) {
  message["message_id"] = 1;
  if (!message.contains("from")) message["from"] = {{"id", 1001}, {"is_bot", false}, {"first_name", "Ann"}};
  if (!message.contains("chat")) message["chat"] = {{"id", -100500}, {"type", "supergroup"}};
  auto updates = parse_updates(json{{"ok", true}, {"result", json::array({{{"update_id", 1}, {"message", message}}})}},
                               "default", "PincerBot", kBotId);
  EXPECT_TRUE(updates);
  EXPECT_EQ(updates->size(), 1u);
  EXPECT_TRUE(updates->at(0).message);
  return *updates->at(0).message;
}

bool mentioned(const std::string& text, json entities = nullptr) {
  json m = {{"text", text}};
  if (!entities.is_null()) m["entities"] = entities;
  return parse_one(m).mentions_bot;
}

json entity(const char* type, int offset, int length) { return {{"type", type}, {"offset", offset}, {"length", length}}; }

TEST(TelegramMentions, WithoutEntitiesOnlyTheWholeWordCounts) {
  EXPECT_TRUE(mentioned("@PincerBot hi"));
  EXPECT_TRUE(mentioned("hi @pincerbot"));
  EXPECT_TRUE(mentioned("hi @PincerBot, how are you"));
  EXPECT_TRUE(mentioned("thanks @PincerBot."));
  EXPECT_FALSE(mentioned("@PincerBotfan says hi")) << "another user whose name starts like the bot's";
  EXPECT_FALSE(mentioned("@PincerBot_2 says hi"));
  EXPECT_FALSE(mentioned("write to x@PincerBot.example")) << "an e-mail address";
  EXPECT_FALSE(mentioned("see @PincerBot.example.org")) << "a host name";
  EXPECT_FALSE(mentioned("@@PincerBot"));
  EXPECT_FALSE(mentioned("no mention at all"));
}

TEST(TelegramMentions, EntitiesDecideWhenPresent) {
  EXPECT_TRUE(mentioned("hey @PincerBot", json::array({entity("mention", 4, 10)})));
  // Telegram saw no mention of the bot: the text alone does not make one.
  EXPECT_FALSE(mentioned("hey @PincerBot", json::array({entity("bold", 0, 3)})));
  EXPECT_FALSE(mentioned("@PincerBotfan hi", json::array({entity("mention", 0, 13)})));
  // UTF-16 offsets: "😀 " is 3 UTF-16 units (a surrogate pair and a space), 5 UTF-8 bytes.
  EXPECT_TRUE(mentioned("\xF0\x9F\x98\x80 @PincerBot", json::array({entity("mention", 3, 10)})));
  // A user without a username, mentioned by name: the bot only when it is the bot's user id.
  json by_id = entity("text_mention", 0, 6);
  by_id["user"] = {{"id", kBotId}, {"is_bot", true}, {"first_name", "Pincer"}};
  EXPECT_TRUE(mentioned("Pincer, hi", json::array({by_id})));
  by_id["user"]["id"] = 1234;
  EXPECT_FALSE(mentioned("Pincer, hi", json::array({by_id})));
  EXPECT_TRUE(mentioned("/new@PincerBot", json::array({entity("bot_command", 0, 14)})));
  EXPECT_TRUE(mentioned("/new", json::array({entity("bot_command", 0, 4)})));
  EXPECT_FALSE(mentioned("/new@OtherBot", json::array({entity("bot_command", 0, 13)})));
}

TEST(TelegramMentions, AReplyToTheBotCounts) {
  json m = {{"text", "sure"}, {"reply_to_message", {{"message_id", 9}, {"from", {{"id", kBotId}, {"is_bot", true}}}}}};
  EXPECT_TRUE(parse_one(m).mentions_bot);
}

TEST(TelegramTopics, ForumTopicsAndTheGeneralTopic) {
  const json forum = {{"id", -100500}, {"type", "supergroup"}, {"is_forum", true}};
  // A topic: its own conversation, replies go into it.
  auto m = parse_one({{"text", "x"}, {"chat", forum}, {"message_thread_id", 42}, {"is_topic_message", true}});
  EXPECT_EQ(m.topic_id, "42");
  EXPECT_EQ(m.thread_id, "42");
  // The General topic: no message_thread_id; replies without one (Telegram refuses thread id 1).
  m = parse_one({{"text", "x"}, {"chat", forum}});
  EXPECT_EQ(m.topic_id, kGeneralTopicId);
  EXPECT_EQ(m.thread_id, "");
  // A reply inside General carries the replied message's id as message_thread_id, but is no topic.
  m = parse_one({{"text", "x"}, {"chat", forum}, {"message_thread_id", 77}});
  EXPECT_EQ(m.topic_id, kGeneralTopicId);
  EXPECT_EQ(m.thread_id, "");
  // Not a forum: reply threads are not topics.
  m = parse_one({{"text", "x"}, {"message_thread_id", 77}});
  EXPECT_EQ(m.topic_id, "");
  EXPECT_EQ(m.thread_id, "");
  // A private chat with topics: a thread of the DM (its own session, ":thread:<id>").
  m = parse_one({{"text", "x"}, {"chat", {{"id", 1001}, {"type", "private"}}}, {"message_thread_id", 5}, {"is_topic_message", true}});
  EXPECT_FALSE(m.is_group);
  EXPECT_EQ(m.topic_id, "");
  EXPECT_EQ(m.thread_id, "5");
}

TEST(TelegramButtons, APressBecomesAMessageWithItsCallbackAndButtonsBecomeAKeyboard) {
  json answer = {{"ok", true},
                 {"result", json::array({{{"update_id", 5},
                                          {"callback_query",
                                           {{"id", "991"},
                                            {"from", {{"id", 1001}, {"is_bot", false}, {"username", "ann"}}},
                                            {"message", {{"message_id", 42}, {"chat", {{"id", -100500}, {"type", "group"}}}}},
                                            {"data", "tga1:e:o:abc"}}}},
                                         {{"update_id", 6},
                                          {"callback_query", {{"id", "992"}, {"from", {{"id", 1}, {"is_bot", false}}},
                                                              {"game_short_name", "g"}}}}})}};
  auto updates = parse_updates(answer, "default", "pincer_bot", kBotId);
  ASSERT_TRUE(updates) << updates.error().message;
  ASSERT_EQ(updates->size(), 2u);
  ASSERT_TRUE((*updates)[0].message);
  const InboundMessage& m = *(*updates)[0].message;
  EXPECT_EQ(m.callback_id, "991");
  EXPECT_EQ(m.callback_message_id, "42");
  EXPECT_EQ(m.text, "tga1:e:o:abc");
  EXPECT_EQ(m.chat_id, "-100500");
  EXPECT_TRUE(m.is_group);
  EXPECT_EQ(m.sender_id, "1001");
  EXPECT_EQ(m.sender_username, "ann");
  EXPECT_EQ(m.message_id, "callback:991");
  EXPECT_FALSE((*updates)[1].message) << "a press without data (a game) is skipped";
  EXPECT_EQ(get_updates_body(0, 25)["allowed_updates"], json::array({"message", "callback_query"}));

  OutboundMessage out{"-100500", "", "hi"};
  EXPECT_FALSE(send_message_body(out, true).contains("reply_markup"));
  out.buttons = {{{"Allow once", "tga1:e:o:abc"}, {"Deny", "tga1:e:d:abc"}}};
  EXPECT_EQ(send_message_body(out, true)["reply_markup"],
            json::parse(R"({"inline_keyboard":[[{"text":"Allow once","callback_data":"tga1:e:o:abc"},)"
                        R"({"text":"Deny","callback_data":"tga1:e:d:abc"}]]})"));
}

}  // namespace
}  // namespace pincer::channels::telegram
