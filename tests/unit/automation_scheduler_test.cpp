// The cron scheduler (AT-2, src/automation/scheduler.h) on a manual clock: no timer without
// jobs, DST through the scheduler (New York's gap and overlap), a restart between runs (nothing
// replayed, missed runs once or skipped), a manual `cron run` and the scheduler agreeing,
// maxConcurrentRuns, one-shot `at` jobs (disabled / deleteAfterRun), hand edits of jobs.json, and
// the real timer firing on the loop.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "automation/scheduler.h"
#include "automation/schedule.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

struct SchedTempDir {
  std::filesystem::path path;
  explicit SchedTempDir(const char* name) {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("pincer-sched-" + std::string(name) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~SchedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

int64_t utc_ms(const char* iso) { return parse_iso_instant(iso, "UTC").value_or(-1); }

/// A runner that records each start and finishes when told (or at once with `auto_finish`).
struct FakeRunner {
  struct Call {
    std::string job_id;
    CronRunRequest request;
    std::function<void(CronRunResult)> done;
  };
  std::vector<Call> calls;
  bool auto_finish = false;
  CronRunner runner() {
    return [this](const CronJob& job, const CronRunRequest& request, std::function<void(CronRunResult)> done) {
      calls.push_back({job.id, request, done});
      if (auto_finish) done(CronRunResult{});
    };
  }
  void finish(std::size_t i, std::string status = "ok") {
    CronRunResult r;
    r.status = std::move(status);
    if (r.status != "ok") r.error = "boom";
    calls.at(i).done(r);
  }
};

struct SchedHarness {
  EventLoop loop{1};
  int64_t now = 0;
  SchedTempDir dir;
  FakeRunner fake;
  std::unique_ptr<CronScheduler> sched;
  std::vector<json> events;

  SchedHarness(const char* name, int64_t start_ms) : now(start_ms), dir(name) {}
  void open(CronSettings settings = {}) {
    sched = std::make_unique<CronScheduler>(loop, [this] { return now; }, dir.path, settings);
    sched->set_runner(fake.runner());
    sched->set_event_sink([this](const json& e) { events.push_back(e); });
    ASSERT_TRUE(sched->start().ok());
  }
  std::string add(json spec) {
    auto r = sched->add(spec);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? (*r)["id"].get<std::string>() : "";
  }
  /// Moves the clock to the armed time and lets the timer's work run.
  void fire() {
    ASSERT_TRUE(sched->armed_at_ms().has_value());
    now = std::max(now, *sched->armed_at_ms());
    sched->tick();
  }
};

json turn_job(const char* id, json schedule) {
  return json{{"id", id},
              {"name", id},
              {"schedule", std::move(schedule)},
              {"sessionTarget", "isolated"},
              {"payload", {{"kind", "agentTurn"}, {"message", std::string("run ") + id}}}};
}

TEST(CronScheduler, TheLogSaysTheNextRunAsAnIsoTimeInTheJobsZone) {
  SchedHarness h("logtime", utc_ms("2026-01-01T00:00:00Z"));
  CronSettings utc;
  utc.default_zone = "UTC";  // the `at` job's zone, whatever the host's
  h.open(utc);
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  spdlog::default_logger()->sinks().push_back(sink);
  const auto level = spdlog::default_logger()->level();
  spdlog::default_logger()->set_level(spdlog::level::info);
  h.add(turn_job("berlin", {{"kind", "cron"}, {"expr", "30 9 * * *"}, {"tz", "Europe/Berlin"}, {"staggerMs", 0}}));
  h.add(turn_job("once", {{"kind", "at"}, {"at", "2026-01-02T03:04:05Z"}}));
  spdlog::default_logger()->set_level(level);
  auto& sinks = spdlog::default_logger()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
  const std::string log = captured.str();
  EXPECT_NE(log.find("cron: job berlin (berlin) added, next run 2026-01-01T09:30:00+01:00"), std::string::npos) << log;
  EXPECT_NE(log.find("cron: job once (once) added, next run 2026-01-02T03:04:05Z"), std::string::npos) << log;
  EXPECT_EQ(log.find(std::to_string(utc_ms("2026-01-02T03:04:05Z"))), std::string::npos) << "no epoch ms: " << log;
  EXPECT_EQ(format_instant(utc_ms("2026-07-01T12:00:00Z"), "America/New_York"), "2026-07-01T08:00:00-04:00");
  EXPECT_EQ(format_instant(utc_ms("2026-07-01T12:00:00Z"), ""), "2026-07-01T12:00:00Z");
  EXPECT_EQ(format_instant(utc_ms("2026-07-01T12:00:00Z"), "Mars/Base"), "2026-07-01T12:00:00Z");
}

TEST(CronScheduler, NoTimerWithoutEnabledJobs) {
  SchedHarness h("empty", utc_ms("2026-01-01T00:00:00Z"));
  h.open();
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
  json disabled = turn_job("off", {{"kind", "every"}, {"everyMs", 60000}});
  disabled["enabled"] = false;
  h.add(disabled);
  EXPECT_FALSE(h.sched->armed_at_ms().has_value()) << "a disabled job arms nothing";
  h.add(turn_job("on", {{"kind", "every"}, {"everyMs", 60000}}));
  ASSERT_TRUE(h.sched->armed_at_ms().has_value());
  EXPECT_EQ(*h.sched->armed_at_ms(), h.now + 60000);
  ASSERT_TRUE(h.sched->remove("on").ok());
  EXPECT_FALSE(h.sched->armed_at_ms().has_value()) << "removing the last enabled job disarms";
}

TEST(CronScheduler, DaylightSavingInNewYorkThroughTheScheduler) {
  SchedHarness h("dst", utc_ms("2026-03-07T12:00:00Z"));
  h.fake.auto_finish = true;
  h.open();
  h.add(turn_job("gap", {{"kind", "cron"}, {"expr", "30 2 * * *"}, {"tz", "America/New_York"}}));
  // 02:30 does not exist on 8 March (02:00 EST -> 03:00 EDT): the next run is on the 9th, EDT.
  ASSERT_TRUE(h.sched->armed_at_ms());
  EXPECT_EQ(*h.sched->armed_at_ms(), utc_ms("2026-03-09T06:30:00Z"));
  h.fire();
  ASSERT_EQ(h.fake.calls.size(), 1u);
  EXPECT_EQ(*h.sched->armed_at_ms(), utc_ms("2026-03-10T06:30:00Z"));

  ASSERT_TRUE(h.sched->remove("gap").ok());
  h.now = utc_ms("2026-10-31T12:00:00Z");
  h.add(turn_job("overlap", {{"kind", "cron"}, {"expr", "30 1 * * *"}, {"tz", "America/New_York"}}));
  h.fire();  // 01:30 EDT on 1 November, the first of the two 01:30s
  ASSERT_EQ(h.fake.calls.size(), 2u);
  EXPECT_EQ(h.now, utc_ms("2026-11-01T05:30:00Z"));
  EXPECT_EQ(*h.sched->armed_at_ms(), utc_ms("2026-11-02T06:30:00Z")) << "the repeated 01:30 EST does not run again";
}

TEST(CronScheduler, RestartBetweenRunsReplaysNothingAndRunsMissedOnce) {
  const int64_t t0 = utc_ms("2026-01-01T00:00:00Z");
  SchedHarness h("restart", t0);
  h.fake.auto_finish = true;
  h.open();
  h.add(turn_job("tick", {{"kind", "every"}, {"everyMs", 60000}, {"anchorMs", t0}}));
  h.fire();
  ASSERT_EQ(h.fake.calls.size(), 1u);
  // A restart half-way to the next run: nothing runs at start, the same next run is armed.
  h.now = t0 + 90'000;
  h.open();
  EXPECT_EQ(h.fake.calls.size(), 1u);
  EXPECT_EQ(*h.sched->armed_at_ms(), t0 + 120'000);
  // Down for five periods: one run at start, not five.
  h.now = t0 + 400'000;
  h.open();
  ASSERT_EQ(h.fake.calls.size(), 2u);
  EXPECT_EQ(h.fake.calls[1].job_id, "tick");
  auto job = h.sched->get("tick");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ((*job)["state"]["lastStatus"], "ok");
  EXPECT_EQ((*job)["state"]["lastRunAtMs"], t0 + 400'000);
  // With cron.missedRuns "skip" the missed run is recorded as skipped instead.
  h.now = t0 + 900'000;
  CronSettings skip;
  skip.missed_runs = MissedRuns::Skip;
  h.open(skip);
  EXPECT_EQ(h.fake.calls.size(), 2u);
  EXPECT_EQ((*h.sched->get("tick"))["state"]["lastStatus"], "skipped");
  EXPECT_GT(*h.sched->armed_at_ms(), h.now);
}

TEST(CronScheduler, ManualRunAndTheSchedulerAgree) {
  const int64_t t0 = utc_ms("2026-01-01T00:00:00Z");
  SchedHarness h("manual", t0);
  h.open();
  h.add(turn_job("m", {{"kind", "every"}, {"everyMs", 60000}, {"anchorMs", t0}}));
  auto early = h.sched->run("m", /*force=*/false);
  ASSERT_TRUE(early.ok());
  EXPECT_EQ((*early)["reason"], "not-due");
  // At its time a "due" run by hand is that occurrence: the timer does not run it a second time.
  h.now = t0 + 60'000;
  auto due = h.sched->run("m", false);
  ASSERT_TRUE(due.ok());
  EXPECT_EQ((*due)["enqueued"], true);
  ASSERT_EQ(h.fake.calls.size(), 1u);
  EXPECT_EQ(h.fake.calls[0].request.run_id, (*due)["runId"]);
  h.sched->tick();
  EXPECT_EQ(h.fake.calls.size(), 1u);
  EXPECT_EQ((*h.sched->run("m", true))["reason"], "already-running");
  h.fake.finish(0);
  EXPECT_EQ(*h.sched->armed_at_ms(), t0 + 120'000) << "the next run is the one the scheduler computes";
  // A forced run leaves the schedule alone.
  ASSERT_EQ((*h.sched->run("m", true))["enqueued"], true);
  ASSERT_EQ(h.fake.calls.size(), 2u);
  EXPECT_TRUE(h.fake.calls[1].request.manual);
  h.fake.finish(1, "error");
  auto job = *h.sched->get("m");
  EXPECT_EQ(job["state"]["nextRunAtMs"], t0 + 120'000);
  EXPECT_EQ(job["state"]["lastStatus"], "error");
  EXPECT_EQ(job["state"]["consecutiveErrors"], 1);
  auto runs = h.sched->runs("m", 10, 0);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ((*runs)["entries"].size(), 2u);
  EXPECT_EQ((*runs)["entries"][0]["status"], "error");  // newest first
  EXPECT_EQ((*runs)["entries"][0]["error"], "boom");
  EXPECT_EQ((*runs)["entries"][1]["status"], "ok");
  EXPECT_TRUE((*runs)["entries"][1].contains("durationMs"));
}

TEST(CronScheduler, MaxConcurrentRunsIsALimit) {
  const int64_t t0 = utc_ms("2026-01-01T00:00:00Z");
  SchedHarness h("limit", t0);
  CronSettings two;
  two.max_concurrent_runs = 2;
  h.open(two);
  for (const char* id : {"a", "b", "c"}) h.add(turn_job(id, {{"kind", "at"}, {"at", "2026-01-01T00:01:00Z"}}));
  h.fire();
  ASSERT_EQ(h.fake.calls.size(), 2u);
  EXPECT_FALSE(h.sched->armed_at_ms().has_value()) << "full: no timer until a run ends";
  EXPECT_EQ((*h.sched->run("c", true))["enqueued"], true);  // waits for a slot
  EXPECT_EQ(h.fake.calls.size(), 2u);
  h.fake.finish(0);
  ASSERT_EQ(h.fake.calls.size(), 3u);
  EXPECT_EQ(h.fake.calls[2].job_id, "c");
}

TEST(CronScheduler, OneShotJobsAreDisabledOrDeleted) {
  const int64_t t0 = utc_ms("2026-01-01T00:00:00Z");
  SchedHarness h("oneshot", t0);
  h.fake.auto_finish = true;
  h.open();
  h.add(turn_job("keep", {{"kind", "at"}, {"at", "2026-01-01T00:01:00Z"}}));
  json gone = turn_job("gone", {{"kind", "at"}, {"at", "2026-01-01T00:02:00Z"}});
  gone["deleteAfterRun"] = true;
  h.add(gone);
  h.fire();
  h.fire();
  EXPECT_EQ(h.fake.calls.size(), 2u);
  auto keep = h.sched->get("keep");
  ASSERT_TRUE(keep.ok());
  EXPECT_EQ((*keep)["enabled"], false);
  EXPECT_FALSE((*keep)["state"].contains("nextRunAtMs"));
  EXPECT_FALSE(h.sched->get("gone").ok());
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
  bool removed = false;
  for (const auto& e : h.events) removed = removed || (e["jobId"] == "gone" && e["action"] == "removed");
  EXPECT_TRUE(removed);
}

TEST(CronScheduler, HandEditsOfTheFileArePickedUp) {
  const int64_t t0 = utc_ms("2026-01-01T00:00:00Z");
  SchedHarness h("edit", t0);
  h.open();
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
  json doc = {{"version", 1}, {"jobs", json::array({turn_job("byhand", {{"kind", "at"}, {"at", "2026-01-01T00:05:00Z"}})})}};
  std::ofstream(h.dir.path / "jobs.json") << doc.dump(2);
  ASSERT_TRUE(h.sched->reload_if_changed().ok());
  ASSERT_TRUE(h.sched->armed_at_ms().has_value());
  EXPECT_EQ(*h.sched->armed_at_ms(), t0 + 300'000);
  // A broken file is reported and never overwritten; the jobs already loaded stay.
  std::ofstream(h.dir.path / "jobs.json") << "{ not json";
  EXPECT_FALSE(h.sched->reload_if_changed().ok());
  auto add = h.sched->add(turn_job("other", {{"kind", "every"}, {"everyMs", 1000}}));
  ASSERT_FALSE(add.ok());
  EXPECT_NE(add.error().message.find("jobs.json"), std::string::npos) << add.error().message;
  std::ifstream in(h.dir.path / "jobs.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{ not json");
}

TEST(CronScheduler, TheTimerFiresOnTheLoop) {
  SchedTempDir dir("timer");
  EventLoop loop{1};
  auto wall = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  CronScheduler sched(loop, wall, dir.path, CronSettings{});
  int runs = 0;
  sched.set_runner([&](const CronJob&, const CronRunRequest&, std::function<void(CronRunResult)> done) {
    ++runs;
    done(CronRunResult{});
    loop.stop();
  });
  loop.post([&] {
    ASSERT_TRUE(sched.start().ok());
    json job = turn_job("soon", {{"kind", "at"}, {"at", std::to_string(wall() + 200)}});
    job["schedule"]["at"] = wall() + 200;  // epoch milliseconds
    ASSERT_TRUE(sched.add(job).ok());
  });
  auto guard = loop.after(30'000, [&] { loop.stop(); });  // a deadline, not a wait
  (void)guard;
  loop.run();
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace pincer::automation
