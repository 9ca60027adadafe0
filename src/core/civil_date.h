// Civil dates (proleptic Gregorian, no time zone) ↔ days since 1970-01-01, without the C
// library's time zone state: Howard Hinnant's days_from_civil / civil_from_days algorithms
// (http://howardhinnant.github.io/date_algorithms.html). Used by transcript timestamps, HTTP
// dates (Retry-After), memory note dates and the daily notes. Pure; any thread.
#pragma once

#include <cstdint>

namespace pincer::civil {

struct Date {
  int64_t year = 1970;
  unsigned month = 1;  ///< 1..12
  unsigned day = 1;    ///< 1..31
};

/// Days since 1970-01-01 of year `y`, month `m` (1..12), day `d` (1..31); not range-checked.
constexpr int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

/// The civil date of day `z` since 1970-01-01 (negative = before).
constexpr Date civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

static_assert(days_from_civil(1970, 1, 1) == 0 && days_from_civil(2000, 3, 1) == 11017);
static_assert(civil_from_days(11017).year == 2000 && civil_from_days(11017).month == 3 && civil_from_days(-1).day == 31);

}  // namespace pincer::civil
