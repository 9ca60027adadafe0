// Reply delivery and the outbox (SPEC CH-4, CH-5; LESSONS 5): chunks recorded before sending, sent
// in order, retried on rate limits, and after a crash (a new Outbox over the same file) only the
// chunks not yet delivered are sent. The channel here is a recording stand-in for a remote chat
// platform; the event loop, the files and the chunker are real.
#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "channels/outbox.h"
#include "channels/reply_delivery.h"
#include "core/ids.h"

namespace pincer::channels {
namespace {

/// Records what it is asked to send; fails the calls listed in `fail_with` (by call number).
class RecordingChannel final : public Channel {
 public:
  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return account_; }
  ChannelCapabilities capabilities() const override {
    ChannelCapabilities c;
    c.format = delivery::TextFormat::Plain;
    c.unit = delivery::LengthUnit::Utf16;
    c.text_limit = 40;
    return c;
  }
  void start(ChannelHost&, std::function<void(const std::string&)>) override {}
  void stop() override {}
  void send_text(const OutboundMessage& m, std::function<void(Result<std::string>)> done) override {
    const int call = calls++;
    call_times.push_back(std::chrono::steady_clock::now());
    if (hold_from >= 0 && call >= hold_from) return held.push_back(m.text);  // never answered (a stopped channel)
    if (auto f = fail_with.find(call); f != fail_with.end()) return done(f->second);
    sent.push_back(m.text);
    done(std::to_string(call));
  }
  nlohmann::json status() const override { return nlohmann::json::object(); }

  std::vector<std::string> sent;
  std::vector<std::chrono::steady_clock::time_point> call_times;
  std::map<int, Error> fail_with;
  int calls = 0;
  int hold_from = -1;              ///< calls from this number on are never answered
  std::vector<std::string> held;

 private:
  std::string id_ = "test", account_ = "default";
};

class ReplyDeliveryTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-outbox-" + ids::uuid_v4());
  std::filesystem::path file = dir / "outbox.jsonl";
  void TearDown() override { std::filesystem::remove_all(dir); }

  /// Runs the loop until it is idle for a moment.
  static void drain(EventLoop& loop, int64_t ms = 300) {
    loop.after(ms, [&loop] { loop.stop(); });
    loop.run();
  }
  static const std::string kReply;
};
const std::string ReplyDeliveryTest::kReply =
    "First paragraph of the reply.\n\nSecond paragraph, a bit longer.\n\nThird and last one.";

TEST_F(ReplyDeliveryTest, ChunksAreRecordedThenSentInOrderThenDone) {
  EventLoop loop;
  Outbox outbox(file);
  RecordingChannel channel;
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  loop.post([&] { ASSERT_TRUE(delivery.deliver(channel, "run-1", "chat", "", kReply)); });
  drain(loop);
  ASSERT_EQ(channel.sent.size(), 3u);
  EXPECT_EQ(channel.sent[0], "First paragraph of the reply.");
  EXPECT_EQ(channel.sent[2], "Third and last one.");
  for (const auto& c : channel.sent) EXPECT_LE(c.size(), 40u);
  EXPECT_TRUE(outbox.pending().empty());
  // A restart finds nothing to resend.
  Outbox reopened(file);
  auto left = reopened.load();
  ASSERT_TRUE(left);
  EXPECT_TRUE(left->empty());
}

TEST_F(ReplyDeliveryTest, AfterACrashOnlyTheUnsentChunksGoOut) {
  {
    // The process "dies" after the first chunk: the record says 3 chunks, 1 sent.
    Outbox outbox(file);
    ASSERT_TRUE(outbox.queue({"run-2", "test", "default", "chat", "", {"one", "two", "three"}, 0}));
    ASSERT_TRUE(outbox.mark_sent("run-2", 0));
    std::ofstream(file, std::ios::app) << R"({"op":"sent","id":"run-2","ind)";  // a torn last write
  }
  EventLoop loop;
  Outbox outbox(file);
  auto left = outbox.load();
  ASSERT_TRUE(left) << left.error().message;
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].next, 1u);
  RecordingChannel channel;
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.resume();
  drain(loop);
  EXPECT_EQ(channel.sent, (std::vector<std::string>{"two", "three"}));
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyDeliveryTest, AChannelStoppedWithASendInFlightContinuesOnItsSuccessor) {
  EventLoop loop;
  Outbox outbox(file);
  RecordingChannel first, second;
  first.hold_from = 1;  // chunk 2 goes out, then the account stops: no answer will ever come
  Channel* running = &first;
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) { return running; });
  loop.post([&] { ASSERT_TRUE(delivery.deliver(first, "run-s", "chat", "", kReply)); });
  loop.after(100, [&] {
    ASSERT_EQ(first.sent, std::vector<std::string>{"First paragraph of the reply."});
    ASSERT_EQ(first.held.size(), 1u);
    // The manager restarts the account (a reload): the new channel takes over from chunk 2.
    running = &second;
    delivery.channel_stopped("test", "default");
  });
  drain(loop, 300);
  EXPECT_EQ(second.sent, (std::vector<std::string>{"Second paragraph, a bit longer.", "Third and last one."}));
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyDeliveryTest, RateLimitWaitsAndRejectedChunkIsSkippedInOrder) {
  EventLoop loop;
  Outbox outbox(file);
  RecordingChannel channel;
  channel.fail_with[0] = Error{"RATE_LIMITED", "0"};       // retry (after 0 s)
  channel.fail_with[2] = Error{"REJECTED", "bad request"};  // chunk 2 can never be sent
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  loop.post([&] { ASSERT_TRUE(delivery.deliver(channel, "run-3", "chat", "", kReply)); });
  drain(loop);
  EXPECT_EQ(channel.sent, (std::vector<std::string>{"First paragraph of the reply.", "Third and last one."}));
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyDeliveryTest, AReplyToAnAccountThatStaysUnavailableIsKeptUntilItStartsAgain) {
  EventLoop loop;
  Outbox outbox(file);
  RecordingChannel channel;
  for (int call = 0; call < 6; ++call) channel.fail_with[call] = Error{"UNAVAILABLE", "test[default]: not running"};
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.set_retry_timing(1, 600'000);  // the 5 retries at once; parked for longer than this test
  int calls_when_parked = -1, calls_after_other = -1;
  std::size_t sent_when_parked = 99, next_when_parked = 99;
  loop.post([&] { ASSERT_TRUE(delivery.deliver(channel, "run-4", "chat", "", kReply)); });
  loop.after(200, [&] {
    calls_when_parked = channel.calls;
    sent_when_parked = channel.sent.size();
    if (outbox.pending().count("run-4")) next_when_parked = outbox.pending().at("run-4").next;
    delivery.channel_started("other", "default");  // another account starting changes nothing
  });
  loop.after(300, [&] {
    calls_after_other = channel.calls;
    delivery.channel_started("test", "default");  // this one starting sends the whole reply
  });
  drain(loop, 600);
  // Every retry failed: nothing sent, nothing dropped (it used to skip the chunk after 5 retries).
  EXPECT_EQ(calls_when_parked, 6);
  EXPECT_EQ(sent_when_parked, 0u);
  EXPECT_EQ(next_when_parked, 0u);
  EXPECT_EQ(calls_after_other, 6);
  EXPECT_EQ(channel.sent.size(), 3u);
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyDeliveryTest, AParkedReplyOfALastingFailureIsTriedOncePerParkWithLongerParks) {
  // A wrong SMTP password is UNAVAILABLE until the config changes: the reply was tried 6 times
  // every minute. Now each park ends in one try, and each park is twice as long as the one before.
  EventLoop loop;
  Outbox outbox(file);
  RecordingChannel channel;
  for (int call = 0; call < 100; ++call) channel.fail_with[call] = Error{"UNAVAILABLE", "SMTP: login refused"};
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.set_retry_timing(1, 40);
  loop.post([&] { ASSERT_TRUE(delivery.deliver(channel, "run-5", "chat", "", kReply)); });
  int calls_when_started = -1;
  std::size_t pending_when_started = 0;
  std::vector<std::chrono::steady_clock::time_point> times;
  loop.after(700, [&] {
    calls_when_started = channel.calls;
    times = channel.call_times;
    pending_when_started = outbox.pending().count("run-5");
    channel.fail_with.clear();
    delivery.channel_started("test", "default");  // the account starting again sends it at once
  });
  drain(loop, 900);
  // 6 tries (the first and 5 retries), then parks of 40, 80, 160, 320 ms … : at most 4 more in 700 ms
  // (fewer on a slow machine; timers never fire early, so the gaps are at least the parks).
  ASSERT_GE(calls_when_started, 7) << "the parked reply was never tried again";
  EXPECT_LE(calls_when_started, 10);
  using std::chrono::milliseconds;
  for (std::size_t i = 6; i < times.size(); ++i) {
    const auto gap = std::chrono::duration_cast<milliseconds>(times[i] - times[i - 1]).count();
    EXPECT_GE(gap, 40 << (i - 6)) << "try " << i + 1;
  }
  EXPECT_EQ(pending_when_started, 1u);  // kept, never dropped
  EXPECT_EQ(channel.sent.size(), 3u);
  EXPECT_TRUE(outbox.pending().empty());
}

}  // namespace
}  // namespace pincer::channels
