// Automatic session resets (SPEC SS-5): daily at session.reset.atHour and after idleMinutes, with
// OpenClaw's per-channel override, evaluated when a message arrives (no timer), on a manual clock.
// The agent runtime and the files are real; the model is the mock LLM over real HTTP.
#include <stdlib.h>
#include <time.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "gateway_process.h"

namespace pincer {
namespace {

using agent::RunEvent;
using nlohmann::json;

constexpr int64_t kMinute = 60'000;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kMar5_10h = 1'772'668'800'000 + 10 * kHour;  // 2026-03-05T10:00:00Z

struct ResetFixture {
  test::TempDir home;
  std::filesystem::path log = home.path() / "requests.jsonl";
  test::MockLlm mock{{"--log", log.string()}};
  ManualClock clock{kMar5_10h};
  EventLoop loop;
  std::unique_ptr<agent::AgentService> agents;
  std::thread loop_thread;

  explicit ResetFixture(const json& session_config) {
    // Host time is UTC here, so that "04:00 host time" is known.
    setenv("TZ", "UTC", 1);
    tzset();
    json config = {{"models",
                    {{"providers",
                      {{"mock",
                        {{"baseUrl", mock.base_url()},
                         {"apiKey", "k"},
                         {"api", "openai-completions"},
                         {"models", json::array({{{"id", "mock-model"}, {"contextWindow", 128000}}})}}}}}}},
                   {"agents", {{"defaults", {{"model", {{"primary", "mock/mock-model"}}}}}}},
                   {"session", session_config}};
    agents = std::make_unique<agent::AgentService>(loop, clock, config, home.path());
    loop_thread = std::thread([this] { loop.run(); });  // the loop owns the service from here on
  }
  ~ResetFixture() {
    std::promise<void> gone;
    loop.post([&] {
      agents.reset();
      gone.set_value();
    });
    gone.get_future().wait_for(std::chrono::seconds(30));
    loop.stop();
    loop_thread.join();
  }

  /// One turn; returns the session id it ran in ("" on failure).
  std::string turn(const std::string& text, const std::string& channel = "") {
    static int n = 0;
    const std::string run_id = "run-" + std::to_string(++n);
    auto done = std::make_shared<std::promise<std::string>>();
    loop.post([this, done, run_id, text, channel] {
      agent::SendRequest req{"main", "", text, run_id, "", agent::RunLane::Main};
      req.channel = channel;
      auto accepted = agents->send(req, [this, done](const RunEvent& e) {
        if (e.kind == RunEvent::Kind::End || e.kind == RunEvent::Kind::Error || e.kind == RunEvent::Kind::Aborted) {
          const std::string id = e.kind == RunEvent::Kind::End ? e.session_id : "error: " + e.error;
          // Twice: after the service's own bookkeeping of the turn (posted after this event).
          loop.post([this, done, id] { loop.post([done, id] { done->set_value(id); }); });
        }
      });
      if (!accepted) done->set_value("error: " + accepted.error().message);
    });
    auto future = done->get_future();
    if (future.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      ADD_FAILURE() << "the turn did not end";
      return "";
    }
    std::string id = future.get();
    EXPECT_EQ(id.rfind("error: ", 0), std::string::npos) << id;
    return id;
  }

  /// How many messages the last request to the mock carried (system prompt included).
  std::size_t last_request_messages() const {
    std::ifstream in(log);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      json entry = json::parse(line, nullptr, false);
      if (!entry.is_object()) continue;
      json body = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>(), nullptr, false) : entry["body"];
      if (body.is_object() && body.contains("messages")) n = body["messages"].size();
    }
    return n;
  }

  bool archived(const std::string& session_id) const {
    for (const auto& e : std::filesystem::directory_iterator(home.path() / "agents" / "main" / "sessions")) {
      if (e.path().filename().string().rfind(session_id + ".jsonl.reset.", 0) == 0) return true;
    }
    return false;
  }
};

TEST(SessionReset, DailyAtTheConfiguredHourWhenTheNextMessageArrives) {
  ResetFixture f(json{{"reset", {{"mode", "daily"}, {"atHour", 4}}}});
  const std::string first = f.turn("hello");
  ASSERT_FALSE(first.empty());
  f.clock.advance(17 * kHour);  // 03:00 next day: before the boundary
  EXPECT_EQ(f.turn("still there?"), first);
  EXPECT_EQ(f.last_request_messages(), 4u);  // system, hello, reply, this
  f.clock.advance(2 * kHour);  // 05:00: the session started before today's 04:00
  const std::string third = f.turn("good morning");
  ASSERT_FALSE(third.empty());
  EXPECT_NE(third, first);
  EXPECT_TRUE(f.archived(first));
  // A fresh session: the system prompt, the startup context quoting the archive of the session
  // that ended (CX-2, MM-9), and this message — nothing of the old transcript.
  EXPECT_EQ(f.last_request_messages(), 3u);
  f.clock.advance(kHour);
  EXPECT_EQ(f.turn("later"), third);  // started after the boundary: fresh
}

TEST(SessionReset, IdleAfterIdleMinutesAndTheChannelOverrideWins) {
  ResetFixture f(json{{"reset", {{"mode", "idle"}, {"idleMinutes", 30}}},
                      {"resetByChannel", {{"telegram", {{"mode", "none"}}}}}});
  const std::string first = f.turn("hello");
  ASSERT_FALSE(first.empty());
  f.clock.advance(29 * kMinute);
  EXPECT_EQ(f.turn("quick follow-up"), first);
  f.clock.advance(31 * kMinute);
  const std::string second = f.turn("back after a break");
  EXPECT_NE(second, first);
  EXPECT_TRUE(f.archived(first));
  // From Telegram the same session never resets (resetByChannel.telegram.mode = none).
  f.clock.advance(10 * kHour);
  EXPECT_EQ(f.turn("from telegram", "telegram"), second);
}

TEST(SessionReset, NothingConfiguredNeverResets) {
  ResetFixture f(json::object());
  const std::string first = f.turn("hello");
  f.clock.advance(72 * kHour);
  EXPECT_EQ(f.turn("days later"), first);
}

}  // namespace
}  // namespace pincer
