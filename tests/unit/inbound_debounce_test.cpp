// The inbound debounce (src/channels/inbound_debounce.h): which window applies (byChannel, then
// debounceMs, then the channel's default), which lines may be held, how held lines merge (text
// joined with newlines, the last line's ids, every journal entry kept), and the held batches: one
// flush per burst, the quiet window restarted by each line but bounded from the first, the
// per-batch limits, keys kept apart, /stop's take_session, nothing left behind. Time is a
// ManualClock; timers run only when the test fires them.
#include <map>
#include <memory>

#include <gtest/gtest.h>

#include "channels/inbound_debounce.h"
#include "core/clock.h"

namespace pincer::channels {
namespace {

using nlohmann::json;

/// Timers the test fires by hand: each after() is recorded with its delay.
class HandTimers final : public StreamTimers {
 public:
  Id after(int64_t delay_ms, std::function<void()> fn) override {
    armed_[++last_] = {delay_ms, std::move(fn)};
    return last_;
  }
  void cancel(Id id) override { armed_.erase(id); }
  std::size_t armed() const { return armed_.size(); }
  /// The delay of the newest armed timer.
  int64_t last_delay() const { return armed_.rbegin()->second.first; }
  /// Runs every armed timer (as the loop would once they are due).
  void fire_all() {
    auto due = std::move(armed_);
    armed_.clear();
    for (auto& [id, t] : due) t.second();
  }

 private:
  std::map<Id, std::pair<int64_t, std::function<void()>>> armed_;
  Id last_ = 0;
};

InboundMessage line(const std::string& text, const std::string& id, const std::string& sender = "u1") {
  InboundMessage m;
  m.channel = "telegram";
  m.account_id = "default";
  m.chat_id = "c1";
  m.sender_id = sender;
  m.message_id = id;
  m.text = text;
  m.journal_id = "j" + id;
  m.ts_ms = std::stoll(id);
  return m;
}

struct Fixture {
  ManualClock clock;
  std::shared_ptr<HandTimers> timers = std::make_shared<HandTimers>();
  std::vector<InboundDebounce::Batch> flushed;
  InboundDebounce debounce{timers, clock, [this](InboundDebounce::Batch b) { flushed.push_back(std::move(b)); }};

  void hold(const InboundMessage& m, int64_t window = 300, int64_t max_wait = 0, const std::string& session = "s1") {
    debounce.hold(debounce_key(m), session, "main", m, window, max_wait);
  }
};

TEST(InboundDebounceSettings, ByChannelWinsOverDebounceMsWhichWinsOverTheChannelDefault) {
  const auto none = InboundDebounceSettings::from_config(json::object());
  EXPECT_EQ(none.window_ms("telegram", 300), 300);
  EXPECT_EQ(none.window_ms("irc", 0), 0);
  const auto global = InboundDebounceSettings::from_config(json::parse(R"({"messages":{"inbound":{"debounceMs":2000}}})"));
  EXPECT_EQ(global.window_ms("telegram", 300), 2000);
  EXPECT_EQ(global.window_ms("irc", 0), 2000);
  const auto both = InboundDebounceSettings::from_config(
      json::parse(R"({"messages":{"inbound":{"debounceMs":2000,"byChannel":{"telegram":0,"discord":1500}}}})"));
  EXPECT_EQ(both.window_ms("telegram", 300), 0);  // explicit 0 turns the channel's default off
  EXPECT_EQ(both.window_ms("discord", 0), 1500);
  EXPECT_EQ(both.window_ms("webhook", 0), 2000);
  // Ill-typed values (a config that skipped validation) count as unset.
  const auto bad = InboundDebounceSettings::from_config(
      json::parse(R"({"messages":{"inbound":{"debounceMs":"soon","byChannel":{"telegram":-5}}}})"));
  EXPECT_EQ(bad.window_ms("telegram", 300), 300);
}

TEST(InboundDebounce, OnlyPlainTextMayBeHeld) {
  EXPECT_TRUE(may_hold(line("hi", "1")));
  EXPECT_FALSE(may_hold(line(" \n\t", "1")));
  EXPECT_FALSE(may_hold(line("/status", "1")));
  EXPECT_FALSE(may_hold(line("  /stop", "1")));
  auto media = line("a caption", "1");
  media.media.push_back(agent::Attachment{});
  EXPECT_FALSE(may_hold(media));
  auto press = line("approve:1", "1");
  press.callback_id = "cb1";
  EXPECT_FALSE(may_hold(press));
}

TEST(InboundDebounce, KeyIsConversationAndSender) {
  const auto a = line("x", "1", "alice");
  auto b = a;
  b.message_id = "2";
  EXPECT_EQ(debounce_key(a), debounce_key(b));
  for (auto change : std::vector<std::function<void(InboundMessage&)>>{
           [](InboundMessage& m) { m.sender_id = "bob"; }, [](InboundMessage& m) { m.chat_id = "c2"; },
           [](InboundMessage& m) { m.thread_id = "7"; }, [](InboundMessage& m) { m.topic_id = "7"; },
           [](InboundMessage& m) { m.account_id = "work"; }, [](InboundMessage& m) { m.channel = "discord"; }}) {
    auto c = a;
    change(c);
    EXPECT_NE(debounce_key(a), debounce_key(c));
  }
}

TEST(InboundDebounce, MergeJoinsTextsAndKeepsTheLastIdsAndEveryJournalEntry) {
  auto first = line("hi", "10");
  first.resumed = true;
  auto second = line("can you", "11");
  second.mentions_bot = true;
  auto third = line("check the logs", "12");
  third.thread_id = "t9";
  const InboundMessage m = merge_inbound_lines({first, second, third});
  EXPECT_EQ(m.text, "hi\ncan you\ncheck the logs");
  EXPECT_EQ(m.message_id, "12");
  EXPECT_EQ(m.thread_id, "t9");
  EXPECT_EQ(m.ts_ms, 12);
  EXPECT_EQ(m.journal_id, "j12");
  EXPECT_EQ(m.merged_journal_ids, (std::vector<std::string>{"j10", "j11"}));
  EXPECT_EQ(journal_ids_of(m), (std::vector<std::string>{"j10", "j11", "j12"}));
  EXPECT_TRUE(m.resumed);
  EXPECT_TRUE(m.mentions_bot);
  // A merged message merged again keeps every entry, oldest first.
  const InboundMessage again = merge_inbound_lines({m, line("and the disk", "13")});
  EXPECT_EQ(journal_ids_of(again), (std::vector<std::string>{"j10", "j11", "j12", "j13"}));
  EXPECT_EQ(again.text, "hi\ncan you\ncheck the logs\nand the disk");
  // One line comes back as it was.
  const InboundMessage one = merge_inbound_lines({line("alone", "20")});
  EXPECT_EQ(one.text, "alone");
  EXPECT_TRUE(one.merged_journal_ids.empty());
}

TEST(InboundDebounce, ABurstFlushesOnceAfterTheQuietWindow) {
  Fixture f;
  f.hold(line("hi", "1"));
  f.hold(line("can you", "2"));
  f.hold(line("check the logs", "3"));
  EXPECT_TRUE(f.flushed.empty());
  EXPECT_EQ(f.debounce.held(), 3u);
  EXPECT_EQ(f.timers->armed(), 1u) << "one timer per batch, re-armed by each line";
  EXPECT_EQ(f.timers->last_delay(), 300);
  f.timers->fire_all();
  ASSERT_EQ(f.flushed.size(), 1u);
  EXPECT_EQ(f.flushed[0].session_key, "s1");
  EXPECT_EQ(f.flushed[0].agent_id, "main");
  ASSERT_EQ(f.flushed[0].lines.size(), 3u);
  EXPECT_EQ(f.flushed[0].lines[2].text, "check the logs");
  EXPECT_EQ(f.debounce.held(), 0u);
  EXPECT_FALSE(f.debounce.holding(debounce_key(line("", "1"))));
}

TEST(InboundDebounce, EachLineRestartsTheQuietTimeWithinTheBoundFromTheFirst) {
  Fixture f;
  f.hold(line("a", "1"), 300);  // deadline: 5 × 300 = 1500 ms after the first line
  f.clock.advance(1000);
  f.hold(line("b", "2"), 300);
  EXPECT_EQ(f.timers->last_delay(), 300);
  f.clock.advance(290);
  f.hold(line("c", "3"), 300);
  EXPECT_EQ(f.timers->last_delay(), 210) << "1500 - 1290: the bound from the first line wins";
  f.clock.advance(300);
  f.hold(line("d", "4"), 300);
  EXPECT_EQ(f.timers->last_delay(), 0) << "past the bound: flush at once";
  // A channel's own bound (Telegram 7.5 s) replaces 5 × window; never below the window.
  Fixture g;
  g.hold(line("a", "1"), 300, 7500);
  g.clock.advance(7400);
  g.hold(line("b", "2"), 300, 7500);
  EXPECT_EQ(g.timers->last_delay(), 100);
  Fixture h;
  h.hold(line("a", "1"), 2000, 500);
  h.clock.advance(1500);
  h.hold(line("b", "2"), 2000, 500);
  EXPECT_EQ(h.timers->last_delay(), 500);
}

TEST(InboundDebounce, KeysAreHeldApart) {
  Fixture f;
  f.hold(line("from alice", "1", "alice"));
  f.hold(line("from bob", "2", "bob"));
  EXPECT_EQ(f.timers->armed(), 2u);
  f.debounce.flush(debounce_key(line("", "1", "alice")));
  ASSERT_EQ(f.flushed.size(), 1u);
  EXPECT_EQ(f.flushed[0].lines[0].text, "from alice");
  EXPECT_EQ(f.debounce.held(), 1u);
  EXPECT_EQ(f.timers->armed(), 1u) << "the flushed batch's timer is cancelled";
  f.debounce.flush("no such key");
  EXPECT_EQ(f.flushed.size(), 1u);
}

TEST(InboundDebounce, ALineThatDoesNotFitFlushesTheHeldBatchFirst) {
  Fixture f;
  for (std::size_t i = 0; i < kDebounceMaxLines; ++i) f.hold(line("l", std::to_string(i + 1)));
  EXPECT_TRUE(f.flushed.empty());
  f.hold(line("thirteenth", "100"));
  ASSERT_EQ(f.flushed.size(), 1u);
  EXPECT_EQ(f.flushed[0].lines.size(), kDebounceMaxLines);
  EXPECT_EQ(f.debounce.held(), 1u);
  // Bytes: a line that would pass kDebounceMaxBytes starts a new batch.
  Fixture g;
  g.hold(line(std::string(kDebounceMaxBytes - 10, 'x'), "1"));
  g.hold(line(std::string(20, 'y'), "2"));
  ASSERT_EQ(g.flushed.size(), 1u);
  EXPECT_EQ(g.flushed[0].lines.size(), 1u);
  // A line that routes to another session (a reload changed the bindings) does not join.
  Fixture h;
  h.hold(line("old route", "1"), 300, 0, "s1");
  h.hold(line("new route", "2"), 300, 0, "s2");
  ASSERT_EQ(h.flushed.size(), 1u);
  EXPECT_EQ(h.flushed[0].session_key, "s1");
  h.timers->fire_all();
  ASSERT_EQ(h.flushed.size(), 2u);
  EXPECT_EQ(h.flushed[1].session_key, "s2");
}

TEST(InboundDebounce, TakeSessionRemovesItsBatchesWithoutFlushing) {
  Fixture f;
  f.hold(line("a", "1", "alice"), 300, 0, "s1");
  f.hold(line("b", "2", "alice"), 300, 0, "s1");
  f.hold(line("c", "3", "bob"), 300, 0, "s1");
  f.hold(line("other", "4", "carol"), 300, 0, "s2");
  const auto taken = f.debounce.take_session("s1");
  EXPECT_EQ(taken.size(), 3u);
  EXPECT_EQ(f.debounce.held(), 1u);
  EXPECT_EQ(f.timers->armed(), 1u);
  f.timers->fire_all();
  ASSERT_EQ(f.flushed.size(), 1u);
  EXPECT_EQ(f.flushed[0].session_key, "s2");
}

TEST(InboundDebounce, DestructionCancelsTimersAndFlushesNothing) {
  ManualClock clock;
  auto timers = std::make_shared<HandTimers>();
  int flushes = 0;
  {
    InboundDebounce d(timers, clock, [&](InboundDebounce::Batch) { ++flushes; });
    d.hold(debounce_key(line("", "1")), "s1", "main", line("held", "1"), 300, 0);
  }
  EXPECT_EQ(timers->armed(), 0u);
  EXPECT_EQ(flushes, 0) << "held lines stay in the run journal, resumed at the next start";
}

}  // namespace
}  // namespace pincer::channels
