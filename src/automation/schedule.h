// Schedules of cron jobs (AT-2) in OpenClaw's job model: `{kind:"at", at}`,
// `{kind:"every", everyMs, anchorMs?}`, `{kind:"cron", expr, tz?, staggerMs?}`. Times are Unix
// milliseconds (UTC instants); a cron expression is evaluated in the job's IANA zone from the
// system tz database (date/tz over /usr/share/zoneinfo), so 08:00 stays 08:00 across DST.
//
// DST, as croner (OpenClaw's library) documents it: a wall time that does not exist (the
// spring-forward gap) is skipped; a wall time that exists twice (fall-back overlap) runs once, at
// its first occurrence. An `at` time written without an offset is read in the job's zone; inside
// a gap it moves forward by the gap, in an overlap it is the first occurrence.
//
// Pure apart from reading zone files (cached by date/tz); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "automation/cron_expr.h"
#include "core/result.h"

namespace pincer::automation {

/// The last instant a schedule may have: 9999-12-31T23:59:59.999Z (the ISO parser's last year).
/// Every schedule field (everyMs, anchorMs, staggerMs, at) is at most this, checked before any
/// arithmetic; next_run_after never answers a run after it.
inline constexpr int64_t kScheduleMaxMs = 253'402'300'799'999;
inline constexpr const char* kScheduleMaxText = "9999-12-31T23:59:59Z";

/// OpenClaw's default stagger window for recurring top-of-hour cron expressions (5 minutes).
inline constexpr int64_t kDefaultTopOfHourStaggerMs = 300'000;

struct Schedule {
  enum class Kind { At, Every, Cron };
  Kind kind = Kind::Cron;
  // at
  std::string at;              ///< as written (ISO 8601)
  int64_t at_ms = 0;           ///< resolved instant
  // every
  int64_t every_ms = 0;
  std::optional<int64_t> anchor_ms;
  // cron
  std::string expr;
  std::string tz;              ///< IANA zone as written; empty = the default zone given at parse
  std::optional<int64_t> stagger_ms;  ///< explicit; nullopt = OpenClaw's default rule
  CronExpr cron;
  std::string zone;            ///< the zone actually used (tz, or the default)
};

/// True when `name` is a zone in the system database.
bool is_known_zone(std::string_view name);
/// The host's zone (from /etc/localtime, TZ is honoured by date/tz), "UTC" when unknown.
std::string host_zone();

/// The UTC offset in seconds of `zone` at `unix_ms`; nullopt for an unknown zone.
std::optional<int> zone_offset_seconds(std::string_view zone, int64_t unix_ms);

/// `unix_ms` as ISO 8601 in `zone` with its offset, to the second: "2026-12-05T20:30:00+01:00";
/// "…Z" for UTC, an empty or unknown zone. For logs and messages (a log line never shows epoch ms).
std::string format_instant(int64_t unix_ms, std::string_view zone);

/// `unix_ms` to the minute as a person reads it, with the zone named: "2026-12-05 20:30 Europe/Berlin"
/// in `zone` (its IANA name as the label); for an empty `zone` the host's zone (host_zone())
/// labelled with its abbreviation, "2026-12-05 20:30 CET" ("UTC-03" where the abbreviation is only
/// an offset); "… UTC" for an unknown zone. For `pincer cron list|add` and other CLI output.
std::string format_wall_minute(int64_t unix_ms, std::string_view zone = {});

/// Reads OpenClaw's schedule object. `default_zone` is used for a cron schedule without `tz` and
/// an `at` without offset (empty = the host's zone). Errors (SCHEDULE_INVALID) name the field:
/// "schedule.expr: hour: 24 is out of range 0-23", "schedule.tz: unknown time zone 'Mars/Base'".
Result<Schedule> parse_schedule(const nlohmann::json& j, std::string_view default_zone = {});

/// OpenClaw's shape of `s` (the fields as written).
nlohmann::json schedule_to_json(const Schedule& s);

/// Parses an ISO 8601 instant: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` (T or a space), with
/// `Z` or `±HH:MM` / `±HHMM`, or without (then civil time in `zone`). nullopt when malformed.
std::optional<int64_t> parse_iso_instant(std::string_view text, std::string_view zone);

/// The next time strictly after `after_ms` (second resolution) at which `expr` matches in
/// `zone`, or nullopt (no match within 30 years, unknown zone).
std::optional<int64_t> cron_next_after(const CronExpr& expr, std::string_view zone, int64_t after_ms);

/// OpenClaw's stagger rule: an explicit `staggerMs`, else 5 minutes for expressions that run at
/// the top of every (or every n-th) hour — minute (and second) `0` and an hour field with `*` —
/// else 0.
int64_t effective_stagger_ms(const Schedule& s);
/// The job's fixed offset inside the stagger window: the first 4 bytes of SHA-256(job id), big
/// endian, modulo the window (0 for windows <= 1 ms) — the same offset OpenClaw computes.
int64_t stagger_offset_ms(std::string_view job_id, int64_t stagger_ms);

/// The next run strictly after `now_ms`. `job_id` selects the stagger offset of cron schedules;
/// `created_at_ms` anchors an `every` without `anchorMs`. nullopt when there is none (an `at` in
/// the past, a cron expression that never matches, a run after kScheduleMaxMs). Never wraps.
std::optional<int64_t> next_run_after(const Schedule& s, std::string_view job_id, int64_t now_ms,
                                      std::optional<int64_t> created_at_ms = std::nullopt);

/// How far ahead a cron expression must have a run, and how far in the past an `at` may be, for a
/// job being added or given a new schedule (a minute, as OpenClaw's cron.add).
inline constexpr int kScheduleHorizonYears = 5;
inline constexpr int64_t kPastAtToleranceMs = 60'000;

/// Why a schedule can never fire.
struct ScheduleProblem {
  std::string field;  ///< "schedule.expr", "schedule.at" or "schedule.everyMs"
  /// Without the value: "never runs: no time in the next 5 years matches it (the first is …)",
  /// "is in the past (2020-01-01 08:00 UTC, 3 days ago; now …): give a future time".
  std::string why;
};

/// Why `s` can never fire from `now_ms` on, or nullopt: a cron expression with no time within
/// kScheduleHorizonYears, an `at` more than kPastAtToleranceMs before `now_ms`, an `at` or the first
/// run of an `every` after kScheduleMaxMs. Times are shown in `shown_zone` (format_wall_minute). The one check of the cron
/// tool, cron.add/cron.update (check_cron_job_fires, cron_job.h) and `pincer cron add|edit`.
std::optional<ScheduleProblem> schedule_never_fires(const Schedule& s, int64_t now_ms, std::string_view shown_zone);

}  // namespace pincer::automation
