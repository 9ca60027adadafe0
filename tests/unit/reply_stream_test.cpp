// Streaming a run's reply to a chat (SPEC CH-4; src/channels/reply_stream.h): the Telegram-style
// preview (sent once, edited at most once per throttle window, replaced by the final reply whose
// first chunk edits it and whose other chunks follow in order), idempotent resume of that final
// after a "crash", errors and aborts, model failover notes, the fallback of channels that cannot
// edit, and chunk modes. The channel is a recording stand-in for a chat platform; the outbox,
// ReplyDelivery, the renderer and the chunker are real; time is a ManualClock and timers fire when
// the test advances it (reply_stream_test_support.h). Block streaming and the settings are in
// reply_stream_blocks_test.cpp.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "delivery/chunker.h"
#include "reply_stream_test_support.h"

namespace pincer::channels::reply_stream_test {  // named: the unity build puts several test files in one unit
namespace {

using agent::RunEvent;
using reply_stream_test_support::delta;
using reply_stream_test_support::end;
using reply_stream_test_support::FakeChannel;
using reply_stream_test_support::ReplyStreamTest;
using reply_stream_test_support::tool_start;
using reply_stream_test_support::error;
using reply_stream_test_support::ev;

std::vector<std::string> chunks_of(const std::string& text, std::size_t limit) {
  delivery::ChunkOptions o;
  o.limit = limit;
  o.format = delivery::TextFormat::Plain;
  return *delivery::chunk_text(text, o);
}
// The sentence grows by 10 characters per delta, every 100 ms.
std::string growing(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "word" + std::to_string(i % 10) + "xyzz ";  // 10 chars each
  return s;
}

TEST_F(ReplyStreamTest, PreviewIsSentOnceAtMinCharsThenEditedAtMostOncePerSecond) {
  FakeChannel channel(clock, /*can_edit=*/true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  ASSERT_EQ(s->mode(), StreamMode::Partial);
  const int64_t t0 = clock.steady_ms();
  s->on_event(delta(growing(1)));
  s->on_event(delta(growing(2)));
  EXPECT_TRUE(channel.ops.empty()) << "no preview below 30 characters";
  s->on_event(delta(growing(3)));  // 30 characters
  ASSERT_EQ(channel.ops.size(), 1u);
  EXPECT_EQ(channel.ops[0].kind, "send");
  EXPECT_EQ(channel.ops[0].text, "word0xyzz word1xyzz word2xyzz");  // rendered (Plain): trailing space trimmed
  // 5 seconds of text, a delta every 100 ms.
  for (int i = 4; i <= 53; ++i) {
    timers->advance(100);
    s->on_event(delta(growing(i)));
  }
  timers->advance(2000);  // the last pending edit fires
  ASSERT_EQ(channel.of("send").size(), 1u) << "the preview message is sent once";
  const auto edits = channel.of("edit");
  ASSERT_GE(edits.size(), 4u);
  ASSERT_LE(edits.size(), 6u) << "throttled to one edit per second over ~5 s";
  int64_t last = t0;
  for (const auto& e : edits) {
    EXPECT_EQ(e.message_id, "m1");
    EXPECT_GE(e.at_ms - last, 1000) << "edits closer than the 1000 ms throttle";
    last = e.at_ms;
  }
  EXPECT_EQ(edits.back().text, growing(53).substr(0, growing(53).size() - 1)) << "the latest text is shown";
}

TEST_F(ReplyStreamTest, FinalReplyEditsThePreviewThenSendsTheOtherChunksInOrder) {
  FakeChannel channel(clock, true, 40);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  const std::string reply =
      "First paragraph of the reply.\n\nSecond paragraph, a bit longer.\n\nThird and last one.";
  s->on_event(delta(reply.substr(0, 35)));
  ASSERT_EQ(channel.ops.size(), 1u);
  s->on_event(end(reply));
  const auto expected = chunks_of(reply, 40);
  ASSERT_EQ(expected.size(), 3u);
  ASSERT_EQ(channel.ops.size(), 4u);
  EXPECT_EQ(channel.ops[1].kind, "edit");
  EXPECT_EQ(channel.ops[1].message_id, "m1");
  EXPECT_EQ(channel.ops[1].text, expected[0]);
  EXPECT_EQ(channel.ops[2].kind, "send");
  EXPECT_EQ(channel.ops[2].text, expected[1]);
  EXPECT_EQ(channel.ops[3].kind, "send");
  EXPECT_EQ(channel.ops[3].text, expected[2]);
  EXPECT_TRUE(s->idle());
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyStreamTest, FinalEqualToThePreviewIsNotEditedAgain) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  const std::string reply = "A short answer that fits in one message.";
  s->on_event(delta(reply));
  ASSERT_EQ(channel.ops.size(), 1u);
  timers->advance(5000);
  s->on_event(end(reply));
  EXPECT_EQ(channel.ops.size(), 1u) << "the preview already shows the final text";
  EXPECT_TRUE(s->idle());
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyStreamTest, TheFinalWaitsForAPreviewCallInFlight) {
  FakeChannel channel(clock, true, 4000);
  channel.hold = true;
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  s->on_event(delta(growing(4)));
  ASSERT_EQ(channel.ops.size(), 1u);  // the preview send, unanswered
  s->on_event(end(growing(6)));
  EXPECT_EQ(channel.ops.size(), 1u) << "nothing overtakes the preview call";
  channel.release();  // preview id m1 known now
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[1].kind, "edit");
  EXPECT_EQ(channel.ops[1].message_id, "m1");
  channel.release();
  EXPECT_TRUE(s->idle());
}

TEST_F(ReplyStreamTest, AfterARestartTheFinalIsFinishedWithoutRepeatingTheEditOrAChunk) {
  const std::string reply =
      "First paragraph of the reply.\n\nSecond paragraph, a bit longer.\n\nThird and last one.";
  const auto expected = chunks_of(reply, 40);
  {
    FakeChannel channel(clock, true, 40);
    auto delivery = delivery_for(channel, outbox);
    auto s = stream(*delivery, partial());
    s->on_event(delta(reply.substr(0, 35)));
    channel.hold = true;
    s->on_event(end(reply));
    ASSERT_EQ(channel.ops.size(), 2u);
    channel.release();  // the edit of the preview is delivered …
    ASSERT_EQ(channel.ops.size(), 3u);
    // … the second chunk is on its way when the process dies (its answer never comes).
  }
  Outbox reopened(file);
  auto left = reopened.load();
  ASSERT_TRUE(left) << left.error().message;
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].edit_message_id, "m1");
  EXPECT_EQ((*left)[0].next, 1u);
  FakeChannel after(clock, true, 40);
  auto delivery = delivery_for(after, reopened);
  delivery->resume();
  drain(loop);
  ASSERT_EQ(after.ops.size(), 2u) << "only the chunks not confirmed are sent again";
  EXPECT_EQ(after.ops[0].kind, "send");
  EXPECT_EQ(after.ops[0].text, expected[1]);
  EXPECT_EQ(after.ops[1].text, expected[2]);
  EXPECT_TRUE(reopened.pending().empty());
}

TEST_F(ReplyStreamTest, AnUnconfirmedPreviewEditIsRedoneAfterARestart) {
  {
    Outbox box(file);
    ASSERT_TRUE(box.queue({"run-9", "fake", "default", "chat", "", {"one", "two"}, 0, "m7"}));
  }
  Outbox reopened(file);
  ASSERT_TRUE(reopened.load());
  FakeChannel channel(clock, true, 40);
  auto delivery = delivery_for(channel, reopened);
  delivery->resume();
  drain(loop);
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[0].kind, "edit");
  EXPECT_EQ(channel.ops[0].message_id, "m7");
  EXPECT_EQ(channel.ops[1].kind, "send");
}

TEST_F(ReplyStreamTest, APreviewThatCannotBeEditedGetsTheReplyAsANewMessage) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  s->on_event(delta(growing(4)));
  channel.fail_edits = {Error{"REJECTED", "message to edit not found"}};
  s->on_event(end(growing(8)));
  ASSERT_EQ(channel.ops.size(), 3u);
  EXPECT_EQ(channel.ops[1].kind, "edit");
  EXPECT_EQ(channel.ops[2].kind, "send");
  EXPECT_EQ(channel.ops[2].text, growing(8).substr(0, 79));
}

TEST_F(ReplyStreamTest, AnErrorOrAnAbortFinalisesThePreviewWithANote) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial(), "run-e");
  s->on_event(delta(growing(4)));
  s->on_event(error("mock/m: server error (HTTP 503): provider unavailable", "timeout"));
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[1].kind, "edit");
  EXPECT_TRUE(channel.ops[1].text.starts_with("word0xyzz word1xyzz")) << channel.ops[1].text;
  EXPECT_TRUE(channel.ops[1].text.ends_with("word3xyzz\n\n" + channel_error_text(error("", "timeout")))) << channel.ops[1].text;

  auto a = stream(*delivery, partial(), "run-a");
  a->on_event(delta(growing(5)));
  a->on_event(ev(RunEvent::Kind::Aborted, growing(5)));
  ASSERT_EQ(channel.ops.size(), 4u);
  EXPECT_EQ(channel.ops[3].kind, "edit");
  EXPECT_TRUE(channel.ops[3].text.ends_with("word4xyzz\n\n⏹ Stopped.")) << channel.ops[3].text;

  // Superseded (messages.queue interrupt): the End counts as an abort, no reply goes out.
  auto i = stream(*delivery, partial(), "run-i");
  i->on_event(delta(growing(3)));
  i->on_event(end("the reply nobody asked for any more"), /*superseded=*/true);
  ASSERT_EQ(channel.ops.size(), 6u);
  EXPECT_TRUE(channel.ops[5].text.ends_with("word2xyzz\n\n⏹ Stopped.")) << channel.ops[5].text;

  // Without a preview an abort sends nothing and an error sends only the error.
  auto q = stream(*delivery, partial(), "run-q");
  q->on_event(delta("short"));
  q->on_event(ev(RunEvent::Kind::Aborted, "short"));
  EXPECT_EQ(channel.ops.size(), 6u);
  auto r = stream(*delivery, partial(), "run-r");
  r->on_event(error("bad key", "auth"));
  ASSERT_EQ(channel.ops.size(), 7u);
  EXPECT_EQ(channel.ops[6].text, channel_error_text(error("", "auth")));
}

// Issue 22 item 6: a chat sender never sees the error's own text (a provider may quote the key it
// refused), in any mode; the mapping itself: channel_error_text_test.cpp.
TEST_F(ReplyStreamTest, ChatUsersGetAGenericErrorNeverTheDetail) {
  for (const auto& settings : {ReplyStreamSettings{}, partial()}) {
    FakeChannel channel(clock, true, 4000);
    auto delivery = delivery_for(channel, outbox);
    stream(*delivery, settings, std::string("run-") + to_string(settings.mode))
        ->on_event(error("mock/m: auth failed (HTTP 401): Invalid API key provided: Prov1derKey0fTheOwner", "auth"));
    ASSERT_EQ(channel.ops.size(), 1u) << to_string(settings.mode);
    EXPECT_EQ(channel.ops[0].text.find("Prov1der"), std::string::npos) << channel.ops[0].text;
  }
}

// PV-5: when another model takes over, the chat is told which and why before the reply; a rotated
// key of the same model is not announced.
TEST_F(ReplyStreamTest, AModelFailoverIsAnnouncedBeforeTheReply) {
  for (const auto& settings : {ReplyStreamSettings{}, partial()}) {
    FakeChannel channel(clock, true, 4000);
    auto delivery = delivery_for(channel, outbox);
    auto s = stream(*delivery, settings, std::string("run-f-") + to_string(settings.mode));
    RunEvent key_switch = ev(RunEvent::Kind::Failover);
    key_switch.data = {{"fromModel", "openai/gpt"}, {"toModel", "openai/gpt"}, {"fromProfile", "openai:a"},
                       {"toProfile", "openai:b"}, {"reason", "rate_limit"}, {"message", "secret detail sk-x"}};
    s->on_event(key_switch);
    EXPECT_TRUE(channel.ops.empty()) << to_string(settings.mode);
    RunEvent model_switch = key_switch;
    model_switch.data["toModel"] = "anthropic/claude";
    s->on_event(model_switch);
    s->on_event(end("The answer."));
    ASSERT_EQ(channel.ops.size(), 2u) << to_string(settings.mode);
    EXPECT_EQ(channel.ops[0].text, "ℹ️ openai/gpt is rate-limited; answering with anthropic/claude.");
    EXPECT_EQ(channel.ops[1].text, "The answer.");
  }
}

TEST_F(ReplyStreamTest, ALaterModelStepReusesThePreview) {
  FakeChannel channel(clock, true, 4000);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  s->on_event(delta("Let me look that up in the files first."));
  s->on_event(tool_start());
  timers->advance(1500);
  s->on_event(delta("Found"));  // a new step: too short to replace the preview yet
  timers->advance(1500);
  EXPECT_EQ(channel.ops.size(), 1u);
  s->on_event(end("Found it: the answer is 42."));
  ASSERT_EQ(channel.ops.size(), 2u);
  EXPECT_EQ(channel.ops[1].kind, "edit");
  EXPECT_EQ(channel.ops[1].text, "Found it: the answer is 42.");
}

TEST_F(ReplyStreamTest, WithoutEditAPartialStreamFallsBackToOneReplyAtTheEnd) {
  FakeChannel channel(clock, /*can_edit=*/false, 40);
  auto delivery = delivery_for(channel, outbox);
  auto s = stream(*delivery, partial());
  EXPECT_EQ(s->mode(), StreamMode::Off);
  const std::string reply =
      "First paragraph of the reply.\n\nSecond paragraph, a bit longer.\n\nThird and last one.";
  for (std::size_t n = 10; n < reply.size(); n += 10) {
    s->on_event(delta(reply.substr(0, n)));
    timers->advance(500);
  }
  EXPECT_TRUE(channel.ops.empty()) << "no preview on a channel that cannot edit";
  s->on_event(end(reply));
  ASSERT_EQ(channel.ops.size(), 3u);
  for (const auto& o : channel.ops) EXPECT_EQ(o.kind, "send");
  EXPECT_EQ(channel.ops[0].text, chunks_of(reply, 40)[0]);
}

// chunkMode "newline" (OpenClaw chunkMarkdownTextWithMode): the final reply is one message per
// paragraph, not only blocks while streaming — whatever the streaming mode.
TEST_F(ReplyStreamTest, ChunkModeNewlineSendsTheFinalReplyOneParagraphPerMessage) {
  const std::string reply = "First paragraph.\n\nSecond paragraph.\n\nThird paragraph.";
  {
    FakeChannel channel(clock, /*can_edit=*/false, 4000);
    auto delivery = delivery_for(channel, outbox);
    ReplyStreamSettings off;
    off.chunk_mode = delivery::ChunkMode::Newline;
    auto s = stream(*delivery, off, "run-off");
    s->on_event(end(reply));
    ASSERT_EQ(channel.ops.size(), 3u) << "off: one message per paragraph";
    EXPECT_EQ(channel.ops[0].text, "First paragraph.");
    EXPECT_EQ(channel.ops[1].text, "Second paragraph.");
    EXPECT_EQ(channel.ops[2].text, "Third paragraph.");
  }
  {
    FakeChannel channel(clock, /*can_edit=*/true, 4000);
    auto delivery = delivery_for(channel, outbox);
    auto settings = partial();
    settings.chunk_mode = delivery::ChunkMode::Newline;
    auto s = stream(*delivery, settings, "run-partial");
    s->on_event(delta(reply.substr(0, 36)));
    ASSERT_EQ(channel.ops.size(), 1u) << "the preview";
    timers->advance(5000);
    s->on_event(end(reply));
    ASSERT_EQ(channel.ops.size(), 4u);
    EXPECT_EQ(channel.ops[1].kind, "edit");
    EXPECT_EQ(channel.ops[1].text, "First paragraph.") << "the preview becomes the first paragraph";
    EXPECT_EQ(channel.ops[2].kind, "send");
    EXPECT_EQ(channel.ops[2].text, "Second paragraph.");
    EXPECT_EQ(channel.ops[3].text, "Third paragraph.");
  }
  {
    FakeChannel channel(clock, /*can_edit=*/false, 4000);
    auto delivery = delivery_for(channel, outbox);
    auto s = stream(*delivery, ReplyStreamSettings{}, "run-length");
    s->on_event(end(reply));
    ASSERT_EQ(channel.ops.size(), 1u) << "length (default): one message while it fits";
  }
}

}  // namespace
}  // namespace pincer::channels::reply_stream_test
