// The heartbeat (AT-1, src/automation/heartbeat*.h): OpenClaw's settings merged per agent and who
// beats, duration strings, the active-hours window in a zone (wrapping past midnight), the
// "effectively empty" HEARTBEAT.md, the HEARTBEAT_OK acknowledgement, and the scheduler on a
// manual clock — no timer when off, the gates (quiet hours, busy, empty file) before any runner
// call, one beat per interval, hot reconfigure.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "automation/heartbeat.h"
#include "automation/heartbeat_scheduler.h"
#include "automation/schedule.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

int64_t hb_utc_ms(const char* iso) { return parse_iso_instant(iso, "UTC").value_or(-1); }

struct HbTempDir {
  std::filesystem::path path;
  HbTempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("pincer-hb-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~HbTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

TEST(HeartbeatDuration, OpenClawForms) {
  EXPECT_EQ(parse_heartbeat_duration_ms("30m"), 30 * 60'000);
  EXPECT_EQ(parse_heartbeat_duration_ms("1h"), 3'600'000);
  EXPECT_EQ(parse_heartbeat_duration_ms("90s"), 90'000);
  EXPECT_EQ(parse_heartbeat_duration_ms("250ms"), 250);
  EXPECT_EQ(parse_heartbeat_duration_ms("1.5h"), 5'400'000);
  EXPECT_EQ(parse_heartbeat_duration_ms("45"), 45 * 60'000) << "a bare number is minutes";
  EXPECT_EQ(parse_heartbeat_duration_ms(" 2D "), 2 * 86'400'000);
  EXPECT_EQ(parse_heartbeat_duration_ms("0m"), 0);
  EXPECT_FALSE(parse_heartbeat_duration_ms("soon"));
  EXPECT_FALSE(parse_heartbeat_duration_ms("-5m"));
  EXPECT_FALSE(parse_heartbeat_duration_ms("5 weeks"));
  EXPECT_FALSE(parse_heartbeat_duration_ms(""));
}

TEST(HeartbeatSettings, OnByDefaultForTheDefaultAgentOnly) {
  const std::vector<HeartbeatAgent> agents = {{"main", "/w/main", true}, {"ops", "/w/ops", false}};
  auto s = heartbeat_settings_from_config(json::object(), agents);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(s[0].enabled);
  EXPECT_EQ(s[0].every_ms, kHeartbeatDefaultEveryMs);
  EXPECT_EQ(s[0].target, "last");
  EXPECT_EQ(s[0].ack_max_chars, 300);
  EXPECT_EQ(s[0].prompt, default_heartbeat_prompt());
  EXPECT_FALSE(s[1].enabled) << "only the default agent beats without per-agent blocks";
  EXPECT_EQ(s[1].every, "disabled");
}

TEST(HeartbeatSettings, PerAgentBlocksMergeAndEnrolOnlyThoseAgents) {
  const json cfg = json::parse(R"({"agents": {"defaults": {"userTimezone": "Europe/Berlin",
      "heartbeat": {"every": "1h", "target": "none", "ackMaxChars": 10,
                    "activeHours": {"start": "08:00", "end": "24:00"}}},
      "list": [{"id": "main", "default": true}, {"id": "ops", "heartbeat": {"every": "5m", "target": "telegram", "to": "42"}}]}})");
  auto s = heartbeat_settings_from_config(cfg, {{"main", "/w", true}, {"ops", "/o", false}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_FALSE(s[0].enabled) << "an agent has its own block: only such agents beat";
  EXPECT_TRUE(s[1].enabled);
  EXPECT_EQ(s[1].every_ms, 5 * 60'000);
  EXPECT_EQ(s[1].target, "telegram");
  EXPECT_EQ(s[1].to, "42");
  EXPECT_EQ(s[1].ack_max_chars, 10) << "merged from the defaults";
  ASSERT_TRUE(s[1].active_hours);
  EXPECT_EQ(s[1].active_hours->start_min, 8 * 60);
  EXPECT_EQ(s[1].active_hours->end_min, 1440);
  EXPECT_EQ(s[1].user_zone, "Europe/Berlin");
}

TEST(HeartbeatSettings, ZeroOrInvalidEveryTurnsItOff) {
  auto off = heartbeat_settings_from_config(json::parse(R"({"agents": {"defaults": {"heartbeat": {"every": "0m"}}}})"),
                                            {{"main", "/w", true}});
  EXPECT_FALSE(off[0].enabled);
  auto bad = heartbeat_settings_from_config(json::parse(R"({"agents": {"defaults": {"heartbeat": {"every": "often"}}}})"),
                                            {{"main", "/w", true}});
  EXPECT_FALSE(bad[0].enabled);
}

TEST(HeartbeatSettings, ProblemsNameTheField) {
  auto p = heartbeat_problems(json::parse(R"({"every": "often", "activeHours": {"start": "24:00", "end": "25:00",
                                                                                "timezone": "Mars/Base"}})"),
                              "agents.defaults.heartbeat");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_NE(p[0].find("agents.defaults.heartbeat.every: 'often'"), std::string::npos) << p[0];
  EXPECT_NE(p[1].find("activeHours.start: '24:00'"), std::string::npos) << p[1];
  EXPECT_NE(p[2].find("activeHours.end: '25:00'"), std::string::npos) << p[2];
  EXPECT_NE(p[3].find("unknown time zone 'Mars/Base'"), std::string::npos) << p[3];
  auto fast = heartbeat_problems(json::parse(R"({"every": "500ms"})"), "agents.defaults.heartbeat");
  ASSERT_EQ(fast.size(), 1u);
  EXPECT_NE(fast[0].find("agents.defaults.heartbeat.every: '500ms' is shorter than 1s"), std::string::npos) << fast[0];
  EXPECT_TRUE(heartbeat_problems(json::parse(R"({"every": "1s"})"), "x").empty());
  EXPECT_TRUE(heartbeat_problems(json::parse(R"({"every": "0"})"), "x").empty()) << "0 is off, not too short";
  EXPECT_TRUE(heartbeat_problems(json::parse(R"({"every": "30m", "activeHours": {"start": "22:00", "end": "24:00",
                                                                                  "timezone": "user"}})"),
                                 "x")
                  .empty());
}

TEST(HeartbeatActiveHours, WindowInTheZoneWithWrapAndEmpty) {
  ActiveHours day{9 * 60, 17 * 60, "America/New_York"};
  // 14:00 UTC in January is 09:00 in New York (UTC-5): inside, start inclusive.
  EXPECT_TRUE(within_active_hours(day, "", hb_utc_ms("2026-01-15T14:00:00Z")));
  EXPECT_FALSE(within_active_hours(day, "", hb_utc_ms("2026-01-15T13:59:00Z")));
  EXPECT_FALSE(within_active_hours(day, "", hb_utc_ms("2026-01-15T22:00:00Z"))) << "17:00 New York: end exclusive";
  // In July New York is UTC-4: 13:00 UTC is 09:00.
  EXPECT_TRUE(within_active_hours(day, "", hb_utc_ms("2026-07-15T13:00:00Z")));
  // "user" (or none) is agents.defaults.userTimezone.
  ActiveHours night{22 * 60, 6 * 60, ""};
  EXPECT_TRUE(within_active_hours(night, "Asia/Shanghai", hb_utc_ms("2026-01-15T15:00:00Z"))) << "23:00 Shanghai";
  EXPECT_TRUE(within_active_hours(night, "Asia/Shanghai", hb_utc_ms("2026-01-15T21:00:00Z"))) << "05:00 Shanghai";
  EXPECT_FALSE(within_active_hours(night, "Asia/Shanghai", hb_utc_ms("2026-01-15T04:00:00Z"))) << "12:00 Shanghai";
  EXPECT_FALSE(within_active_hours(ActiveHours{480, 480, "UTC"}, "", hb_utc_ms("2026-01-15T08:00:00Z")));
  EXPECT_TRUE(within_active_hours(std::nullopt, "", 0));
}

TEST(HeartbeatFile, EffectivelyEmptyAsOpenClaw) {
  EXPECT_TRUE(heartbeat_content_empty(""));
  EXPECT_TRUE(heartbeat_content_empty("# HEARTBEAT.md\n\n## Tasks\n- \n- [ ]\n```\n```md\n"));
  EXPECT_TRUE(heartbeat_content_empty("# HEARTBEAT.md\n<!-- tasks go here,\n   one per line -->\n  <!-- x --> \n"));
  EXPECT_FALSE(heartbeat_content_empty("# Tasks\n- Check the build status\n"));
  EXPECT_FALSE(heartbeat_content_empty("<!-- c --> do it"));
  EXPECT_FALSE(heartbeat_content_empty("#hashtag is text"));
}

TEST(HeartbeatReply, TheAcknowledgementIsNotDelivered) {
  for (const char* ack : {"HEARTBEAT_OK", "  HEARTBEAT_OK.  ", "**HEARTBEAT_OK**", "<b>HEARTBEAT_OK</b>",
                          "HEARTBEAT_OK All quiet.", "Nothing new. HEARTBEAT_OK", ""}) {
    auto r = classify_heartbeat_reply(ack, 300);
    EXPECT_FALSE(r.deliver) << ack;
  }
  EXPECT_TRUE(classify_heartbeat_reply("HEARTBEAT_OK", 300).token);
  EXPECT_FALSE(classify_heartbeat_reply("", 300).token);
  auto alert = classify_heartbeat_reply("The build is red since 09:12.", 300);
  EXPECT_TRUE(alert.deliver);
  EXPECT_EQ(alert.text, "The build is red since 09:12.");
  auto middle = classify_heartbeat_reply("I said HEARTBEAT_OK earlier, but the disk is full.", 300);
  EXPECT_TRUE(middle.deliver) << "the token in the middle is not special";
  auto long_rest = classify_heartbeat_reply("HEARTBEAT_OK but: the disk is full", 5);
  EXPECT_TRUE(long_rest.deliver) << "more than ackMaxChars beside the token";
  EXPECT_EQ(long_rest.text, "but: the disk is full");
}

/// A runner that records each beat and finishes it when told.
struct HbFakeRunner {
  std::vector<std::pair<std::string, std::function<void(HeartbeatOutcome)>>> calls;
  HeartbeatRunner runner() {
    return [this](const HeartbeatSettings& s, const std::string&, std::function<void(HeartbeatOutcome)> done) {
      calls.emplace_back(s.agent_id, std::move(done));
    };
  }
};

struct HbHarness {
  EventLoop loop{1};
  int64_t now = hb_utc_ms("2026-03-02T12:00:00Z");
  HbTempDir workspace;
  HbFakeRunner fake;
  bool busy = false;
  std::vector<json> events;
  HeartbeatScheduler sched{loop, [this] { return now; }};
  HbHarness() {
    sched.set_runner(fake.runner());
    sched.set_busy([this](const std::string&) { return busy; });
    sched.set_event_sink([this](const json& e) { events.push_back(e); });
  }
  HeartbeatSettings settings(int64_t every_ms = 60'000) const {
    HeartbeatSettings s;
    s.agent_id = "main";
    s.every = std::to_string(every_ms) + "ms";
    s.every_ms = every_ms;
    s.workspace = workspace.path;
    return s;
  }
};

TEST(HeartbeatScheduler, NoTimerWhenOff) {
  HbHarness h;
  auto s = h.settings();
  s.enabled = false;
  h.sched.configure({s});
  EXPECT_FALSE(h.sched.armed_at_ms()) << "heartbeats off: nothing armed";
  h.sched.configure({});
  EXPECT_FALSE(h.sched.armed_at_ms());
  h.sched.configure({h.settings()});
  ASSERT_TRUE(h.sched.armed_at_ms());
  EXPECT_EQ(*h.sched.armed_at_ms(), h.now + 60'000) << "the first beat one interval after the start";
  EXPECT_EQ(h.sched.summary("main")["nextDueAtMs"], h.now + 60'000);
}

TEST(HeartbeatScheduler, BeatsOncePerIntervalAndRecordsTheOutcome) {
  HbHarness h;
  h.sched.configure({h.settings()});
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty()) << "not due yet";
  h.now += 60'000;
  h.sched.tick();
  ASSERT_EQ(h.fake.calls.size(), 1u);
  EXPECT_FALSE(h.sched.armed_at_ms()) << "a running beat re-arms when it ends";
  h.now += 120'000;  // long beat: no second beat piles up behind it
  h.sched.tick();
  EXPECT_EQ(h.fake.calls.size(), 1u);
  HeartbeatOutcome sent;
  sent.status = "sent";
  sent.preview = "the build is red";
  h.fake.calls[0].second(sent);
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0]["status"], "sent");
  EXPECT_EQ(h.events[0]["indicatorType"], "alert");
  EXPECT_EQ(h.events[0]["agentId"], "main");
  EXPECT_EQ(h.sched.summary("main")["lastStatus"], "sent");
  EXPECT_EQ(h.sched.last_event(), h.events[0]);
  ASSERT_TRUE(h.sched.armed_at_ms());
  h.sched.tick();  // overdue: the next beat runs once, now
  EXPECT_EQ(h.fake.calls.size(), 2u);
}

TEST(HeartbeatScheduler, GatesSkipWithoutCallingTheRunner) {
  HbHarness h;
  auto s = h.settings();
  s.active_hours = ActiveHours{13 * 60, 14 * 60, "UTC"};  // now is 12:00 UTC
  h.sched.configure({s});
  h.now += 60'000;
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty());
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0]["status"], "skipped");
  EXPECT_EQ(h.events[0]["reason"], "quiet-hours");
  EXPECT_TRUE(h.sched.armed_at_ms()) << "the next beat is still planned";

  h.sched.configure({h.settings()});  // same interval: the planned beat is kept
  h.busy = true;
  h.now += 60'000;
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty());
  EXPECT_EQ(h.events.back()["reason"], "requests-in-flight");

  h.busy = false;
  h.workspace.write("HEARTBEAT.md", "# HEARTBEAT.md\n<!-- nothing yet -->\n");
  h.now += 60'000;
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty());
  EXPECT_EQ(h.events.back()["reason"], "empty-heartbeat-file");

  h.workspace.write("HEARTBEAT.md", "- Check the build status\n");
  h.now += 60'000;
  h.sched.tick();
  EXPECT_EQ(h.fake.calls.size(), 1u) << "a task in HEARTBEAT.md: the model is called";
}

TEST(HeartbeatScheduler, AWakeBeatsNowPastTheEmptyFileAndRetriesWhileBusy) {
  HbHarness h;
  auto off = h.settings();
  off.enabled = false;
  h.sched.configure({off});
  EXPECT_FALSE(h.sched.wake("main", "hook:wake")) << "no heartbeat: the wake does nothing";
  EXPECT_FALSE(h.sched.wake("nobody", "hook:wake"));
  EXPECT_FALSE(h.sched.armed_at_ms());

  h.sched.configure({h.settings()});
  const int64_t planned = *h.sched.armed_at_ms();
  h.workspace.write("HEARTBEAT.md", "# HEARTBEAT.md\n");  // empty: a timed beat would be skipped
  h.busy = true;
  ASSERT_TRUE(h.sched.wake("main", "hook:wake"));
  ASSERT_TRUE(h.sched.armed_at_ms());
  EXPECT_EQ(*h.sched.armed_at_ms(), h.now) << "due at once";
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty()) << "busy: not run";
  EXPECT_TRUE(h.events.empty()) << "a busy wake is retried, not reported as skipped";
  ASSERT_TRUE(h.sched.armed_at_ms());
  EXPECT_EQ(*h.sched.armed_at_ms(), h.now + kHeartbeatWakeRetryMs);
  h.busy = false;
  h.now += kHeartbeatWakeRetryMs;
  h.sched.tick();
  ASSERT_EQ(h.fake.calls.size(), 1u) << "the wake ran despite the empty HEARTBEAT.md (the event is the work)";
  h.fake.calls[0].second(HeartbeatOutcome{});
  ASSERT_TRUE(h.sched.armed_at_ms());
  EXPECT_EQ(*h.sched.armed_at_ms(), planned) << "the timed beat stays where it was";

  auto quiet = h.settings();
  quiet.active_hours = ActiveHours{13 * 60, 14 * 60, "UTC"};  // now is 12:00 UTC
  h.sched.configure({quiet});
  ASSERT_TRUE(h.sched.wake("main", "hook:wake"));
  h.sched.tick();
  EXPECT_EQ(h.fake.calls.size(), 1u) << "quiet hours hold for a wake too";
  EXPECT_EQ(h.events.back()["reason"], "quiet-hours");
  EXPECT_EQ(*h.sched.armed_at_ms(), planned) << "the skipped wake is dropped, not retried";
}

TEST(HeartbeatScheduler, ReconfigureKeepsOrMovesTheNextBeat) {
  HbHarness h;
  h.sched.configure({h.settings(60'000)});
  const int64_t first = *h.sched.armed_at_ms();
  h.now += 10'000;
  h.sched.configure({h.settings(60'000)});
  EXPECT_EQ(*h.sched.armed_at_ms(), first) << "unchanged interval: the same next beat";
  h.sched.configure({h.settings(5'000)});
  EXPECT_EQ(*h.sched.armed_at_ms(), h.now + 5'000) << "a new interval counts from now";
  h.sched.stop();
  EXPECT_FALSE(h.sched.armed_at_ms());
}

TEST(HeartbeatScheduler, PausedStartsNoBeatAndResumesOneIntervalLater) {
  HbHarness h;
  h.sched.configure({h.settings(60'000)});
  h.sched.set_paused(true);
  EXPECT_TRUE(h.sched.paused());
  EXPECT_FALSE(h.sched.armed_at_ms()) << "paused: no timer";
  EXPECT_FALSE(h.sched.wake("main", "wake")) << "paused: a wake makes no beat";
  h.now += 180'000;
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty()) << "paused: no timed beat";
  h.sched.set_paused(false);
  ASSERT_TRUE(h.sched.armed_at_ms());
  EXPECT_EQ(*h.sched.armed_at_ms(), h.now + 60'000) << "the beat due while paused comes one interval after the resume";
  h.sched.tick();
  EXPECT_TRUE(h.fake.calls.empty());
  ASSERT_TRUE(h.sched.wake("main", "wake"));
  h.sched.tick();
  EXPECT_EQ(h.fake.calls.size(), 1u) << "resumed: a wake beats";
}

}  // namespace
}  // namespace pincer::automation
