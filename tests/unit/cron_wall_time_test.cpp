// automation::format_wall_minute: times for people, with the zone named.
#include <gtest/gtest.h>

#include <cstdlib>

#include "automation/schedule.h"

namespace {

using pincer::automation::format_wall_minute;

// 2026-12-05T19:30:00Z
constexpr int64_t kWallMs = 1'796'499'000'000;

TEST(CronWallTime, AZoneGivenIsNamedByItsIanaName) {
  EXPECT_EQ(format_wall_minute(kWallMs, "Europe/Berlin"), "2026-12-05 20:30 Europe/Berlin");
  EXPECT_EQ(format_wall_minute(kWallMs + 59'999, "America/New_York"), "2026-12-05 14:30 America/New_York");
  EXPECT_EQ(format_wall_minute(kWallMs, "Mars/Base"), "2026-12-05 19:30 UTC");  // unknown: UTC, said so
}

TEST(CronWallTime, TheHostZoneIsNamedByItsAbbreviation) {
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  ::setenv("TZ", "Europe/Berlin", 1);
  EXPECT_EQ(format_wall_minute(kWallMs), "2026-12-05 20:30 CET");
  EXPECT_EQ(format_wall_minute(kWallMs + 180LL * 86'400'000), "2027-06-03 21:30 CEST");
  ::setenv("TZ", "America/Sao_Paulo", 1);  // an abbreviation that is only an offset
  EXPECT_EQ(format_wall_minute(kWallMs), "2026-12-05 16:30 UTC-03");
  if (old) ::setenv("TZ", saved.c_str(), 1);
  else ::unsetenv("TZ");
}

}  // namespace
