// The stand-ins shared by the reply stream tests (reply_stream_test.cpp,
// reply_stream_blocks_test.cpp): timers on a ManualClock that fire when the test advances it, a
// recording chat channel that can hold its answers (slow platform, crash mid-call), RunEvent
// builders, and the fixture wiring a real outbox, ReplyDelivery and ReplyStream to them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "channels/outbox.h"
#include "channels/reply_delivery.h"
#include "channels/reply_stream.h"
#include "core/clock.h"
#include "core/ids.h"

namespace pincer::channels::reply_stream_test_support {

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

inline RunEvent ev(RunEvent::Kind kind, std::string text = "", std::string delta = "") {
  RunEvent e{};
  e.kind = kind;
  e.text = std::move(text);
  e.delta = std::move(delta);
  return e;
}
inline RunEvent delta(const std::string& so_far) { return ev(RunEvent::Kind::AssistantDelta, so_far, ""); }
inline RunEvent end(const std::string& text) { return ev(RunEvent::Kind::End, text); }
inline RunEvent error(const std::string& message, const std::string& reason = "") {
  RunEvent e = ev(RunEvent::Kind::Error);
  e.error = message;
  e.error_reason = reason;
  return e;
}
inline RunEvent tool_start() {
  RunEvent e = ev(RunEvent::Kind::ToolStart);
  e.tool_name = "read";
  return e;
}

/// A temp outbox file, a ManualClock with FakeTimers and an event loop; builds deliveries and streams
/// for a FakeChannel ("fake"/"default", chat "chat").
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

}  // namespace pincer::channels::reply_stream_test_support
