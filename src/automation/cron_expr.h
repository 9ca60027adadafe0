// Cron expressions (AT-2): our own parser and matcher for the dialect of `croner`, the library
// OpenClaw uses, so a job file written for OpenClaw means the same here. Pure; any thread.
//
// Accepted: 5 fields (minute hour day-of-month month day-of-week; seconds = 0) or 6 (seconds
// first); in each field `*`, numbers, `a-b`, `*/n`, `a-b/n` and comma lists; month names JAN–DEC
// and day names SUN–SAT (any case); day-of-week 0–7 (0 and 7 = Sunday); `?` as `*`; `L` in
// day-of-month (last day, also in a list: `15,L`); in day-of-week `d#n` (n-th weekday d of the
// month, 1–5), `d#L` / `dL` (the last one); the nicknames @yearly @annually @monthly @weekly
// @daily @midnight @hourly. Day-of-month and day-of-week combine as in Vixie cron and croner:
// when both are restricted a day matching either runs; a field counts as unrestricted only when
// it is exactly `*` (or `?`: croner treats `?` in day-of-month as restricting, which makes
// `0 8 ? * MON` run daily; we treat it as `*`, the meaning users write it for).
// Refused, with a message naming the field: `W`, `LW`, `+`, a year field, numeric step prefixes
// (`5/15`: croner refuses them too), reversed ranges, steps of 0 or above the field's size, values
// out of range.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace pincer::automation {

/// A civil (wall-clock) time in some zone; fields as on a calendar: month 1–12, day 1–31.
struct CivilTime {
  int year = 1970;
  int month = 1;
  int day = 1;
  int hour = 0;
  int minute = 0;
  int second = 0;
};

/// A parsed expression: which seconds, minutes, hours, days, months and weekdays match.
struct CronExpr {
  std::bitset<60> seconds;
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;        ///< index 1–31
  std::bitset<13> months;      ///< index 1–12
  /// Per weekday (0 = Sunday): 0 = not listed; bit k-1 = the k-th of the month (k = 1–5);
  /// bit 5 = the last of the month; 63 = any.
  uint8_t weekdays[7] = {0, 0, 0, 0, 0, 0, 0};
  bool last_day_of_month = false;  ///< `L` in day-of-month
  bool any_day_of_month = false;   ///< day-of-month was `*` / `?`
  bool any_weekday = false;        ///< day-of-week was `*` / `?`
  bool has_seconds = false;        ///< written with 6 fields

  /// Whether the calendar day matches (month, day-of-month, day-of-week rules).
  bool matches_day(int year, int month, int day) const;
};

/// Parses `expr` (surrounding and repeated blanks allowed). Errors: CRON_INVALID with a message
/// naming the field and the offending part, e.g. `hour: 24 is out of range 0-23`.
Result<CronExpr> parse_cron_expr(std::string_view expr);

/// The first civil time >= `from` (second resolution) matching `expr`, searching at most
/// `max_years` ahead; false when there is none (e.g. `0 0 30 2 *`).
bool next_civil_match(const CronExpr& expr, const CivilTime& from, CivilTime& out, int max_years = 30);

/// Days in `month` of `year` (Gregorian).
int days_in_month(int year, int month);
/// Day of week of a civil date, 0 = Sunday.
int weekday_of(int year, int month, int day);

}  // namespace pincer::automation
