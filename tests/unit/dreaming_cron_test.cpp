// Dreaming's managed sweep job (SPEC DR-1) on a real cron scheduler and job file: added when
// dreaming is enabled, updated when its frequency or zone changes, duplicates pruned, removed when
// disabled; a user's own jobs are never touched.
#include <gtest/gtest.h>

#include <unistd.h>

#include "automation/scheduler.h"
#include "core/event_loop.h"
#include "core/ids.h"
#include "memory/dreaming/managed_cron.h"

namespace pincer::memory::dreaming {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct DreamCronDir {
  fs::path dir = fs::temp_directory_path() / ("pincer-dreamcron-" + ids::uuid_v4());
  ~DreamCronDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::vector<const automation::CronJob*> managed_jobs(const automation::CronScheduler& s) {
  std::vector<const automation::CronJob*> out;
  for (const auto& j : s.store().jobs()) {
    if (is_managed_dreaming_job(j.raw)) out.push_back(&j);
  }
  return out;
}

TEST(DreamingCron, OneManagedJobFollowsTheSettings) {
  DreamCronDir d;
  EventLoop loop{1};
  int64_t now = 1'772'366'400'000;  // 2026-03-01T12:00:00Z
  automation::CronScheduler sched(loop, [&now] { return now; }, d.dir, {});
  ASSERT_TRUE(sched.open_offline());
  ASSERT_TRUE(sched.add(json{{"name", "water the plants"},
                             {"schedule", {{"kind", "cron"}, {"expr", "0 9 * * *"}}},
                             {"sessionTarget", "isolated"},
                             {"payload", {{"kind", "agentTurn"}, {"message", "water"}}}}));

  DreamingSettings off;  // disabled by default: nothing added
  EXPECT_TRUE(apply_dreaming_cron(sched, off).empty());
  EXPECT_TRUE(managed_jobs(sched).empty());

  DreamingSettings on;
  on.enabled = true;
  on.timezone = "UTC";
  const auto added = apply_dreaming_cron(sched, on);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].rfind("added", 0), 0u) << added[0];
  auto m = managed_jobs(sched);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->name, kManagedCronName);
  EXPECT_EQ(m[0]->schedule.expr, "0 3 * * *");
  ASSERT_TRUE(m[0]->state.next_run_at_ms);
  EXPECT_EQ(*m[0]->state.next_run_at_ms, 1'772'420'400'000);  // 2026-03-02T03:00:00Z
  EXPECT_EQ(m[0]->payload.text, kSweepToken);
  EXPECT_TRUE(apply_dreaming_cron(sched, on).empty()) << "nothing to change";

  on.frequency = "30 4 * * *";
  on.timezone = "Europe/Berlin";
  const auto updated = apply_dreaming_cron(sched, on);
  ASSERT_EQ(updated.size(), 1u);
  EXPECT_EQ(updated[0].rfind("updated", 0), 0u) << updated[0];
  m = managed_jobs(sched);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->schedule.expr, "30 4 * * *");
  EXPECT_EQ(m[0]->schedule.tz, "Europe/Berlin");

  // A duplicate (a copied jobs.json) is pruned, the oldest kept.
  const std::string first = m[0]->id;
  now += 1000;
  ASSERT_TRUE(sched.add(desired_dreaming_job(on)));
  EXPECT_EQ(managed_jobs(sched).size(), 2u);
  (void)apply_dreaming_cron(sched, on);
  m = managed_jobs(sched);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->id, first);

  const auto removed = apply_dreaming_cron(sched, off);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].rfind("removed", 0), 0u) << removed[0];
  EXPECT_TRUE(managed_jobs(sched).empty());
  ASSERT_EQ(sched.store().jobs().size(), 1u);
  EXPECT_EQ(sched.store().jobs()[0].name, "water the plants");
}

}  // namespace
}  // namespace pincer::memory::dreaming
