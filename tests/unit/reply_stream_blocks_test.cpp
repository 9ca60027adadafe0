// Block streaming of a run's reply (SPEC CH-4; src/channels/reply_stream.h): blocks arrive in
// order with one in flight, the human delay waits between blocks but not before the first, a tool
// call flushes the pending block; and the stream settings read from the config and the schema's
// checks of the streaming keys. The outbox, ReplyDelivery and the block streamer are real; time is
// a ManualClock (reply_stream_test_support.h). Preview streaming is in reply_stream_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include "core/config.h"
#include "reply_stream_test_support.h"

namespace pincer::channels::reply_stream_blocks_test {  // named: the unity build puts several test files in one unit
namespace {

using agent::RunEvent;
using reply_stream_test_support::delta;
using reply_stream_test_support::end;
using reply_stream_test_support::FakeChannel;
using reply_stream_test_support::ReplyStreamTest;
using reply_stream_test_support::tool_start;

ReplyStreamSettings blocks(int64_t delay_ms) {
  ReplyStreamSettings s;
  s.mode = StreamMode::Block;
  s.block.min_chars = 20;
  s.block.max_chars = 60;
  s.block.coalesce_min_chars = 1;
  s.block.coalesce_max_chars = 1;  // every cut block goes out alone
  s.block.idle_ms = 0;
  s.human_delay_min_ms = delay_ms;
  s.human_delay_max_ms = delay_ms;
  return s;
}

const std::string kThree = "Block one is here and long.\n\nBlock two is here and long.\n\nBlock three closes it.";

TEST_F(ReplyStreamTest, BlocksArriveInOrderOneAtATime) {
  FakeChannel channel(clock, true, 4000);
  channel.hold = true;
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, blocks(0));
  for (std::size_t n = 5; n <= kThree.size(); n += 5) s->on_event(delta(kThree.substr(0, n)));
  s->on_event(end(kThree));
  ASSERT_EQ(channel.ops.size(), 1u) << "the next block waits until the previous one is delivered";
  EXPECT_EQ(channel.ops[0].text, "Block one is here and long.");
  channel.release();
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[1].text, "Block two is here and long.");
  channel.release();
  ASSERT_EQ(channel.ops.size(), 3u);
  EXPECT_EQ(channel.ops[2].text, "Block three closes it.");
  channel.release();
  EXPECT_TRUE(s->idle());
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyStreamTest, HumanDelayWaitsBetweenBlocksButNotBeforeTheFirst) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, blocks(1500));
  const int64_t t0 = clock.steady_ms();
  for (std::size_t n = 5; n <= kThree.size(); n += 5) s->on_event(delta(kThree.substr(0, n)));
  s->on_event(end(kThree));
  ASSERT_EQ(channel.ops.size(), 1u);
  EXPECT_EQ(channel.ops[0].at_ms, t0);
  timers->advance(1499);
  EXPECT_EQ(channel.ops.size(), 1u) << "sent before the human delay was over";
  timers->advance(1);
  ASSERT_EQ(channel.ops.size(), 2u);
  timers->advance(1500);
  ASSERT_EQ(channel.ops.size(), 3u);
  EXPECT_EQ(channel.ops[1].at_ms - channel.ops[0].at_ms, 1500);
  EXPECT_EQ(channel.ops[2].at_ms - channel.ops[1].at_ms, 1500);
  EXPECT_EQ(channel.ops[2].text, "Block three closes it.");
  EXPECT_TRUE(s->idle());
}

TEST_F(ReplyStreamTest, ABlockIsFlushedAtAToolCallAndTheRestAtTheEnd) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  ReplyStreamSettings s0;
  s0.mode = StreamMode::Block;  // defaults: 800/1200 characters
  auto s = stream(*delivery, s0);
  s->on_event(delta("Checking the file."));
  EXPECT_TRUE(channel.ops.empty());
  s->on_event(tool_start());
  ASSERT_EQ(channel.ops.size(), 1u) << "a tool call flushes what was written";
  EXPECT_EQ(channel.ops[0].text, "Checking the file.");
  s->on_event(delta("It says"));
  s->on_event(end("It says hello."));
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[1].text, "It says hello.");
}

TEST_F(ReplyStreamTest, SettingsFollowTheConfig) {
  ChannelCapabilities can_edit;
  can_edit.edit = true;
  can_edit.text_limit = 4000;
  ChannelCapabilities cannot = can_edit;
  cannot.edit = false;
  using nlohmann::json;
  EXPECT_EQ(stream_settings_from_json(json::object(), "telegram", "default", can_edit).mode, StreamMode::Partial);
  EXPECT_EQ(stream_settings_from_json(json::object(), "irc", "default", cannot).mode, StreamMode::Off);
  auto cfg = [](json telegram) { return json{{"channels", {{"telegram", telegram}}}}; };
  EXPECT_EQ(stream_settings_from_json(cfg({{"streaming", "block"}}), "telegram", "default", can_edit).mode, StreamMode::Block);
  EXPECT_EQ(stream_settings_from_json(cfg({{"streaming", "off"}}), "telegram", "default", can_edit).mode, StreamMode::Off);
  EXPECT_EQ(stream_settings_from_json(cfg({{"streamMode", "off"}}), "telegram", "default", can_edit).mode, StreamMode::Off);
  EXPECT_EQ(stream_settings_from_json(cfg({{"streaming", false}}), "telegram", "default", can_edit).mode, StreamMode::Off);
  EXPECT_EQ(stream_settings_from_json(cfg({{"streaming", "partial"}, {"blockStreaming", true}}), "telegram", "default", can_edit).mode,
            StreamMode::Block);
  EXPECT_EQ(stream_settings_from_json(cfg({{"accounts", {{"alerts", {{"streaming", "off"}}}}}}), "telegram", "alerts", can_edit).mode,
            StreamMode::Off);
  EXPECT_EQ(stream_settings_from_json(json::object(), "telegram", "default", can_edit).chunk_mode, delivery::ChunkMode::Length);
  auto newline = stream_settings_from_json(cfg({{"chunkMode", "newline"}}), "telegram", "default", can_edit);
  EXPECT_EQ(newline.chunk_mode, delivery::ChunkMode::Newline);
  EXPECT_TRUE(newline.block.flush_on_paragraph);
  EXPECT_EQ(stream_settings_from_json(cfg({{"accounts", {{"alerts", {{"chunkMode", "newline"}}}}}}), "telegram", "alerts", can_edit)
                .chunk_mode,
            delivery::ChunkMode::Newline);
  json webhook = {{"channels", {{"webhook", {{"streaming", "block"}}}}}};
  ChannelCapabilities one_reply = cannot;
  one_reply.single_reply = true;  // a webhook in sync mode
  EXPECT_EQ(stream_settings_from_json(webhook, "webhook", "default", one_reply).mode, StreamMode::Off) << "sync = one response";
  webhook["channels"]["webhook"]["chunkMode"] = "newline";
  EXPECT_EQ(stream_settings_from_json(webhook, "webhook", "default", one_reply).chunk_mode, delivery::ChunkMode::Length)
      << "a sync caller gets one answer: the reply is not split into paragraphs";
  webhook["channels"]["webhook"]["mode"] = "callback";
  EXPECT_EQ(stream_settings_from_json(webhook, "webhook", "default", cannot).mode, StreamMode::Block);

  json agents = {{"agents", {{"defaults", {{"humanDelay", {{"mode", "natural"}}},
                                           {"blockStreamingDefault", "on"},
                                           {"blockStreamingChunk", {{"minChars", 100}, {"maxChars", 9000}}}}}}}};
  auto s = stream_settings_from_json(agents, "telegram", "default", can_edit);
  EXPECT_EQ(s.mode, StreamMode::Block);
  EXPECT_EQ(s.human_delay_min_ms, 800);
  EXPECT_EQ(s.human_delay_max_ms, 2500);
  EXPECT_EQ(s.block.min_chars, 100u);
  EXPECT_EQ(s.block.max_chars, 4000u) << "clamped to the channel's limit";
  agents["agents"]["defaults"]["humanDelay"] = {{"mode", "custom"}, {"minMs", 10}, {"maxMs", 20}};
  s = stream_settings_from_json(agents, "telegram", "default", can_edit);
  EXPECT_EQ(s.human_delay_min_ms, 10);
  EXPECT_EQ(s.human_delay_max_ms, 20);
}

TEST_F(ReplyStreamTest, TheSchemaValidatesTheStreamingKeys) {
  using nlohmann::json;
  auto valid = [](json doc) { return static_cast<bool>(config::validate(doc)); };
  EXPECT_TRUE(valid({{"channels", {{"telegram", {{"streaming", "partial"}, {"streamMode", "block"}, {"blockStreaming", false},
                                                  {"blockStreamingCoalesce", {{"idleMs", 500}}}}}}}}));
  EXPECT_TRUE(valid({{"channels", {{"telegram", {{"streaming", true}}}}}}));
  EXPECT_TRUE(valid({{"agents", {{"defaults", {{"humanDelay", {{"mode", "custom"}, {"minMs", 100}, {"maxMs", 900}}},
                                               {"blockStreamingChunk", {{"minChars", 200}, {"breakPreference", "sentence"}}}}}}}}));
  EXPECT_FALSE(valid({{"channels", {{"telegram", {{"streaming", "live"}}}}}}));
  EXPECT_FALSE(valid({{"channels", {{"telegram", {{"streamMode", "progress"}}}}}}));
  EXPECT_FALSE(valid({{"agents", {{"defaults", {{"humanDelay", {{"mode", "sometimes"}}}}}}}}));
  EXPECT_FALSE(valid({{"agents", {{"defaults", {{"humanDelay", {{"mode", "custom"}, {"minMs", -1}}}}}}}}));
  EXPECT_FALSE(valid({{"agents", {{"defaults", {{"blockStreamingChunk", {{"maxChars", 0}}}}}}}}));
  EXPECT_FALSE(valid({{"agents", {{"defaults", {{"humanDelay", {{"mode", "off"}, {"delay", 5}}}}}}}})) << "unknown key";
}

}  // namespace
}  // namespace pincer::channels::reply_stream_blocks_test
