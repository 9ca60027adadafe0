// The channel lifecycle shared by every platform channel (channels/channel_run.h), the manager's
// restart policy with permanent failures (a refused token stops the account until a config
// reload: channel_manager.h restart_delay_after_failure), reply delivery to an account held
// stopped (ReplyDelivery::channel_held: replies wait in the outbox, sent when it starts again),
// and the /dock delivery address dropping a stale thread (AgentService::set_session_delivery).
// The event loop, the outbox file and the session index are real; the channel is a recording
// stand-in for a chat platform.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel_manager.h"
#include "channels/channel_run.h"
#include "channels/outbox.h"
#include "channels/reply_delivery.h"
#include "core/clock.h"
#include "core/ids.h"
#include "store/session_index.h"

namespace pincer::channels {
namespace {

using nlohmann::json;

/// A fresh directory under the system temp dir, removed afterwards.
struct LifecycleTempDir {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-lifecycle-" + ids::uuid_v4());
  LifecycleTempDir() { std::filesystem::create_directories(dir); }
  ~LifecycleTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  const std::filesystem::path& path() const { return dir; }
};

/// A channel object as the platform channels use ChannelRun: stop() ends the run.
struct LifecycleOwner {
  explicit LifecycleOwner(EventLoop& loop) : run(loop, "test[default]", [this] { stop(); }) {}
  void stop() {
    ++stops;
    run.end();
  }
  ChannelRun run;
  int stops = 0;
};

TEST(ChannelRun, AFailureIsReportedOnceFromTheLoopAfterTheOwnerStopped) {
  EventLoop loop;
  LifecycleOwner owner(loop);
  std::vector<std::string> reports;
  int stops_when_reported = -1;
  owner.run.begin([&](const std::string& why) {
    reports.push_back(why);
    stops_when_reported = owner.stops;
    loop.stop();
  });
  EXPECT_TRUE(owner.run.running());
  auto token = owner.run.token();
  EXPECT_TRUE(ChannelRun::live(token));
  owner.run.fail("the server went away");
  // At once: the run is dead for its callbacks, not reported yet (not from inside the callback).
  EXPECT_FALSE(ChannelRun::live(token));
  EXPECT_FALSE(owner.run.running());
  EXPECT_TRUE(reports.empty());
  owner.run.fail("a second problem of the same run");  // only the last error changes
  loop.run();  // until the report
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], "test[default]: the server went away");
  EXPECT_EQ(stops_when_reported, 1);
  EXPECT_FALSE(owner.run.permanent());
  json status = json::object();
  owner.run.add_status(status);
  EXPECT_EQ(status["running"], false);
  EXPECT_EQ(status["lastError"], "a second problem of the same run");
}

TEST(ChannelRun, APermanentFailureIsMarkedUntilTheNextRun) {
  EventLoop loop;
  LifecycleOwner owner(loop);
  std::string report;
  owner.run.begin([&](const std::string& why) {
    report = why;
    loop.stop();
  });
  owner.run.fail("the token was refused", FailureKind::Permanent);
  loop.run();
  EXPECT_EQ(report, "test[default]: the token was refused");
  EXPECT_TRUE(owner.run.permanent());  // read by the manager after the report
  owner.run.begin([](const std::string&) {});
  EXPECT_FALSE(owner.run.permanent());
  EXPECT_TRUE(owner.run.running());
  EXPECT_EQ(owner.run.last_error(), "the token was refused");  // kept until the channel clears it
}

TEST(ChannelRun, AFailureOfAStoppedOrReplacedRunIsNotReported) {
  EventLoop loop;
  LifecycleOwner owner(loop);
  int reports = 0;
  owner.run.begin([&](const std::string&) { ++reports; });
  owner.run.fail("lost");
  owner.stop();  // stopped before the loop got to the report
  owner.run.begin([&](const std::string&) { ++reports; });
  auto old_run = owner.run.token();
  owner.run.fail("lost again");
  owner.run.begin([&](const std::string&) { ++reports; });  // restarted before the report
  EXPECT_FALSE(ChannelRun::live(old_run));
  bool idle = false;
  loop.post([&] {
    idle = true;  // after the posted reports (FIFO)
    loop.stop();
  });
  loop.run();
  EXPECT_TRUE(idle);
  EXPECT_EQ(reports, 0);
  EXPECT_TRUE(owner.run.running());
}

TEST(ChannelRun, AReportQueuedForADestroyedChannelIsDropped) {
  EventLoop loop;
  int reports = 0;
  {
    LifecycleOwner owner(loop);
    owner.run.begin([&](const std::string&) { ++reports; });
    owner.run.fail("lost");
  }
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_EQ(reports, 0);
}

TEST(ChannelRestartPolicy, BackoffDoublesToFiveMinutesAndAPermanentFailureIsNotRetried) {
  EXPECT_EQ(restart_delay_after_failure(0, false), 1'000);
  EXPECT_EQ(restart_delay_after_failure(1, false), 2'000);
  EXPECT_EQ(restart_delay_after_failure(8, false), 256'000);
  EXPECT_EQ(restart_delay_after_failure(9, false), 300'000);
  EXPECT_EQ(restart_delay_after_failure(1000, false), 300'000);
  EXPECT_EQ(restart_delay_after_failure(0, true), std::nullopt);
  EXPECT_EQ(restart_delay_after_failure(5, true), std::nullopt);
}

/// Records what it sends; `down` answers UNAVAILABLE "not running" as a stopped channel does.
class HeldAccountChannel final : public Channel {
 public:
  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return account_; }
  ChannelCapabilities capabilities() const override { return {}; }
  void start(ChannelHost&, std::function<void(const std::string&)>) override {}
  void stop() override {}
  void send_text(const OutboundMessage& m, std::function<void(Result<std::string>)> done) override {
    ++calls;
    if (down) return done(Error{"UNAVAILABLE", "test[default]: not running"});
    sent.push_back(m.text);
    done(std::to_string(calls));
  }
  json status() const override { return {{"running", !down}}; }
  bool down = true;
  int calls = 0;
  std::vector<std::string> sent;

 private:
  std::string id_ = "test", account_ = "default";
};

TEST(ReplyDeliveryHeld, AReplyToAnAccountHeldStoppedWaitsInTheOutboxUntilItStarts) {
  LifecycleTempDir dir;
  EventLoop loop;
  Outbox outbox(dir.path() / "outbox.jsonl");
  HeldAccountChannel channel;
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.set_retry_timing(1, 1);  // a parked reply of an account that is not held would retry at once
  delivery.channel_held("test", "default");
  EXPECT_TRUE(delivery.held("test", "default"));
  EXPECT_FALSE(delivery.held("test", "other"));
  DeliverOptions options;
  options.on_done = [&] { loop.stop(); };  // the test ends when the reply is out
  loop.post([&] {
    ASSERT_TRUE(delivery.deliver(channel, "run-held", "chat", "", "Kept for later.", std::move(options)));
    // Nothing is tried while held: the reply is in the outbox, the channel was never asked.
    loop.post([&] {
      EXPECT_EQ(channel.calls, 0);
      EXPECT_EQ(outbox.pending().count("run-held"), 1u);
      channel.down = false;
      delivery.channel_started("test", "default");  // a config reload started the account
    });
  });
  loop.after(10'000, [&] { loop.stop(); });  // a bound only, for a failing test
  loop.run();
  EXPECT_EQ(channel.sent, (std::vector<std::string>{"Kept for later."}));
  EXPECT_EQ(channel.calls, 1);
  EXPECT_TRUE(outbox.pending().empty());
  EXPECT_FALSE(delivery.held("test", "default"));
}

TEST(SessionDelivery, DockingDropsTheThreadOfTheOldChat) {
  LifecycleTempDir home;
  const std::string key = "agent:main:telegram:direct:42";
  const auto index_file = store::session_index_path(home.path(), "main");
  std::filesystem::create_directories(index_file.parent_path());
  std::ofstream(index_file) << json{{key,
                                     {{"sessionId", ids::uuid_v4()},
                                      {"updatedAt", 1},
                                      {"lastChannel", "telegram"},
                                      {"lastTo", "-100"},
                                      {"lastThreadId", "7"},
                                      {"deliveryContext", {{"channel", "telegram"}, {"to", "-100"}, {"threadId", "7"}}}}}}
                                   .dump();
  EventLoop loop;
  ManualClock clock(1'772'668'800'000);
  agent::AgentService agents(loop, clock, json::object(), home.path());
  ASSERT_TRUE(agents.set_session_delivery(key, "discord", "user:9", "default"));
  std::ifstream in(index_file);
  const json saved = json::parse(in);
  const json& entry = saved.at(key);
  EXPECT_EQ(entry.value("lastChannel", ""), "discord");
  EXPECT_EQ(entry.value("lastTo", ""), "user:9");
  EXPECT_FALSE(entry.contains("lastThreadId")) << entry.dump();
  EXPECT_FALSE(entry.at("deliveryContext").contains("threadId")) << entry.dump();
  EXPECT_EQ(entry.value("updatedAt", 0), 1);  // the activity time is kept
}

}  // namespace
}  // namespace pincer::channels
