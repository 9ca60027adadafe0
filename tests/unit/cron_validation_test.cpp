// Cron job validation and state defects a new-user tester found (hardening): a sub-second
// `everyMs` (one minimum for the tool, the methods and the CLI), a one-shot `at` in the past (refused
// when added, as OpenClaw's cron.add; due at once from the file; a skipped one is disabled), a cron
// expression that never fires (refused), `enabled: false` keeping the run record, a
// `tz` edit, unknown agent and channel ids, and a broken jobs.json (not JSON, duplicate ids) that
// is reported with its path and line and never written over. Manual clock; no timing.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "automation/cron_api.h"
#include "automation/cron_plan.h"
#include "automation/schedule.h"
#include "automation/scheduler.h"

namespace pincer::automation {
namespace cron_validation_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

int64_t utc(const char* iso) { return parse_iso_instant(iso, "UTC").value_or(-1); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json agent_job(const std::string& id, json schedule) {
  return json{{"id", id},
              {"name", id},
              {"schedule", std::move(schedule)},
              {"sessionTarget", "isolated"},
              {"payload", {{"kind", "agentTurn"}, {"message", "run " + id}}}};
}

struct Harness {
  EventLoop loop{1};
  int64_t now;
  fs::path dir;
  std::unique_ptr<CronScheduler> sched;
  std::vector<std::string> started;  // job ids, in start order
  bool finish_at_once = true;

  explicit Harness(const char* name, int64_t start_ms) : now(start_ms) {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("pincer-cronval-" + std::string(name) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Harness() {
    sched.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  Status open(CronSettings settings = {}) {
    sched = std::make_unique<CronScheduler>(loop, [this] { return now; }, dir, std::move(settings));
    sched->set_runner([this](const CronJob& job, const CronRunRequest&, std::function<void(CronRunResult)> done) {
      started.push_back(job.id);
      if (finish_at_once) done(CronRunResult{});
    });
    return sched->start();
  }
  fs::path file() const { return dir / "jobs.json"; }
  void write(const std::string& text) const {
    std::ofstream(file(), std::ios::binary) << text;
  }
};

// ---- 2. one minimum interval for every surface ---------------------------------------------------

TEST(CronValidation, ASubSecondEveryIsRefusedByAddAndUpdate) {
  Harness h("every", utc("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  auto fast = cron_call(*h.sched, "add", agent_job("fast", {{"kind", "every"}, {"everyMs", 500}}));
  ASSERT_FALSE(fast.ok());
  EXPECT_EQ(fast.error().code, "CRON_JOB_INVALID");
  EXPECT_THAT(fast.error().message, HasSubstr("schedule.everyMs: at least 1000 (1 s), got 500 ms"));
  EXPECT_EQ(h.sched->store().jobs().size(), 0u) << "nothing saved";
  ASSERT_TRUE(cron_call(*h.sched, "add", agent_job("ok", {{"kind", "every"}, {"everyMs", 1000}})).ok());
  auto patched = cron_call(*h.sched, "update", {{"id", "ok"}, {"patch", {{"schedule", {{"everyMs", 20}}}}}});
  ASSERT_FALSE(patched.ok());
  EXPECT_THAT(patched.error().message, HasSubstr("job 'ok' (jobs[0]): schedule.everyMs: at least 1000"));
  EXPECT_EQ(h.sched->store().find("ok")->schedule.every_ms, 1000);
}

TEST(CronValidation, AHandWrittenSubSecondEveryIsKeptInvalidNotRun) {
  Harness h("every-file", utc("2026-01-01T00:00:00Z"));
  h.write(json{{"version", 1}, {"jobs", json::array({agent_job("spin", {{"kind", "every"}, {"everyMs", 5}})})}}.dump());
  ASSERT_TRUE(h.open().ok());
  ASSERT_EQ(h.sched->store().issues().size(), 1u);
  EXPECT_THAT(h.sched->store().issues()[0], HasSubstr("schedule.everyMs: at least 1000"));
  EXPECT_FALSE(h.sched->armed_at_ms().has_value()) << "an invalid job arms nothing";
}

// ---- 3. a one-shot `at` in the past -------------------------------------------------------------

// A past one-shot written in the file (or one whose time came while the gateway was down) is due
// at once, as OpenClaw; adding one through the scheduler is refused (below).
TEST(CronValidation, APastAtIsDueAtOnceAndThenDisabled) {
  Harness h("past-at", utc("2026-01-01T12:00:00Z"));
  h.write(json{{"version", 1}, {"jobs", json::array({agent_job("late", {{"kind", "at"}, {"at", "2026-01-01T08:00:00Z"}})})}}.dump());
  ASSERT_TRUE(h.open().ok());
  h.sched->tick();
  ASSERT_EQ(h.started, std::vector<std::string>{"late"}) << "due at once, run once";
  auto job = *h.sched->get("late");
  EXPECT_EQ(job["enabled"], false) << job.dump();
  EXPECT_EQ(job["state"]["lastStatus"], "ok");
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
}

// The cron tool and cron.add/cron.update (one path: cron_call → the scheduler → the store) refuse a
// schedule that can never fire, naming the field, as `pincer cron add` does (the same check).
TEST(CronValidation, AScheduleThatNeverFiresIsRefusedByAddAndUpdate) {
  Harness h("never", utc("2026-01-01T12:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  auto feb31 = cron_call(*h.sched, "add", agent_job("feb31", {{"kind", "cron"}, {"expr", "0 0 31 2 *"}, {"tz", "UTC"}}));
  ASSERT_FALSE(feb31.ok());
  EXPECT_EQ(feb31.error().code, "CRON_JOB_INVALID");
  EXPECT_THAT(feb31.error().message,
              HasSubstr("job 'feb31' (new job): schedule.expr: '0 0 31 2 *' never runs: no time in the next 5 years matches it"));
  json generated = agent_job("x", {{"kind", "at"}, {"at", "2026-01-01T08:00:00Z"}});
  generated.erase("id");
  auto past = cron_call(*h.sched, "add", generated);
  ASSERT_FALSE(past.ok());
  EXPECT_THAT(past.error().message,
              HasSubstr("new job: schedule.at: '2026-01-01T08:00:00Z' is in the past (2026-01-01 08:00"));
  EXPECT_THAT(past.error().message, HasSubstr("4 hours ago"));
  EXPECT_EQ(h.sched->store().jobs().size(), 0u) << "nothing saved";
  // Within a minute (a clock apart, a slow caller) is due at once.
  ASSERT_TRUE(h.sched->add(agent_job("now", {{"kind", "at"}, {"at", "2026-01-01T11:59:30Z"}})).ok());

  ASSERT_TRUE(h.sched->add(agent_job("daily", {{"kind", "cron"}, {"expr", "0 8 * * *"}, {"tz", "UTC"}})).ok());
  auto never = cron_call(*h.sched, "update", {{"id", "daily"}, {"patch", {{"schedule", {{"expr", "0 0 30 2 *"}}}}}});
  ASSERT_FALSE(never.ok());
  EXPECT_THAT(never.error().message, HasSubstr("job 'daily' (jobs[1]): schedule.expr: '0 0 30 2 *' never runs"));
  auto to_past = h.sched->update("daily", {{"schedule", {{"kind", "at"}, {"at", "2025-12-31T00:00:00Z"}, {"expr", nullptr}}}});
  ASSERT_FALSE(to_past.ok());
  EXPECT_THAT(to_past.error().message, HasSubstr("schedule.at: '2025-12-31T00:00:00Z' is in the past"));
  EXPECT_EQ(h.sched->store().find("daily")->schedule.expr, "0 8 * * *") << "unchanged";
  // An edit that leaves the schedule alone is not refused for a one-shot whose time has gone.
  h.now = utc("2026-01-02T00:00:00Z");
  EXPECT_TRUE(h.sched->update("now", {{"name", "renamed"}}).ok());
}

TEST(CronValidation, AOneShotSkippedAtStartIsDisabled) {
  Harness h("skip-at", utc("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  ASSERT_TRUE(h.sched->add(agent_job("once", {{"kind", "at"}, {"at", "2026-01-01T01:00:00Z"}})).ok());
  h.now = utc("2026-01-01T05:00:00Z");  // the gateway was down at 01:00
  CronSettings skip;
  skip.missed_runs = MissedRuns::Skip;
  ASSERT_TRUE(h.open(skip).ok());
  EXPECT_TRUE(h.started.empty());
  auto job = *h.sched->get("once");
  EXPECT_EQ(job["state"]["lastStatus"], "skipped");
  EXPECT_EQ(job["enabled"], false) << "its one time is gone: " << job.dump();
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
}

// ---- 4. disable keeps the record; tz edits; unknown agents and channels ---------------------------

TEST(CronValidation, DisablingKeepsTheRunRecord) {
  Harness h("disable", utc("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  ASSERT_TRUE(h.sched->add(agent_job("rec", {{"kind", "every"}, {"everyMs", 60000}})).ok());
  ASSERT_TRUE(h.sched->run("rec", true).ok());
  ASSERT_EQ(h.started.size(), 1u);
  auto off = h.sched->update("rec", {{"enabled", false}});
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ((*off)["state"]["lastRunAtMs"], h.now) << off->dump();
  EXPECT_EQ((*off)["state"]["lastStatus"], "ok");
  // Also in the file and after the job is enabled again.
  const json file = json::parse(slurp(h.file()));
  EXPECT_EQ(file["jobs"][0]["state"]["lastStatus"], "ok") << file.dump();
  auto on = h.sched->update("rec", {{"enabled", true}});
  EXPECT_EQ((*on)["state"]["lastRunAtMs"], h.now);
}

TEST(CronValidation, AZoneEditChangesTheJobsOwnScheduleAndIsRefusedForEvery) {
  Harness h("tz", utc("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  ASSERT_TRUE(h.sched->add(agent_job("eight", {{"kind", "cron"}, {"expr", "0 8 * * *"}, {"tz", "UTC"}})).ok());
  auto berlin = h.sched->update("eight", {{"schedule", {{"tz", "Europe/Berlin"}}}});
  ASSERT_TRUE(berlin.ok()) << berlin.error().message;
  EXPECT_EQ((*berlin)["schedule"]["expr"], "0 8 * * *");
  EXPECT_EQ((*berlin)["state"]["nextRunAtMs"], utc("2026-01-01T07:00:00Z")) << "08:00 in Berlin is 07:00 UTC";
  ASSERT_TRUE(h.sched->add(agent_job("tick", {{"kind", "every"}, {"everyMs", 60000}})).ok());
  auto every = h.sched->update("tick", {{"schedule", {{"tz", "Europe/Berlin"}}}});
  ASSERT_FALSE(every.ok());
  EXPECT_THAT(every.error().message, HasSubstr("job 'tick': schedule.tz: an every schedule has no time zone"));
}

TEST(CronValidation, UnknownAgentsAndChannelsAreRefused) {
  Harness h("refs", utc("2026-01-01T00:00:00Z"));
  const json config = json::parse(R"({"agents": {"list": [{"id": "main"}, {"id": "work"}]},
                                       "channels": {"telegram": {"botToken": "t"}}})");
  ASSERT_TRUE(h.open(cron_settings_from_config(config)).ok());
  json ghost = agent_job("g", {{"kind", "every"}, {"everyMs", 60000}});
  ghost["agentId"] = "ghost";
  auto r = h.sched->add(ghost);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "CRON_JOB_INVALID");
  EXPECT_THAT(r.error().message, HasSubstr("agentId: unknown agent \"ghost\" (configured: \"main\", \"work\""));
  json typo = agent_job("t", {{"kind", "every"}, {"everyMs", 60000}});
  typo["delivery"] = {{"mode", "announce"}, {"channel", "telegarm"}, {"to", "1"}};
  r = h.sched->add(typo);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("delivery.channel: \"telegarm\" is not a configured channel (configured: "
                                           "\"telegram\"; or \"last\""));
  EXPECT_EQ(h.sched->store().jobs().size(), 0u);

  json fine = agent_job("f", {{"kind", "every"}, {"everyMs", 60000}});
  fine["agentId"] = "work";
  fine["delivery"] = {{"mode", "announce"}, {"channel", "telegram"}, {"to", "1"}};
  ASSERT_TRUE(h.sched->add(fine).ok());
  EXPECT_FALSE(h.sched->update("f", {{"agentId", "nobody"}}).ok());
  EXPECT_FALSE(h.sched->update("f", {{"delivery", {{"channel", "irc"}}}}).ok());
  EXPECT_TRUE(h.sched->update("f", {{"delivery", {{"channel", "last"}}}}).ok());
  EXPECT_EQ(h.sched->update("nope", {{"agentId", "nobody"}}).error().code, "NOT_FOUND") << "the id is checked first";
  // Without agents.list the one agent is "main".
  CronSettings plain = cron_settings_from_config(json::object());
  ASSERT_TRUE(plain.known_agents.has_value());
  EXPECT_EQ(*plain.known_agents, std::vector<std::string>{"main"});
}

TEST(CronValidation, ListAndGetNameEachJobsEffectiveAgent) {
  // OpenClaw's CLI shows `effectiveAgentId ?? agentId` in `cron list`, "unresolved" without either.
  Harness h("effective", utc("2026-01-01T00:00:00Z"));
  const json config = json::parse(R"({"agents": {"list": [{"id": "main"}, {"id": "Work", "default": true}]}})");
  ASSERT_TRUE(h.open(cron_settings_from_config(config)).ok());
  ASSERT_TRUE(h.sched->add(agent_job("plain", {{"kind", "every"}, {"everyMs", 60000}})).ok());
  json own = agent_job("own", {{"kind", "every"}, {"everyMs", 120000}});
  own["agentId"] = "main";
  ASSERT_TRUE(h.sched->add(own).ok());
  auto list = cron_call(*h.sched, "list", json::object());
  ASSERT_TRUE(list.ok());
  ASSERT_EQ((*list)["jobs"].size(), 2u);
  EXPECT_EQ((*list)["jobs"][0]["id"], "plain");
  EXPECT_EQ((*list)["jobs"][0]["effectiveAgentId"], "work") << "the default agent, normalised";
  EXPECT_FALSE((*list)["jobs"][0].contains("agentId")) << "the job's own fields are as stored";
  EXPECT_EQ((*list)["jobs"][1]["effectiveAgentId"], "main");
  auto got = cron_call(*h.sched, "get", {{"id", "plain"}});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["effectiveAgentId"], "work");
  // A job copied from a listing back into cron.update does not store the read-only field.
  ASSERT_TRUE(cron_call(*h.sched, "update", {{"id", "plain"}, {"patch", *got}}).ok());
  EXPECT_FALSE(h.sched->store().find("plain")->raw.contains("effectiveAgentId"));
  EXPECT_THAT(slurp(h.file()), ::testing::Not(HasSubstr("effectiveAgentId")));
  // Without agents.list the default agent is "main"; else the first entry.
  EXPECT_EQ(cron_settings_from_config(json::object()).default_agent, "main");
  EXPECT_EQ(cron_settings_from_config(json::parse(R"({"agents": {"list": [{"id": "ops"}, {"id": "x"}]}})")).default_agent,
            "ops");
}

// ---- 5. a broken jobs.json ------------------------------------------------------------------------

TEST(CronValidation, AJobFileThatIsNotJsonNamesItsLineAndIsNeverWrittenOver) {
  Harness h("broken", utc("2026-01-01T00:00:00Z"));
  const std::string broken = "{\"version\": 1, \"jobs\": [\n  {\"id\": \"a\",\n   \"name\": \"a\" \"schedule\": {}}\n]}\n";
  h.write(broken);
  auto st = h.open();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "CRON_FILE_INVALID");
  EXPECT_THAT(st.error().message, HasSubstr(h.file().string() + ": line 3, column 25: not valid JSON"));
  auto list = h.sched->list(true, 50, 0);
  EXPECT_THAT(list.value("fileError", ""), HasSubstr("line 3, column 25"));
  auto add = h.sched->add(agent_job("new", {{"kind", "every"}, {"everyMs", 60000}}));
  ASSERT_FALSE(add.ok());
  EXPECT_EQ(add.error().code, "CRON_FILE_INVALID");
  EXPECT_EQ(slurp(h.file()), broken) << "kept as it was";
}

TEST(CronValidation, DuplicateJobIdsAreAFileErrorWithTheLine) {
  Harness h("dup", utc("2026-01-01T00:00:00Z"));
  json doc = {{"version", 1},
              {"jobs", json::array({agent_job("twice", {{"kind", "every"}, {"everyMs", 60000}}),
                                    agent_job("other", {{"kind", "every"}, {"everyMs", 60000}}),
                                    agent_job("twice", {{"kind", "every"}, {"everyMs", 120000}})})}};
  const std::string text = doc.dump(2);
  h.write(text);
  // The second "twice" is on the line of its "id".
  std::size_t second = text.find("\"id\": \"twice\"", text.find("\"id\": \"twice\"") + 1);
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(second), '\n') + 1;
  auto st = h.open();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr(h.file().string() + ": line " + std::to_string(line) +
                                            ": the job id 'twice' is used twice (jobs[0] and jobs[2])"));
  h.now += 3'600'000;
  h.sched->tick();
  EXPECT_TRUE(h.started.empty());
  EXPECT_EQ(slurp(h.file()), text);
}

TEST(CronValidation, AFileBrokenWhileRunningIsNotWrittenOverByARun) {
  Harness h("broken-later", utc("2026-01-01T00:00:00Z"));
  h.finish_at_once = false;
  ASSERT_TRUE(h.open().ok());
  ASSERT_TRUE(h.sched->add(agent_job("due", {{"kind", "every"}, {"everyMs", 60000}})).ok());
  const std::string broken = "{ \"version\": 1, \"jobs\": [ oops ] }\n";
  h.write(broken);
  h.now += 60'000;
  h.sched->tick();  // reloads (fails: the jobs loaded before are kept), starts the due run
  ASSERT_EQ(h.started, std::vector<std::string>{"due"});
  EXPECT_EQ(slurp(h.file()), broken) << "starting a run saves no state over the broken file";
  EXPECT_THAT(h.sched->list(true, 50, 0).value("fileError", ""), HasSubstr("line 1, column 27"));
}

// ---- 6. a live agents.defaults.userTimezone edit -------------------------------------------------

TEST(CronValidation, ANewDefaultZoneMovesTheJobsWithoutTheirOwnTz) {
  Harness h("zone", utc("2026-01-01T00:00:00Z"));
  CronSettings utc_zone;
  utc_zone.default_zone = "UTC";
  ASSERT_TRUE(h.open(utc_zone).ok());
  ASSERT_TRUE(h.sched->add(agent_job("plain", {{"kind", "cron"}, {"expr", "0 8 * * *"}})).ok());
  ASSERT_TRUE(h.sched->add(agent_job("own", {{"kind", "cron"}, {"expr", "0 8 * * *"}, {"tz", "America/New_York"}})).ok());
  EXPECT_EQ((*h.sched->get("plain"))["state"]["nextRunAtMs"], utc("2026-01-01T08:00:00Z"));
  CronSettings berlin = utc_zone;
  berlin.default_zone = "Europe/Berlin";
  h.sched->reconfigure(berlin);
  EXPECT_EQ((*h.sched->get("plain"))["state"]["nextRunAtMs"], utc("2026-01-01T07:00:00Z")) << "08:00 in Berlin";
  EXPECT_EQ((*h.sched->get("own"))["state"]["nextRunAtMs"], utc("2026-01-01T13:00:00Z")) << "its own zone stays";
  EXPECT_EQ(*h.sched->armed_at_ms(), utc("2026-01-01T07:00:00Z"));
  // The file says the same (what `pincer cron list` shows offline).
  const json file = json::parse(slurp(h.file()));
  EXPECT_EQ(file["jobs"][0]["state"]["nextRunAtMs"], utc("2026-01-01T07:00:00Z")) << file.dump();
}

// ---- schedule limits: no field overflows the next-run arithmetic ----------------------------------

TEST(CronValidation, ScheduleFieldsPastTheLimitAreRefusedNamingFieldAndValue) {
  auto fails = [](const json& schedule, const std::string& expected) {
    auto s = parse_schedule(schedule, "UTC");
    ASSERT_FALSE(s.ok()) << schedule.dump();
    EXPECT_THAT(s.error().message, HasSubstr(expected)) << schedule.dump();
  };
  fails({{"kind", "every"}, {"everyMs", INT64_MAX}}, "schedule.everyMs: 9223372036854775807 is out of range");
  fails({{"kind", "every"}, {"everyMs", 1e300}}, "schedule.everyMs: 1e+300 is out of range");  // was a cast UB
  fails({{"kind", "every"}, {"everyMs", UINT64_MAX}}, "schedule.everyMs: 18446744073709551615 is out of range");
  fails({{"kind", "every"}, {"everyMs", kScheduleMaxMs + 1}}, "9999-12-31T23:59:59Z");
  fails({{"kind", "every"}, {"everyMs", 60000}, {"anchorMs", INT64_MAX}}, "schedule.anchorMs: 9223372036854775807 is out of range");
  fails({{"kind", "cron"}, {"expr", "0 8 * * *"}, {"staggerMs", 1e19}}, "schedule.staggerMs:");
  fails({{"kind", "at"}, {"at", int64_t{8'640'000'000'000'000}}}, "schedule.at: 8640000000000000 is out of range");
  fails({{"kind", "at"}, {"at", "9999-12-31T23:00:00-05:00"}}, "schedule.at: '9999-12-31T23:00:00-05:00' is out of range");
  fails({{"kind", "at"}, {"at", "10000-01-01T00:00:00Z"}}, "years up to 9999");
  EXPECT_TRUE(parse_schedule({{"kind", "every"}, {"everyMs", kScheduleMaxMs}}, "UTC").ok()) << "the limit itself";
}

TEST(CronValidation, TheNextRunNeverWrapsAndNeverFallsPastTheLimit) {
  Schedule s;
  s.kind = Schedule::Kind::Every;
  s.every_ms = INT64_MAX;  // as a file read before the limit could hold it
  s.anchor_ms = 0;
  const int64_t now = utc("2026-12-06T00:00:00Z");
  EXPECT_FALSE(next_run_after(s, "j", now).has_value()) << "was anchor + INT64_MAX, wrapped to 1592";
  s.every_ms = kScheduleMaxMs;
  EXPECT_EQ(next_run_after(s, "j", now), kScheduleMaxMs) << "anchored at 0: the limit itself";
  s.anchor_ms.reset();  // anchored at now: the first run after 9999-12-31
  EXPECT_FALSE(next_run_after(s, "j", now).has_value()) << "after 9999-12-31";
  EXPECT_FALSE(next_run_after(s, "j", now, now).has_value());
  s.every_ms = 3'600'000;
  EXPECT_EQ(next_run_after(s, "j", now), now + 3'600'000);
  // After a run: always later than its start, never a wrapped sum (the loop of back-to-back runs).
  CronJob job;
  job.id = "ovf";
  job.schedule = s;
  job.schedule.every_ms = INT64_MAX;
  EXPECT_FALSE(next_after_run(job, now).has_value());
  job.schedule.every_ms = 60'000;
  EXPECT_EQ(next_after_run(job, now), now + 60'000);
}

TEST(CronValidation, AnIntervalWhoseRunsFallPastTheLimitIsRefusedByAddAndUpdate) {
  Harness h("every-far", utc("2026-12-06T00:00:00Z"));
  ASSERT_TRUE(h.open().ok());
  auto max = cron_call(*h.sched, "add", agent_job("ovf", {{"kind", "every"}, {"everyMs", INT64_MAX}}));
  ASSERT_FALSE(max.ok());
  EXPECT_THAT(max.error().message, HasSubstr("schedule.everyMs: 9223372036854775807 is out of range"));
  auto huge = cron_call(*h.sched, "add", agent_job("huge", {{"kind", "every"}, {"everyMs", 1e300}}));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.error().message, HasSubstr("schedule.everyMs: 1e+300 is out of range"));
  // In range, but the first run would be after 9999: the shared check (cron tool, methods, CLI).
  auto far = cron_call(*h.sched, "add", agent_job("far", {{"kind", "every"}, {"everyMs", kScheduleMaxMs}}));
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().code, "CRON_JOB_INVALID");
  EXPECT_THAT(far.error().message, HasSubstr("schedule.everyMs: '253402300799999' is too long: the first run would "
                                             "fall after 9999-12-31T23:59:59Z"));
  ASSERT_TRUE(cron_call(*h.sched, "add", agent_job("ok", {{"kind", "every"}, {"everyMs", 60000}})).ok());
  auto patched = cron_call(*h.sched, "update", {{"id", "ok"}, {"patch", {{"schedule", {{"everyMs", 9e18}}}}}});
  ASSERT_FALSE(patched.ok());
  EXPECT_THAT(patched.error().message, HasSubstr("schedule.everyMs: 9e+18 is out of range"));
  EXPECT_EQ(h.sched->store().jobs().size(), 1u);
}

TEST(CronValidation, AStoredJobPastTheLimitIsReportedAndDisabledNeverRunInALoop) {
  Harness h("every-file-far", utc("2026-12-06T00:00:00Z"));
  json job = agent_job("ovf", {{"kind", "every"}, {"everyMs", INT64_MAX}});
  job["state"] = {{"nextRunAtMs", -9223370240278563277LL}, {"lastRunAtMs", utc("2026-12-05T23:59:00Z")}};
  h.write(json{{"version", 1}, {"jobs", json::array({job})}}.dump());
  ASSERT_TRUE(h.open().ok());
  ASSERT_EQ(h.sched->store().issues().size(), 1u);
  EXPECT_THAT(h.sched->store().issues()[0], HasSubstr("job 'ovf' (jobs[0]): schedule.everyMs: 9223372036854775807 is out of range"));
  EXPECT_FALSE(h.sched->armed_at_ms().has_value());
  for (int i = 0; i < 3; ++i) {
    h.now += 1000;
    h.sched->tick();
  }
  EXPECT_TRUE(h.started.empty()) << "never run";
  auto forced = cron_call(*h.sched, "run", {{"id", "ovf"}, {"mode", "force"}});
  EXPECT_FALSE(forced.ok()) << "an invalid job is not run by hand either";
  EXPECT_TRUE(h.started.empty());
}

}  // namespace
}  // namespace cron_validation_test
}  // namespace pincer::automation
