// The cron job file (AT-2, src/automation/cron_store.h): OpenClaw's v1 jobs.json read and
// written back (unknown fields kept), invalid jobs kept, disabled and reported with the job and
// the field, add/update/remove, a non-JSON file left untouched, bounded run history.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "automation/cron_plan.h"
#include "automation/cron_store.h"

namespace pincer::automation {
namespace {

struct TempCronDir {
  std::filesystem::path path;
  explicit TempCronDir(const char* name) {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("pincer-cron-" + std::string(name) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempCronDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& text) const { std::ofstream(path / "jobs.json") << text; }
  std::string read(const char* file = "jobs.json") const {
    std::ifstream in(path / file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

constexpr int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z

const char* kFile = R"({
  "version": 1,
  "jobs": [
    {"id": "water", "name": "Water the plants", "enabled": true, "createdAtMs": 1, "updatedAtMs": 1,
     "schedule": {"kind": "cron", "expr": "0 8 * * *", "tz": "Europe/Berlin"},
     "sessionTarget": "isolated", "wakeMode": "now",
     "payload": {"kind": "agentTurn", "message": "Remind me to water the plants", "lightContext": true},
     "delivery": {"mode": "announce", "channel": "telegram", "to": "12345"},
     "futureOption": {"kept": true}},
    {"id": "broken", "name": "Broken", "enabled": true,
     "schedule": {"kind": "cron", "expr": "0 25 * * *"},
     "sessionTarget": "main", "payload": {"kind": "systemEvent", "text": "x"}},
    {"id": "nopayload", "schedule": {"kind": "every", "everyMs": 60000}}
  ]
})";

TEST(CronStore, ReadsOpenClawsFileAndKeepsInvalidJobsDisabled) {
  TempCronDir dir("read");
  dir.write(kFile);
  CronStore store(dir.path, "UTC");
  ASSERT_TRUE(store.load().ok());
  ASSERT_EQ(store.jobs().size(), 3u);
  const CronJob* water = store.find("water");
  ASSERT_NE(water, nullptr);
  EXPECT_TRUE(water->invalid.empty()) << water->invalid;
  EXPECT_TRUE(water->isolated);
  EXPECT_EQ(water->payload.kind, CronPayload::Kind::AgentTurn);
  EXPECT_EQ(water->delivery.mode, CronDelivery::Mode::Announce);
  EXPECT_EQ(water->delivery.to, "12345");
  EXPECT_EQ(water->schedule.zone, "Europe/Berlin");
  EXPECT_EQ(cron_session_key(*water), "cron:water");

  const auto issues = store.issues();
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0], "job 'broken' (jobs[1]): schedule.expr: hour: 25 is out of range 0-23 (kept, disabled)");
  EXPECT_EQ(issues[1], "job 'nopayload' (jobs[2]): payload: required: {kind: \"systemEvent\", text} or "
                       "{kind: \"agentTurn\", message} (kept, disabled)");
  EXPECT_FALSE(store.find("broken")->enabled);

  // Written back: the invalid jobs exactly as they were, unknown fields kept.
  ASSERT_TRUE(store.save().ok());
  auto doc = nlohmann::json::parse(dir.read());
  EXPECT_EQ(doc["version"], 1);
  ASSERT_EQ(doc["jobs"].size(), 3u);
  EXPECT_EQ(doc["jobs"][0]["futureOption"]["kept"], true);
  EXPECT_EQ(doc["jobs"][0]["payload"]["lightContext"], true);
  EXPECT_EQ(doc["jobs"][1], nlohmann::json::parse(kFile)["jobs"][1]);
  EXPECT_EQ(doc["jobs"][2], nlohmann::json::parse(kFile)["jobs"][2]);
}

TEST(CronStore, ErrorsNameJobAndField) {
  auto error_of = [](const nlohmann::json& j) {
    auto r = parse_cron_job(j, "jobs[0]", "UTC");
    return r.ok() ? std::string("(accepted)") : r.error().message;
  };
  nlohmann::json base = nlohmann::json::parse(kFile)["jobs"][0];
  auto with = [&](const char* pointer, nlohmann::json value) {
    nlohmann::json j = base;
    j[nlohmann::json::json_pointer(pointer)] = std::move(value);
    return j;
  };
  EXPECT_EQ(error_of(with("/sessionTarget", "main")),
            "job 'water' (jobs[0]): sessionTarget: \"main\" takes a systemEvent payload (use \"isolated\" for agentTurn)");
  EXPECT_EQ(error_of(with("/delivery/mode", "shout")),
            "job 'water' (jobs[0]): delivery.mode: expected \"announce\", \"webhook\" or \"none\"");
  EXPECT_EQ(error_of(with("/schedule/tz", "Mars/Base")), "job 'water' (jobs[0]): schedule.tz: unknown time zone 'Mars/Base'");
  EXPECT_EQ(error_of(with("/enabled", "yes")), "job 'water' (jobs[0]): enabled: expected true or false");
  EXPECT_EQ(error_of(with("/id", "../../etc")), "jobs[0]: id: required, 1-128 letters, digits, '-', '_' or '.'");
  EXPECT_EQ(error_of(with("/delivery", nlohmann::json{{"mode", "webhook"}, {"to", "ftp://x"}})),
            "job 'water' (jobs[0]): delivery.to: a webhook delivery needs an http(s) URL");
}

TEST(CronStore, AddUpdateRemoveAreSavedAtomically) {
  TempCronDir dir("edit");
  CronStore store(dir.path, "Asia/Shanghai");
  ASSERT_TRUE(store.load().ok());  // no file yet: empty
  auto added = store.add(nlohmann::json{{"name", "Morning"},
                                        {"schedule", {{"kind", "cron"}, {"expr", "0 8 * * *"}}},
                                        {"payload", {{"kind", "systemEvent"}, {"text", "Good morning"}}}},
                         kNow);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->id.size(), 36u);  // a uuid
  EXPECT_FALSE(added->isolated);     // systemEvent: the main session
  EXPECT_EQ(added->state.next_run_at_ms, kNow + 86400000);  // 08:00 in Shanghai is 00:00Z: the next day
  CronStore reread(dir.path, "Asia/Shanghai");
  ASSERT_TRUE(reread.load().ok());
  ASSERT_NE(reread.find(added->id), nullptr);
  EXPECT_EQ(reread.find(added->id)->created_at_ms, kNow);

  auto updated = store.update(added->id, nlohmann::json{{"enabled", false}}, kNow + 1000);
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_FALSE(updated->enabled);
  EXPECT_FALSE(updated->state.next_run_at_ms.has_value());
  auto refused = store.update(added->id, nlohmann::json{{"schedule", {{"expr", "0 8 * *"}}}}, kNow);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("schedule.expr"), std::string::npos) << refused.error().message;
  EXPECT_EQ(store.find(added->id)->schedule.expr, "0 8 * * *");  // unchanged

  ASSERT_TRUE(store.remove(added->id).ok());
  EXPECT_EQ(store.remove(added->id).error().code, "NOT_FOUND");
  for (const auto& entry : std::filesystem::directory_iterator(dir.path))
    EXPECT_EQ(entry.path().filename(), "jobs.json") << "left behind: " << entry.path();
}

TEST(CronStore, AFileThatIsNotJsonIsLeftAlone) {
  TempCronDir dir("bad");
  dir.write("{ this is not json");
  CronStore store(dir.path, "UTC");
  auto st = store.load();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "CRON_FILE_INVALID");
  EXPECT_NE(st.error().message.find("jobs.json"), std::string::npos);
  EXPECT_EQ(dir.read(), "{ this is not json");
}

TEST(CronStore, RunHistoryIsBounded) {
  TempCronDir dir("runs");
  dir.write(kFile);
  CronStore store(dir.path, "UTC");
  ASSERT_TRUE(store.load().ok());
  for (int i = 0; i < 2 * static_cast<int>(kCronRunHistoryLines) + 15; ++i)
    ASSERT_TRUE(store.append_run("water", nlohmann::json{{"ts", i}, {"status", "ok"}}).ok());
  auto runs = store.runs("water", 1000);
  ASSERT_EQ(runs.size(), kCronRunHistoryLines);
  EXPECT_EQ(runs.front()["ts"], static_cast<int>(kCronRunHistoryLines) + 15);
  EXPECT_EQ(runs.back()["ts"], 2 * static_cast<int>(kCronRunHistoryLines) + 14);
  std::ifstream file(dir.path / "runs" / "water.jsonl");
  int lines = 0;
  for (std::string l; std::getline(file, l);) ++lines;
  EXPECT_LE(lines, 2 * static_cast<int>(kCronRunHistoryLines));  // trimmed on disk too
  EXPECT_EQ(store.runs("water", 3).size(), 3u);
  EXPECT_FALSE(store.append_run("broken", nlohmann::json{{"ts", 1}}).ok());  // invalid jobs have no history
}

}  // namespace
}  // namespace pincer::automation

namespace pincer::automation {
namespace {

CronJob job_of(const char* id, nlohmann::json schedule, std::optional<int64_t> next = std::nullopt) {
  nlohmann::json j{{"id", id}, {"schedule", std::move(schedule)},
                   {"payload", {{"kind", "systemEvent"}, {"text", "hello"}}}};
  auto job = parse_cron_job(j, "jobs[0]", "UTC");
  EXPECT_TRUE(job.ok()) << job.error().message;
  job->state.next_run_at_ms = next;
  return *job;
}

constexpr int64_t kDay = 86400000;
const nlohmann::json kDaily8 = {{"kind", "cron"}, {"expr", "0 8 * * *"}, {"tz", "UTC"}};

TEST(CronPlan, MissedRunsWhileDownRunOnceNotABurst) {
  // Due at 08:00 on 1 January; the gateway comes back on 4 January at 12:00: three runs missed.
  const int64_t due = kNow + 8 * 3600000, back = kNow + 3 * kDay + 12 * 3600000;
  std::vector<CronJob> jobs{job_of("daily", kDaily8, due), job_of("later", kDaily8, back + kDay)};
  auto run_now = plan_startup(jobs, back, MissedRuns::RunOnce);
  EXPECT_EQ(run_now, std::vector<std::string>{"daily"});
  EXPECT_EQ(jobs[0].state.next_run_at_ms, kNow + 4 * kDay + 8 * 3600000);  // the next 08:00, once
  EXPECT_EQ(jobs[1].state.next_run_at_ms, kNow + 4 * kDay + 8 * 3600000);

  std::vector<CronJob> skipped{job_of("daily", kDaily8, due)};
  EXPECT_TRUE(plan_startup(skipped, back, MissedRuns::Skip).empty());
  EXPECT_EQ(skipped[0].state.last_status, "skipped");
  EXPECT_EQ(skipped[0].state.next_run_at_ms, kNow + 4 * kDay + 8 * 3600000);
}

TEST(CronPlan, OneShotWhoseTimePassedRunsOnceAtStart) {
  std::vector<CronJob> jobs{job_of("once", {{"kind", "at"}, {"at", "2026-01-01T09:00:00Z"}})};
  EXPECT_EQ(plan_startup(jobs, kNow + kDay, MissedRuns::RunOnce), std::vector<std::string>{"once"});
  EXPECT_FALSE(jobs[0].state.next_run_at_ms.has_value());
  EXPECT_FALSE(next_after_run(jobs[0], kNow + kDay).has_value());
  jobs[0].state.last_run_at_ms = kNow + kDay;  // it ran: not again at the next start
  EXPECT_TRUE(plan_startup(jobs, kNow + 2 * kDay, MissedRuns::RunOnce).empty());
}

TEST(CronPlan, DueJobsWithinMaxConcurrentAndNoWakeWithoutJobs) {
  std::vector<CronJob> jobs{job_of("c", kDaily8, kNow + 3), job_of("a", kDaily8, kNow + 1),
                            job_of("b", kDaily8, kNow + 2), job_of("future", kDaily8, kNow + kDay)};
  EXPECT_EQ(due_jobs(jobs, kNow + 10, {}, 2), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(due_jobs(jobs, kNow + 10, {"a"}, 2), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(due_jobs(jobs, kNow + 10, {"a", "b"}, 2).empty());
  EXPECT_EQ(next_wake_ms(jobs), kNow + 1);
  jobs[1].enabled = false;
  EXPECT_EQ(next_wake_ms(jobs), kNow + 2);
  EXPECT_FALSE(next_wake_ms({}).has_value());
  EXPECT_EQ(next_after_run(jobs[0], kNow + 8 * 3600000), kNow + kDay + 8 * 3600000);
  auto every = job_of("every", {{"kind", "every"}, {"everyMs", 60000}});
  EXPECT_EQ(next_after_run(every, kNow + 5), kNow + 60005);
}

}  // namespace
}  // namespace pincer::automation
