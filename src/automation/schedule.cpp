#include "automation/schedule.h"

#include <date/tz.h>
#include <sodium.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <cstdlib>
#include <vector>

namespace pincer::automation {
namespace {

using std::chrono::seconds;
using sys_s = date::sys_seconds;
using local_s = date::local_seconds;

Error schedule_fail(std::string message) { return Error{"SCHEDULE_INVALID", std::move(message)}; }

const date::time_zone* find_zone(std::string_view name) {
  if (name.empty() || name.size() > 64) return nullptr;
  try {
    return date::locate_zone(std::string(name));
  } catch (const std::exception&) {
    return nullptr;  // unknown name, or no readable database
  }
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

CivilTime civil_of(local_s t) {
  auto day = date::floor<date::days>(t);
  date::year_month_day ymd{day};
  date::hh_mm_ss<seconds> hms{t - day};
  return CivilTime{static_cast<int>(ymd.year()), static_cast<int>(static_cast<unsigned>(ymd.month())),
                   static_cast<int>(static_cast<unsigned>(ymd.day())), static_cast<int>(hms.hours().count()),
                   static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count())};
}

local_s local_of(const CivilTime& c) {
  return local_s{date::local_days{date::year{c.year} / c.month / c.day}.time_since_epoch() +
                 std::chrono::hours{c.hour} + std::chrono::minutes{c.minute} + seconds{c.second}};
}

// Civil time in `z` → the instant: unique as is; in a gap moved forward by the gap (the offset
// before it); in an overlap the first occurrence.
sys_s resolve_local(const date::time_zone* z, local_s t) {
  auto info = z->get_info(t);
  return sys_s{t.time_since_epoch() - info.first.offset};
}

std::optional<int64_t> in_range(int64_t ms) { return ms <= kScheduleMaxMs ? std::optional<int64_t>(ms) : std::nullopt; }

std::string beyond_limit(const std::string& field, const std::string& value) {
  return field + ": " + value + " is out of range: a schedule's times end at " + kScheduleMaxText + " (at most " +
         std::to_string(kScheduleMaxMs) + " ms)";
}

}  // namespace

bool is_known_zone(std::string_view name) { return find_zone(name) != nullptr; }

std::string host_zone() {
  try {
    if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') {
      std::string_view name = tz[0] == ':' ? tz + 1 : tz;
      if (find_zone(name) != nullptr) return std::string(name);
    }
    return std::string(date::current_zone()->name());
  } catch (const std::exception&) {
    return "UTC";
  }
}

std::optional<int> zone_offset_seconds(std::string_view zone, int64_t unix_ms) {
  const date::time_zone* z = find_zone(zone);
  if (z == nullptr) return std::nullopt;
  auto info = z->get_info(sys_s{seconds{floor_div(unix_ms, 1000)}});
  return static_cast<int>(info.offset.count());
}

std::string format_instant(int64_t unix_ms, std::string_view zone) {
  const std::optional<int> offset = zone.empty() ? std::nullopt : zone_offset_seconds(zone, unix_ms);
  const int off = offset.value_or(0);
  const std::time_t secs = static_cast<std::time_t>(floor_div(unix_ms, 1000) + off);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (off == 0) return std::string(buf) + "Z";
  char tail[16];
  const int a = (off < 0 ? -off : off) % 86400;
  std::snprintf(tail, sizeof tail, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  return std::string(buf) + tail;
}

std::string format_wall_minute(int64_t unix_ms, std::string_view zone) {
  const std::string name = zone.empty() ? host_zone() : std::string(zone);
  const date::time_zone* z = find_zone(name);
  const sys_s instant{seconds{floor_div(unix_ms, 1000)}};
  std::string label = "UTC";
  int64_t offset = 0;
  if (z != nullptr) {
    const auto info = z->get_info(instant);
    offset = info.offset.count();
    label = zone.empty() ? info.abbrev : name;
    if (zone.empty() && !label.empty() && (label[0] == '+' || label[0] == '-')) label = "UTC" + label;
  }
  const CivilTime c = civil_of(local_s{instant.time_since_epoch() + seconds{offset}});
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d ", c.year, c.month, c.day, c.hour, c.minute);
  return buf + label;
}

std::optional<int64_t> parse_iso_instant(std::string_view raw, std::string_view zone) {
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()))) raw.remove_prefix(1);
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.remove_suffix(1);
  if (raw.empty()) return std::nullopt;
  if (raw.size() <= 16 && raw.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t v = std::stoll(std::string(raw));  // epoch milliseconds, as OpenClaw accepts
    return v > 0 ? std::optional<int64_t>(v) : std::nullopt;
  }
  static const std::regex kIso(
      R"(^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$)");
  std::cmatch m;
  if (!std::regex_match(raw.data(), raw.data() + raw.size(), m, kIso)) return std::nullopt;
  auto num = [&](int i) { return m[i].matched ? std::stoi(m[i].str()) : 0; };
  CivilTime c{num(1), num(2), num(3), num(4), num(5), num(6)};
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > days_in_month(c.year, c.month) || c.hour > 23 ||
      c.minute > 59 || c.second > 59)
    return std::nullopt;
  int64_t ms = 0;
  if (m[7].matched) ms = std::stoi((m[7].str().substr(1) + "00").substr(0, 3));
  const local_s local = local_of(c);
  if (m[8].matched) {
    std::string off = m[8].str();
    int64_t offset_s = 0;
    if (off != "Z" && off != "z") {
      std::string digits;
      for (char ch : off.substr(1))
        if (ch != ':') digits += ch;
      int oh = std::stoi(digits.substr(0, 2)), om = std::stoi(digits.substr(2, 2));
      if (oh > 23 || om > 59) return std::nullopt;
      offset_s = (oh * 3600 + om * 60) * (off[0] == '-' ? -1 : 1);
    }
    return (local.time_since_epoch().count() - offset_s) * 1000 + ms;
  }
  const date::time_zone* z = find_zone(zone.empty() ? std::string_view("UTC") : zone);
  if (z == nullptr) return std::nullopt;
  return resolve_local(z, local).time_since_epoch().count() * 1000 + ms;
}

std::optional<int64_t> cron_next_after(const CronExpr& expr, std::string_view zone, int64_t after_ms) {
  const date::time_zone* z = find_zone(zone);
  if (z == nullptr) return std::nullopt;
  const sys_s start{seconds{floor_div(after_ms, 1000) + 1}};
  local_s cursor = z->to_local(start);
  // Each round either answers or moves the cursor past a gap or an overlap: few rounds.
  for (int round = 0; round < 64; ++round) {
    CivilTime found;
    if (!next_civil_match(expr, civil_of(cursor), found)) return std::nullopt;
    const local_s wall = local_of(found);
    auto info = z->get_info(wall);
    if (info.result == date::local_info::nonexistent) {
      cursor = local_s{info.second.begin.time_since_epoch() + info.second.offset};  // the gap's end
      continue;
    }
    const sys_s first{wall.time_since_epoch() - info.first.offset};
    if (first >= start) return first.time_since_epoch().count() * 1000;
    if (info.result == date::local_info::ambiguous) {
      // The start lies in the second pass of the overlap: its wall times already ran once.
      cursor = local_s{info.first.end.time_since_epoch() + info.first.offset};
      continue;
    }
    cursor = wall + seconds{1};
  }
  return std::nullopt;
}

int64_t effective_stagger_ms(const Schedule& s) {
  if (s.kind != Schedule::Kind::Cron) return 0;
  if (s.stagger_ms) return *s.stagger_ms;
  // OpenClaw's rule on the text: minute (and second) exactly "0", every hour-list part a number,
  // range or wildcard (optionally stepped) and at least one starting with * or ?.
  std::vector<std::string> f;
  std::string cur;
  for (char c : s.expr) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) f.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) f.push_back(cur);
  std::string hour;
  if (f.size() == 5 && f[0] == "0") hour = f[1];
  else if (f.size() == 6 && f[0] == "0" && f[1] == "0") hour = f[2];
  else return 0;
  static const std::regex kPart(R"(^(?:\d+|\d+-\d+)(?:/\d+)?$|^[*?](?:/\d+)?$)");
  bool wildcard = false;
  size_t start = 0;
  for (;;) {
    size_t comma = hour.find(',', start);
    std::string part = hour.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!std::regex_match(part, kPart)) return 0;
    if (!part.empty() && (part[0] == '*' || part[0] == '?')) wildcard = true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return wildcard ? kDefaultTopOfHourStaggerMs : 0;
}

int64_t stagger_offset_ms(std::string_view job_id, int64_t stagger_ms) {
  if (stagger_ms <= 1) return 0;
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(job_id.data()), job_id.size());
  const uint32_t head = (uint32_t{digest[0]} << 24) | (uint32_t{digest[1]} << 16) | (uint32_t{digest[2]} << 8) |
                        uint32_t{digest[3]};
  return static_cast<int64_t>(head % static_cast<uint64_t>(stagger_ms));
}

std::optional<int64_t> next_run_after(const Schedule& s, std::string_view job_id, int64_t now_ms,
                                      std::optional<int64_t> created_at_ms) {
  switch (s.kind) {
    case Schedule::Kind::At:
      return s.at_ms > now_ms ? in_range(s.at_ms) : std::nullopt;
    case Schedule::Kind::Every: {
      // Checked arithmetic: a wrapped sum would be a run in the past, due again at once (a loop).
      if (s.every_ms < 1 || s.every_ms > kScheduleMaxMs) return std::nullopt;
      const int64_t anchor = std::max<int64_t>(0, s.anchor_ms.value_or(created_at_ms.value_or(now_ms)));
      if (anchor > kScheduleMaxMs) return std::nullopt;
      if (now_ms < anchor) return anchor;
      int64_t step = 0, next = 0;
      if (__builtin_mul_overflow((now_ms - anchor) / s.every_ms + 1, s.every_ms, &step) ||
          __builtin_add_overflow(anchor, step, &next))
        return std::nullopt;
      return in_range(next);
    }
    case Schedule::Kind::Cron: {
      const int64_t offset = stagger_offset_ms(job_id, effective_stagger_ms(s));
      if (offset <= 0) {
        const auto next = cron_next_after(s.cron, s.zone, now_ms);
        return next ? in_range(*next) : std::nullopt;
      }
      // The slot whose shifted time is the first after now (OpenClaw's computeStaggeredCronNextRunAtMs).
      int64_t cursor = std::max<int64_t>(0, now_ms - offset);
      for (int attempt = 0; attempt < 4; ++attempt) {
        auto base = cron_next_after(s.cron, s.zone, cursor);
        if (!base) return std::nullopt;
        if (*base + offset > now_ms) return in_range(*base + offset);
        cursor = std::max(cursor + 1, *base + 1000);
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Result<Schedule> parse_schedule(const nlohmann::json& j, std::string_view default_zone) {
  if (!j.is_object()) return schedule_fail("schedule: expected an object {kind: \"at\"|\"every\"|\"cron\", …}");
  auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string()) return schedule_fail("schedule.kind: expected \"at\", \"every\" or \"cron\"");
  const std::string zone_default = default_zone.empty() ? host_zone() : std::string(default_zone);
  Schedule s;
  auto text = [&](const char* key) -> const nlohmann::json* {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  };
  auto integer = [&](const char* key, std::optional<int64_t>& out, int64_t min) -> Status {
    const nlohmann::json* v = text(key);
    if (v == nullptr) return Ok{};
    const std::string field = std::string("schedule.") + key;
    // The range is checked before any conversion: a double beyond int64 (1e300) or an unsigned
    // beyond it cannot be cast, and a value past kScheduleMaxMs would overflow the next-run sum.
    const double d = v->is_number() ? v->get<double>() : 0.0;
    if (!v->is_number() || (v->is_number_float() && (!std::isfinite(d) || std::trunc(d) != d)))
      return schedule_fail(field + ": expected a whole number of milliseconds");
    if (d < static_cast<double>(min) || (v->is_number_integer() && !v->is_number_unsigned() && v->get<int64_t>() < min))
      return schedule_fail(field + ": must be at least " + std::to_string(min));
    if (d > static_cast<double>(kScheduleMaxMs) || (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{kScheduleMaxMs}) ||
        (v->is_number_integer() && !v->is_number_unsigned() && v->get<int64_t>() > kScheduleMaxMs))
      return schedule_fail(beyond_limit(field, v->dump()));
    out = v->is_number_float() ? static_cast<int64_t>(d) : v->get<int64_t>();
    return Ok{};
  };
  const std::string k = kind->get<std::string>();
  if (k == "at") {
    s.kind = Schedule::Kind::At;
    const nlohmann::json* at = text("at");
    if (at != nullptr && at->is_number_integer() && at->get<int64_t>() >= 0) {  // epoch milliseconds
      if (at->is_number_unsigned() ? at->get<uint64_t>() > uint64_t{kScheduleMaxMs} : at->get<int64_t>() > kScheduleMaxMs)
        return schedule_fail(beyond_limit("schedule.at", at->dump()));
      s.at_ms = at->get<int64_t>();
      const std::time_t secs = static_cast<std::time_t>(s.at_ms / 1000);
      std::tm tm{};
      gmtime_r(&secs, &tm);
      char buf[40];
      std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
      char ms[8];
      std::snprintf(ms, sizeof ms, ".%03dZ", static_cast<int>(s.at_ms % 1000));
      s.at = std::string(buf) + ms;
      s.zone = zone_default;
      // An instant needs no zone, but one that is kept must be real (an edit of `at` uses it).
      if (const nlohmann::json* tz = text("tz"); tz != nullptr && tz->is_string() && !tz->get<std::string>().empty()) {
        if (!is_known_zone(tz->get<std::string>())) return schedule_fail("schedule.tz: unknown time zone '" + tz->get<std::string>() + "'");
      }
      return s;
    }
    if (at == nullptr || !at->is_string())
      return schedule_fail("schedule.at: expected an ISO 8601 time such as \"2026-03-01T08:00\" (or with Z / +01:00), or epoch milliseconds");
    s.at = at->get<std::string>();
    s.zone = zone_default;
    if (const nlohmann::json* tz = text("tz"); tz != nullptr && tz->is_string() && !tz->get<std::string>().empty())
      s.tz = s.zone = tz->get<std::string>();
    if (!is_known_zone(s.zone)) return schedule_fail("schedule.tz: unknown time zone '" + s.zone + "'");
    auto ms = parse_iso_instant(s.at, s.zone);
    if (!ms)
      return schedule_fail("schedule.at: '" + s.at +
                           "' is not an ISO 8601 time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], years up to 9999)");
    if (*ms > kScheduleMaxMs) return schedule_fail(beyond_limit("schedule.at", "'" + s.at + "'"));
    s.at_ms = *ms;
    return s;
  }
  if (k == "every") {
    s.kind = Schedule::Kind::Every;
    std::optional<int64_t> every;
    if (auto st = integer("everyMs", every, 1); !st) return st.error();
    if (!every) return schedule_fail("schedule.everyMs: required (milliseconds between runs, at least 1)");
    s.every_ms = *every;
    if (auto st = integer("anchorMs", s.anchor_ms, 0); !st) return st.error();
    return s;
  }
  if (k == "cron") {
    s.kind = Schedule::Kind::Cron;
    const nlohmann::json* expr = text("expr");
    if (expr == nullptr || !expr->is_string()) return schedule_fail("schedule.expr: expected a cron expression such as \"0 8 * * *\"");
    s.expr = expr->get<std::string>();
    auto parsed = parse_cron_expr(s.expr);
    if (!parsed) return schedule_fail("schedule.expr: " + parsed.error().message);
    s.cron = *parsed;
    if (const nlohmann::json* tz = text("tz"); tz != nullptr) {
      if (!tz->is_string()) return schedule_fail("schedule.tz: expected an IANA zone name such as \"Europe/Berlin\"");
      s.tz = tz->get<std::string>();
    }
    s.zone = s.tz.empty() ? zone_default : s.tz;
    if (!is_known_zone(s.zone)) return schedule_fail("schedule.tz: unknown time zone '" + s.zone + "'");
    if (auto st = integer("staggerMs", s.stagger_ms, 0); !st) return st.error();
    return s;
  }
  return schedule_fail("schedule.kind: '" + k + "' is not one of \"at\", \"every\", \"cron\"");
}

nlohmann::json schedule_to_json(const Schedule& s) {
  nlohmann::json j = nlohmann::json::object();
  switch (s.kind) {
    case Schedule::Kind::At:
      j["kind"] = "at";
      j["at"] = s.at;
      if (!s.tz.empty()) j["tz"] = s.tz;
      break;
    case Schedule::Kind::Every:
      j["kind"] = "every";
      j["everyMs"] = s.every_ms;
      if (s.anchor_ms) j["anchorMs"] = *s.anchor_ms;
      break;
    case Schedule::Kind::Cron:
      j["kind"] = "cron";
      j["expr"] = s.expr;
      if (!s.tz.empty()) j["tz"] = s.tz;
      if (s.stagger_ms) j["staggerMs"] = *s.stagger_ms;
      break;
  }
  return j;
}

std::optional<ScheduleProblem> schedule_never_fires(const Schedule& s, int64_t now_ms, std::string_view shown_zone) {
  if (s.kind == Schedule::Kind::Cron) {
    const auto next = cron_next_after(s.cron, s.zone, now_ms);
    constexpr int64_t kHorizonMs = int64_t{kScheduleHorizonYears} * 36525 * 86'400'000 / 100;
    if (next && *next - now_ms <= kHorizonMs) return std::nullopt;
    return ScheduleProblem{"schedule.expr", "never runs: no time in the next " + std::to_string(kScheduleHorizonYears) +
                                                " years matches it" +
                                                (next ? " (the first is " + format_wall_minute(*next, shown_zone) + ")"
                                                      : " (a day its month does not have, such as 31 in February?)")};
  }
  if (s.kind == Schedule::Kind::At && s.at_ms > kScheduleMaxMs)
    return ScheduleProblem{"schedule.at", std::string("is after ") + kScheduleMaxText + ", the last time a schedule can have"};
  if (s.kind == Schedule::Kind::Every && s.every_ms >= 1 && !next_run_after(s, {}, now_ms)) {
    return ScheduleProblem{"schedule.everyMs", std::string("is too long: the first run would fall after ") +
                                                   kScheduleMaxText + ", the last time a schedule can have"};
  }
  if (s.kind == Schedule::Kind::At && s.at_ms < now_ms - kPastAtToleranceMs) {
    const int64_t minutes = (now_ms - s.at_ms) / 60'000;
    const std::string ago = minutes < 120        ? std::to_string(minutes) + (minutes == 1 ? " minute" : " minutes")
                            : minutes < 2 * 1440 ? std::to_string(minutes / 60) + " hours"
                                                 : std::to_string(minutes / 1440) + " days";
    return ScheduleProblem{"schedule.at", "is in the past (" + format_wall_minute(s.at_ms, shown_zone) + ", " + ago +
                                              " ago; now " + format_wall_minute(now_ms, shown_zone) +
                                              "): give a future time"};
  }
  return std::nullopt;
}

}  // namespace pincer::automation
