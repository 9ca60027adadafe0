// Streaming a run's reply to a chat (SPEC CH-4; src/channels/reply_stream.h): the Telegram-style
// preview (sent once, edited at most once per throttle window, replaced by the final reply whose
// first chunk edits it and whose other chunks follow in order), idempotent resume of that final
// after a "crash", block streaming (order, one block in flight, human delay on the manual clock,
// flush at a tool call), errors and aborts, the fallback of channels that cannot edit, and the
// settings read from the config. The channel is a recording stand-in for a chat platform; the
// outbox, ReplyDelivery, the renderer, the chunker and the block streamer are real; time is a
// ManualClock and timers fire when the test advances it.
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "channels/outbox.h"
#include "channels/reply_delivery.h"
#include "channels/reply_stream.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/ids.h"
#include "delivery/chunker.h"

namespace pincer::channels {
namespace {

using agent::RunEvent;

/// Timers driven by a ManualClock: advance() moves the clock and runs what falls due, in order.
class FakeTimers final : public StreamTimers {
 public:
  explicit FakeTimers(ManualClock& clock) : clock_(clock) {}
  Id after(int64_t delay_ms, std::function<void()> fn) override {
    const Id id = next_++;
    due_[{clock_.steady_ms() + std::max<int64_t>(0, delay_ms), id}] = std::move(fn);
    return id;
  }
  void cancel(Id id) override {
    std::erase_if(due_, [id](const auto& kv) { return kv.first.second == id; });
  }
  void advance(int64_t ms) {
    const int64_t until = clock_.steady_ms() + ms;
    while (!due_.empty() && due_.begin()->first.first <= until) {
      auto it = due_.begin();
      clock_.advance(it->first.first - clock_.steady_ms());
      auto fn = std::move(it->second);
      due_.erase(it);
      fn();
    }
    clock_.advance(until - clock_.steady_ms());
  }
  std::size_t pending() const { return due_.size(); }

 private:
  ManualClock& clock_;
  std::map<std::pair<int64_t, Id>, std::function<void()>> due_;
  Id next_ = 1;
};

/// Records sends and edits with the clock's time; answers at once, or holds answers (`hold`)
/// until release() — a chat platform that is slow, or a process that dies mid-call.
class FakeChannel final : public Channel {
 public:
  struct Op {
    std::string kind;  ///< "send" | "edit"
    std::string message_id;
    std::string text;
    int64_t at_ms;
  };
  FakeChannel(const Clock& clock, bool can_edit, std::size_t limit = 40) : clock_(clock), edit_(can_edit), limit_(limit) {}
  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return account_; }
  ChannelCapabilities capabilities() const override {
    ChannelCapabilities c;
    c.format = delivery::TextFormat::Plain;
    c.unit = delivery::LengthUnit::Utf16;
    c.text_limit = limit_;
    c.edit = edit_;
    return c;
  }
  void start(ChannelHost&, std::function<void(const std::string&)>) override {}
  void stop() override {}
  void send_text(const OutboundMessage& m, std::function<void(Result<std::string>)> done) override {
    const std::string mid = "m" + std::to_string(++next_id_);
    ops.push_back({"send", mid, m.text, clock_.steady_ms()});
    auto answer = [done, mid] { done(mid); };
    if (hold) held.push_back(answer);
    else answer();
  }
  void edit_text(const std::string&, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override {
    ops.push_back({"edit", message_id, text, clock_.steady_ms()});
    Status result = Ok{};
    if (!fail_edits.empty()) {
      result = fail_edits.front();
      fail_edits.erase(fail_edits.begin());
    }
    auto answer = [done, result] { done(result); };
    if (hold) held.push_back(answer);
    else answer();
  }
  nlohmann::json status() const override { return nlohmann::json::object(); }

  /// Answers the oldest held call.
  void release() {
    auto fn = std::move(held.front());
    held.erase(held.begin());
    fn();
  }
  std::vector<Op> of(const std::string& kind) const {
    std::vector<Op> out;
    for (const auto& o : ops) if (o.kind == kind) out.push_back(o);
    return out;
  }

  std::vector<Op> ops;
  bool hold = false;
  std::vector<std::function<void()>> held;
  std::vector<Status> fail_edits;

 private:
  const Clock& clock_;
  bool edit_;
  std::size_t limit_;
  int next_id_ = 0;
  std::string id_ = "fake", account_ = "default";
};

RunEvent ev(RunEvent::Kind kind, std::string text = "", std::string delta = "") {
  RunEvent e{};
  e.kind = kind;
  e.text = std::move(text);
  e.delta = std::move(delta);
  return e;
}
RunEvent delta(const std::string& so_far) { return ev(RunEvent::Kind::AssistantDelta, so_far, ""); }
RunEvent end(const std::string& text) { return ev(RunEvent::Kind::End, text); }
RunEvent error(const std::string& message, const std::string& reason = "") {
  RunEvent e = ev(RunEvent::Kind::Error);
  e.error = message;
  e.error_reason = reason;
  return e;
}
RunEvent tool_start() {
  RunEvent e = ev(RunEvent::Kind::ToolStart);
  e.tool_name = "read";
  return e;
}

std::vector<std::string> chunks_of(const std::string& text, std::size_t limit) {
  delivery::ChunkOptions o;
  o.limit = limit;
  o.format = delivery::TextFormat::Plain;
  return *delivery::chunk_text(text, o);
}

class ReplyStreamTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-stream-" + ids::uuid_v4());
  std::filesystem::path file = dir / "outbox.jsonl";
  ManualClock clock;
  std::shared_ptr<FakeTimers> timers = std::make_shared<FakeTimers>(clock);
  EventLoop loop;
  Outbox outbox{file};

  void TearDown() override { std::filesystem::remove_all(dir); }

  std::unique_ptr<ReplyDelivery> delivery_for(Channel& channel, Outbox& box) {
    return std::make_unique<ReplyDelivery>(loop, box, [&channel](const std::string&, const std::string&) { return &channel; });
  }
  std::shared_ptr<ReplyStream> stream(ReplyDelivery& d, ReplyStreamSettings s, const std::string& run = "run-1") {
    return ReplyStream::create(d, clock, timers, {"fake", "default", "chat", "", run}, std::move(s),
                               [](int64_t, int64_t hi) { return hi; });
  }
  static ReplyStreamSettings partial() {
    ReplyStreamSettings s;
    s.mode = StreamMode::Partial;
    return s;  // OpenClaw's values: 1000 ms throttle, 30 characters before the first preview
  }
  static void drain(EventLoop& loop, int64_t ms = 200) {
    loop.after(ms, [&loop] { loop.stop(); });
    loop.run();
  }
};

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
}  // namespace pincer::channels
