// Schedules of cron jobs (AT-2, src/automation/): cron expressions in the job's zone across DST
// gaps and overlaps in two zones, a job in Asia/Shanghai on a UTC host, `at` and `every`,
// OpenClaw's top-of-hour stagger, errors naming the field. The random comparison with croner is
// tests/automation/cron_differential.test.mjs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "automation/cron_expr.h"
#include "automation/schedule.h"

namespace pincer::automation {
namespace {

int64_t at_utc(const char* iso) {
  auto ms = parse_iso_instant(iso, "UTC");
  EXPECT_TRUE(ms.has_value()) << iso;
  return ms.value_or(0);
}

int64_t next_of(const char* expr, const char* zone, const char* after) {
  auto e = parse_cron_expr(expr);
  EXPECT_TRUE(e.ok()) << expr;
  if (!e) return -1;
  return cron_next_after(*e, zone, at_utc(after)).value_or(-1);
}

TEST(CronSchedule, SpringForwardGapIsSkippedInNewYork) {
  // 2026-03-08 02:00 EST -> 03:00 EDT: 02:30 does not exist that day.
  EXPECT_EQ(next_of("30 2 * * *", "America/New_York", "2026-03-06T12:00:00Z"), at_utc("2026-03-07T07:30:00Z"));
  EXPECT_EQ(next_of("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z"), at_utc("2026-03-09T06:30:00Z"));
  // Every 30 minutes runs on, from the first wall time after the jump.
  EXPECT_EQ(next_of("*/30 * * * *", "America/New_York", "2026-03-08T06:45:00Z"), at_utc("2026-03-08T07:00:00Z"));
}

TEST(CronSchedule, FallBackOverlapRunsOnceInNewYork) {
  // 2026-11-01 02:00 EDT -> 01:00 EST: 01:30 happens twice and runs at the first.
  EXPECT_EQ(next_of("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z"), at_utc("2026-11-01T05:30:00Z"));
  EXPECT_EQ(next_of("30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z"), at_utc("2026-11-02T06:30:00Z"));
  // From inside the repeated hour, the next run is the first wall time after it.
  EXPECT_EQ(next_of("* * * * * *", "America/New_York", "2030-11-03T06:55:18Z"), at_utc("2030-11-03T07:00:00Z"));
}

TEST(CronSchedule, BerlinKeepsWallTimeAcrossBothChanges) {
  // 2026-03-29 02:00 CET -> 03:00 CEST; 2026-10-25 03:00 CEST -> 02:00 CET.
  EXPECT_EQ(next_of("0 8 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z"), at_utc("2026-03-28T07:00:00Z"));
  EXPECT_EQ(next_of("0 8 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z"), at_utc("2026-03-29T06:00:00Z"));
  EXPECT_EQ(next_of("*/30 * * * *", "Europe/Berlin", "2026-03-29T00:45:00Z"), at_utc("2026-03-29T01:00:00Z"));
  EXPECT_EQ(next_of("0 8 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z"), at_utc("2026-10-25T07:00:00Z"));
  // Hourly: 02:00 CEST runs, the repeated 02:00 CET does not, 03:00 CET does.
  EXPECT_EQ(next_of("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z"), at_utc("2026-10-25T00:00:00Z"));
  EXPECT_EQ(next_of("0 * * * *", "Europe/Berlin", "2026-10-25T00:30:00Z"), at_utc("2026-10-25T02:00:00Z"));
}

TEST(CronSchedule, JobZoneIsUsedWhateverTheHostZone) {
  const char* old = std::getenv("TZ");
  std::string saved = old != nullptr ? old : "";
  ::setenv("TZ", "UTC", 1);
  EXPECT_EQ(next_of("0 8 * * *", "Asia/Shanghai", "2026-05-31T23:00:00Z"), at_utc("2026-06-01T00:00:00Z"));
  auto s = parse_schedule(nlohmann::json{{"kind", "cron"}, {"expr", "0 8 * * *"}}, "Asia/Shanghai");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->zone, "Asia/Shanghai");
  EXPECT_EQ(next_run_after(*s, "job-1", at_utc("2026-06-01T00:00:00Z")), at_utc("2026-06-02T00:00:00Z"));
  if (old != nullptr) ::setenv("TZ", saved.c_str(), 1);
  else ::unsetenv("TZ");
}

TEST(CronSchedule, DialectOfCroner) {
  EXPECT_EQ(next_of("0 9 L * *", "UTC", "2026-02-01T00:00:00Z"), at_utc("2026-02-28T09:00:00Z"));
  EXPECT_EQ(next_of("0 9 * * MON#2", "UTC", "2026-06-01T00:00:00Z"), at_utc("2026-06-08T09:00:00Z"));
  EXPECT_EQ(next_of("0 9 * * 5L", "UTC", "2026-06-01T00:00:00Z"), at_utc("2026-06-26T09:00:00Z"));
  // Both day fields restricted: either matches (1st of the month or a Monday).
  EXPECT_EQ(next_of("0 0 1 * 1", "UTC", "2026-06-02T00:00:00Z"), at_utc("2026-06-08T00:00:00Z"));
  EXPECT_EQ(next_of("@daily", "UTC", "2026-06-02T10:00:00Z"), at_utc("2026-06-03T00:00:00Z"));
  EXPECT_EQ(next_of("0 0 30 2 *", "UTC", "2026-06-02T00:00:00Z"), -1);  // never
  EXPECT_EQ(next_of("0 8 ? * MON", "UTC", "2026-06-02T00:00:00Z"), at_utc("2026-06-08T08:00:00Z"));
}

TEST(CronSchedule, ErrorsNameTheField) {
  auto bad = [](const char* expr) {
    auto r = parse_cron_expr(expr);
    return r.ok() ? std::string("(accepted)") : r.error().message;
  };
  EXPECT_NE(bad("0 24 * * *").find("hour: 24 is out of range 0-23"), std::string::npos) << bad("0 24 * * *");
  EXPECT_NE(bad("0 8 * * * * *").find("5 fields"), std::string::npos);
  EXPECT_NE(bad("5/15 * * * *").find("minute"), std::string::npos);
  EXPECT_NE(bad("0 0 1W * *").find("day of month"), std::string::npos);
  EXPECT_NE(bad("0 0 * * MON#6").find("day of week"), std::string::npos);
  auto s = parse_schedule(nlohmann::json{{"kind", "cron"}, {"expr", "0 8 * * *"}, {"tz", "Mars/Base"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "schedule.tz: unknown time zone 'Mars/Base'");
  s = parse_schedule(nlohmann::json{{"kind", "cron"}, {"expr", "0 25 * * *"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "schedule.expr: hour: 25 is out of range 0-23");
  s = parse_schedule(nlohmann::json{{"kind", "every"}, {"everyMs", 0}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("schedule.everyMs"), std::string::npos);
  s = parse_schedule(nlohmann::json{{"kind", "weekly"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("schedule.kind"), std::string::npos);
}

TEST(CronSchedule, AtWithoutOffsetIsTheJobZone) {
  EXPECT_EQ(parse_iso_instant("2026-01-01T08:00:00+01:00", "UTC"), at_utc("2026-01-01T07:00:00Z"));
  EXPECT_EQ(parse_iso_instant("2026-01-01T08:00", "Asia/Shanghai"), at_utc("2026-01-01T00:00:00Z"));
  // In the New York gap: moved forward by the gap; in the overlap: the first occurrence.
  EXPECT_EQ(parse_iso_instant("2026-03-08T02:30", "America/New_York"), at_utc("2026-03-08T07:30:00Z"));
  EXPECT_EQ(parse_iso_instant("2026-11-01T01:30", "America/New_York"), at_utc("2026-11-01T05:30:00Z"));
  EXPECT_EQ(parse_iso_instant("2026-02-30T08:00Z", "UTC"), std::nullopt);
  EXPECT_EQ(parse_iso_instant("tomorrow", "UTC"), std::nullopt);
  auto s = parse_schedule(nlohmann::json{{"kind", "at"}, {"at", "2026-07-01T09:00"}}, "Europe/Berlin");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(next_run_after(*s, "x", at_utc("2026-06-30T00:00:00Z")), at_utc("2026-07-01T07:00:00Z"));
  EXPECT_EQ(next_run_after(*s, "x", at_utc("2026-07-02T00:00:00Z")), std::nullopt);  // past: no run
}

TEST(CronSchedule, EveryFromItsAnchor) {
  auto s = parse_schedule(nlohmann::json{{"kind", "every"}, {"everyMs", 60000}, {"anchorMs", 1000}});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(next_run_after(*s, "x", 0), 1000);
  EXPECT_EQ(next_run_after(*s, "x", 1000), 61000);
  EXPECT_EQ(next_run_after(*s, "x", 60999), 61000);
  EXPECT_EQ(schedule_to_json(*s), (nlohmann::json{{"kind", "every"}, {"everyMs", 60000}, {"anchorMs", 1000}}));
}

TEST(CronSchedule, TopOfHourStaggerAsOpenClaw) {
  // Offsets from OpenClaw's rule: sha256(id)[0..4] big-endian % window (checked with node:crypto).
  EXPECT_EQ(stagger_offset_ms("job-1", 300000), 47897);
  EXPECT_EQ(stagger_offset_ms("water-plants", 300000), 90512);
  EXPECT_EQ(stagger_offset_ms("job-1", 1), 0);
  auto cron = [](const char* expr, std::optional<int64_t> stagger = std::nullopt) {
    nlohmann::json j{{"kind", "cron"}, {"expr", expr}, {"tz", "UTC"}};
    if (stagger) j["staggerMs"] = *stagger;
    return parse_schedule(j).value();
  };
  EXPECT_EQ(effective_stagger_ms(cron("0 * * * *")), kDefaultTopOfHourStaggerMs);
  EXPECT_EQ(effective_stagger_ms(cron("0 */2 * * *")), kDefaultTopOfHourStaggerMs);
  EXPECT_EQ(effective_stagger_ms(cron("0 0 * * * *")), kDefaultTopOfHourStaggerMs);
  EXPECT_EQ(effective_stagger_ms(cron("0 8 * * *")), 0);
  EXPECT_EQ(effective_stagger_ms(cron("0 9-17 * * *")), 0);
  EXPECT_EQ(effective_stagger_ms(cron("0 * * * *", 0)), 0);
  EXPECT_EQ(next_run_after(cron("0 * * * *"), "job-1", at_utc("2026-01-01T00:00:00Z")), at_utc("2026-01-01T00:00:47.897Z"));
  EXPECT_EQ(next_run_after(cron("0 * * * *"), "job-1", at_utc("2026-01-01T00:00:47.897Z")), at_utc("2026-01-01T01:00:47.897Z"));
  EXPECT_EQ(next_run_after(cron("0 8 * * *"), "job-1", at_utc("2026-01-01T00:00:00Z")), at_utc("2026-01-01T08:00:00Z"));
}

}  // namespace
}  // namespace pincer::automation
