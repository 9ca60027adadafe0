// libFuzzer target for cron expressions and schedule times (src/automation/): arbitrary bytes
// as an expression (and as an ISO time) must be refused with a message or accepted, never crash
// or hang; for an accepted expression the next run in a zone picked by the input is after the
// start and is a wall time the expression matches.
#include <date/date.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "automation/cron_expr.h"
#include "automation/schedule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pincer::automation;
  if (size < 5) return 0;
  static const char* kZones[] = {"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                                 "Pacific/Chatham", "Asia/Shanghai", "America/Santiago", "Asia/Kathmandu"};
  const char* zone = kZones[data[0] % 8];
  // 2000-01-01 .. ~2036, from four bytes.
  const int64_t after = 946684800000LL + static_cast<int64_t>((uint32_t{data[1]} << 24) | (uint32_t{data[2]} << 16) |
                                                               (uint32_t{data[3]} << 8) | data[4]) * 271LL;
  const std::string text(reinterpret_cast<const char*>(data + 5), size - 5);
  (void)parse_iso_instant(text, zone);
  auto expr = parse_cron_expr(text);
  if (!expr) {
    if (expr.error().message.empty()) std::abort();
    return 0;
  }
  auto next = cron_next_after(*expr, zone, after);
  if (!next) return 0;
  if (*next <= after || *next % 1000 != 0) std::abort();
  auto offset = zone_offset_seconds(zone, *next);
  if (!offset) std::abort();
  const date::sys_seconds wall{std::chrono::seconds{*next / 1000 + *offset}};
  const auto day = date::floor<date::days>(wall);
  const date::year_month_day ymd{day};
  const date::hh_mm_ss<std::chrono::seconds> t{wall - day};
  if (!expr->matches_day(static_cast<int>(ymd.year()), static_cast<int>(static_cast<unsigned>(ymd.month())),
                         static_cast<int>(static_cast<unsigned>(ymd.day()))) ||
      !expr->hours[static_cast<size_t>(t.hours().count())] || !expr->minutes[static_cast<size_t>(t.minutes().count())] ||
      !expr->seconds[static_cast<size_t>(t.seconds().count())])
    std::abort();
  return 0;
}
