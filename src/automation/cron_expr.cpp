#include "automation/cron_expr.h"

#include <array>
#include <cctype>
#include <vector>

namespace pincer::automation {
namespace {

Error cron_fail(std::string message) { return Error{"CRON_INVALID", std::move(message)}; }

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// One field's rules: its name in messages, value range, slot count (croner's bound for steps).
struct FieldSpec {
  const char* name;
  int min;
  int max;
  int slots;
  const char* const* names;  // 3-letter names for min.. (months, weekdays) or nullptr
};

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

// A value: digits, or a name of the field. Range-checked by the caller.
Result<int> parse_value(const FieldSpec& f, std::string_view token) {
  if (token.empty()) return cron_fail(std::string(f.name) + ": a value is missing");
  if (std::isdigit(static_cast<unsigned char>(token[0]))) {
    if (token.size() > 4) return cron_fail(std::string(f.name) + ": " + std::string(token) + " is out of range");
    int v = 0;
    for (char c : token) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return cron_fail(std::string(f.name) + ": '" + std::string(token) + "' is not a number");
      v = v * 10 + (c - '0');
    }
    return v;
  }
  if (f.names != nullptr && token.size() == 3) {
    std::string u = upper(token);
    int count = f.min == 1 ? 12 : 7;
    for (int i = 0; i < count; ++i)
      if (u == f.names[i]) return f.min + i;
  }
  return cron_fail(std::string(f.name) + ": '" + std::string(token) + "' is not a number" +
              (f.names != nullptr ? " or a name" : ""));
}

Status check_range(const FieldSpec& f, int v) {
  if (v < f.min || v > f.max)
    return cron_fail(std::string(f.name) + ": " + std::to_string(v) + " is out of range " + std::to_string(f.min) +
                "-" + std::to_string(f.max));
  return Ok{};
}

// Parses one field into `set(value, nth_mask)`; the weekday nth forms only when `weekday`.
template <class Set>
Status parse_field(const FieldSpec& f, std::string_view text, bool weekday, bool* last_day, Set set) {
  if (text == "*" || text == "?") {
    for (int v = f.min; v <= f.max; ++v) set(v, 63);
    return Ok{};
  }
  for (std::string_view item : split(text, ',')) {
    const std::string where = std::string(f.name) + ": '" + std::string(item) + "'";
    if (item.empty()) return cron_fail(std::string(f.name) + ": an empty list item in '" + std::string(text) + "'");
    std::string u = upper(item);
    if (u.find('W') != std::string::npos && last_day != nullptr)
      return cron_fail(where + ": W (nearest weekday) is not supported");
    if (last_day != nullptr && u == "L") {
      *last_day = true;
      continue;
    }
    uint8_t nth = 63;
    std::string_view base = item;
    if (weekday) {
      size_t hash = item.find('#');
      if (hash != std::string_view::npos) {
        std::string n = upper(item.substr(hash + 1));
        if (n == "L") nth = 32;
        else if (n.size() == 1 && n[0] >= '1' && n[0] <= '5') nth = static_cast<uint8_t>(1u << (n[0] - '1'));
        else return cron_fail(where + ": the occurrence after # must be 1-5 or L");
        base = item.substr(0, hash);
      } else if (item.size() > 1 && (item.back() == 'L' || item.back() == 'l')) {
        nth = 32;
        base = item.substr(0, item.size() - 1);
      }
    }
    if (base.empty()) return cron_fail(where + ": a value is missing");
    int lo = 0, hi = 0, step = 1;
    size_t slash = base.find('/');
    std::string_view range = base.substr(0, slash);
    if (slash != std::string_view::npos) {
      if (nth != 63) return cron_fail(where + ": # or L cannot be combined with a step");
      std::string_view step_text = base.substr(slash + 1);
      if (step_text.empty() || step_text.size() > 4 || step_text.find_first_not_of("0123456789") != std::string_view::npos)
        return cron_fail(where + ": the step must be a number");
      step = std::stoi(std::string(step_text));
      if (step == 0) return cron_fail(where + ": a step of 0");
      if (step > f.slots) return cron_fail(where + ": the step is larger than the field (" + std::to_string(f.slots) + ")");
      if (range.empty() || (range != "*" && range.find('-') == std::string_view::npos))
        return cron_fail(where + ": a step needs * or a range before it (*/n or a-b/n)");
    }
    if (range == "*") {
      if (nth != 63) return cron_fail(where + ": # or L needs a weekday, not *");
      lo = f.min;
      hi = f.max;
    } else {
      size_t dash = range.find('-');
      auto first = parse_value(f, range.substr(0, dash));
      if (!first) return first.error();
      lo = hi = *first;
      if (dash != std::string_view::npos) {
        auto second = parse_value(f, range.substr(dash + 1));
        if (!second) return second.error();
        hi = *second;
      }
      if (auto s = check_range(f, lo); !s) return s.error();
      if (auto s = check_range(f, hi); !s) return s.error();
      if (lo > hi) return cron_fail(where + ": the range runs backwards");
    }
    for (int v = lo; v <= hi; v += step) set(v, nth);
  }
  return Ok{};
}

}  // namespace

int days_in_month(int year, int month) {
  static constexpr std::array<int, 13> kDays{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)) return 29;
  return kDays[static_cast<size_t>(month)];
}

int weekday_of(int year, int month, int day) {
  // Sakamoto's method.
  static constexpr int kT[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  if (month < 3) year -= 1;
  return (year + year / 4 - year / 100 + year / 400 + kT[month - 1] + day) % 7;
}

bool CronExpr::matches_day(int year, int month, int day) const {
  if (!months[static_cast<size_t>(month)]) return false;
  const int dim = days_in_month(year, month);
  const bool dom = days[static_cast<size_t>(day)] || (last_day_of_month && day == dim);
  if (any_weekday) return dom;
  const uint8_t mask = weekdays[weekday_of(year, month, day)];
  bool dow = false;
  if (mask == 63) dow = true;
  else if (mask != 0) dow = ((mask >> ((day - 1) / 7)) & 1) != 0 || ((mask & 32) != 0 && day + 7 > dim);
  if (any_day_of_month) return dow;
  return dom || dow;  // both restricted: either (Vixie cron, croner)
}

Result<CronExpr> parse_cron_expr(std::string_view expr) {
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < expr.size();) {
    while (i < expr.size() && std::isspace(static_cast<unsigned char>(expr[i]))) ++i;
    size_t start = i;
    while (i < expr.size() && !std::isspace(static_cast<unsigned char>(expr[i]))) ++i;
    if (i > start) fields.push_back(expr.substr(start, i - start));
  }
  static const std::pair<const char*, const char*> kNicknames[] = {
      {"@YEARLY", "0 0 1 1 *"}, {"@ANNUALLY", "0 0 1 1 *"}, {"@MONTHLY", "0 0 1 * *"},
      {"@WEEKLY", "0 0 * * 0"}, {"@DAILY", "0 0 * * *"},    {"@MIDNIGHT", "0 0 * * *"},
      {"@HOURLY", "0 * * * *"}};
  if (fields.size() == 1 && fields[0].front() == '@') {
    std::string u = upper(fields[0]);
    for (const auto& [name, meaning] : kNicknames)
      if (u == name) return parse_cron_expr(meaning);
    return cron_fail("unknown nickname '" + std::string(fields[0]) + "' (@yearly, @monthly, @weekly, @daily, @hourly)");
  }
  if (fields.size() != 5 && fields.size() != 6)
    return cron_fail("a cron expression has 5 fields (minute hour day month weekday) or 6 (seconds first); '" +
                std::string(expr) + "' has " + std::to_string(fields.size()));
  CronExpr out;
  out.has_seconds = fields.size() == 6;
  size_t k = 0;
  static constexpr FieldSpec kSecond{"seconds", 0, 59, 60, nullptr}, kMinute{"minute", 0, 59, 60, nullptr},
      kHour{"hour", 0, 23, 24, nullptr}, kDay{"day of month", 1, 31, 31, nullptr},
      kMonth{"month", 1, 12, 12, kMonthNames}, kWeekday{"day of week", 0, 7, 7, kDayNames};
  if (out.has_seconds) {
    if (auto s = parse_field(kSecond, fields[k++], false, nullptr, [&](int v, uint8_t) { out.seconds.set(v); }); !s)
      return s.error();
  } else {
    out.seconds.set(0);
  }
  if (auto s = parse_field(kMinute, fields[k++], false, nullptr, [&](int v, uint8_t) { out.minutes.set(v); }); !s)
    return s.error();
  if (auto s = parse_field(kHour, fields[k++], false, nullptr, [&](int v, uint8_t) { out.hours.set(v); }); !s)
    return s.error();
  std::string_view dom = fields[k++];
  out.any_day_of_month = dom == "*" || dom == "?";
  if (auto s = parse_field(kDay, dom, false, &out.last_day_of_month, [&](int v, uint8_t) { out.days.set(v); }); !s)
    return s.error();
  if (auto s = parse_field(kMonth, fields[k++], false, nullptr, [&](int v, uint8_t) { out.months.set(v); }); !s)
    return s.error();
  std::string_view dow = fields[k++];
  out.any_weekday = dow == "*" || dow == "?";
  if (auto s = parse_field(kWeekday, dow, true, nullptr,
                           [&](int v, uint8_t nth) {
                             uint8_t& slot = out.weekdays[v % 7];
                             slot = (nth == 63 || slot == 63) ? 63 : static_cast<uint8_t>(slot | nth);
                           });
      !s)
    return s.error();
  return out;
}

namespace {

// The first (h, m, s) >= (h0, m0, s0) in the sets, if any.
bool first_time_of_day(const CronExpr& e, int h0, int m0, int s0, CivilTime& t) {
  for (int h = h0; h < 24; ++h) {
    if (!e.hours[static_cast<size_t>(h)]) continue;
    for (int m = h == h0 ? m0 : 0; m < 60; ++m) {
      if (!e.minutes[static_cast<size_t>(m)]) continue;
      for (int s = (h == h0 && m == m0) ? s0 : 0; s < 60; ++s) {
        if (!e.seconds[static_cast<size_t>(s)]) continue;
        t.hour = h;
        t.minute = m;
        t.second = s;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool next_civil_match(const CronExpr& e, const CivilTime& from, CivilTime& out, int max_years) {
  int y = from.year, mo = from.month, d = from.day;
  bool first = true;
  while (y <= from.year + max_years) {
    if (!e.months[static_cast<size_t>(mo)] || d > days_in_month(y, mo)) {
      d = 1;
      first = false;
      if (++mo > 12) {
        mo = 1;
        ++y;
      }
      continue;
    }
    if (e.matches_day(y, mo, d)) {
      CivilTime t{y, mo, d, 0, 0, 0};
      if (first_time_of_day(e, first ? from.hour : 0, first ? from.minute : 0, first ? from.second : 0, t)) {
        out = t;
        return true;
      }
    }
    ++d;
    first = false;
  }
  return false;
}

}  // namespace pincer::automation
