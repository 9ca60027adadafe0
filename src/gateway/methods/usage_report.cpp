#include "gateway/methods/usage_report.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <limits>
#include <set>
#include <system_error>

#include <spdlog/spdlog.h>

#include "agent/time_zone.h"
#include "core/civil_date.h"
#include "store/transcript.h"

namespace pincer::gateway::usage {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kMaxDays = 36'600;

using civil::civil_from_days;
using civil::days_from_civil;

std::string format_day(int64_t day) {
  const civil::Date c = civil_from_days(day);
  char buf[40];  // room for any year, so gcc's -Wformat-truncation has nothing to say
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(c.year), c.month, c.day);
  return buf;
}

/// Days since the epoch of a valid "YYYY-MM-DD", else nullopt.
std::optional<int64_t> parse_day(const json& v) {
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  }
  const int64_t y = std::stoll(s.substr(0, 4));
  const unsigned m = static_cast<unsigned>(std::stoi(s.substr(5, 2))), d = static_cast<unsigned>(std::stoi(s.substr(8, 2)));
  if (m < 1 || m > 12 || d < 1) return std::nullopt;
  const int64_t day = days_from_civil(y, m, d);
  const civil::Date back = civil_from_days(day);
  if (back.year != y || back.month != m || back.day != d) return std::nullopt;
  return day;
}

/// "UTC+H", "UTC-HH", "UTC+H:MM" → minutes east, within -12:00 … +14:00.
std::optional<int> parse_utc_offset(const json& v) {
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s.size() < 5 || s.compare(0, 3, "UTC") != 0 || (s[3] != '+' && s[3] != '-')) return std::nullopt;
  const int sign = s[3] == '+' ? 1 : -1;
  std::size_t i = 4, digits = 0;
  int hours = 0, minutes = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && digits < 3) hours = hours * 10 + (s[i++] - '0'), ++digits;
  if (digits == 0 || digits > 2) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != ':' || s.size() != i + 3 || !std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isdigit(static_cast<unsigned char>(s[i + 2])) || s[i + 1] > '5') {
      return std::nullopt;
    }
    minutes = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
  }
  const int total = sign * (hours * 60 + minutes);
  if (total < -720 || total > 840) return std::nullopt;
  return total;
}

/// The first instant of calendar day `day` in `zone`.
int64_t day_start_ms(const DayZone& zone, int64_t day) {
  const int64_t utc_midnight = day * kDayMs;
  int64_t guess = utc_midnight - static_cast<int64_t>(zone.offset_at(utc_midnight)) * 60'000;
  guess = utc_midnight - static_cast<int64_t>(zone.offset_at(guess)) * 60'000;
  return guess;
}

int64_t day_of(const DayZone& zone, int64_t ms) {
  const int64_t local = ms + static_cast<int64_t>(zone.offset_at(ms)) * 60'000;
  return local >= 0 ? local / kDayMs : -((-local + kDayMs - 1) / kDayMs);
}

int64_t int_member(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0;
  return it->is_number_float() ? static_cast<int64_t>(it->get<double>()) : it->get<int64_t>();
}

std::optional<double> number_member(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string string_member(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// One message's part in a report.
struct Record {
  std::optional<int64_t> ts;
  std::string role;  ///< user | assistant | toolResult
  std::string provider, model;
  std::vector<std::string> tools;
  int64_t tool_results = 0, errors = 0;
  bool has_usage = false;
  Totals usage;
};

std::optional<Record> read_record(const json& entry) {
  if (!entry.is_object() || string_member(entry, "type") != "message") return std::nullopt;
  auto mit = entry.find("message");
  if (mit == entry.end() || !mit->is_object()) return std::nullopt;
  const json& m = *mit;
  Record r;
  r.role = string_member(m, "role");
  const bool tool_result = r.role == "toolResult" || r.role == "tool";
  if (r.role != "user" && r.role != "assistant" && !tool_result) return std::nullopt;
  if (auto ts = number_member(m, "timestamp"); ts && *ts > 0) {
    r.ts = static_cast<int64_t>(*ts);
  } else if (auto iso = store::parse_iso_timestamp(string_member(entry, "timestamp"))) {
    r.ts = *iso;
  }
  r.provider = string_member(m, "provider");
  r.model = string_member(m, "model");
  if (tool_result) {
    r.tool_results = 1;
    r.errors = (m.value("isError", false) == true || m.value("is_error", false) == true) ? 1 : 0;
  } else if (auto c = m.find("content"); c != m.end() && c->is_array()) {
    for (const auto& block : *c) {
      if (!block.is_object()) continue;
      const std::string type = lower(string_member(block, "type"));
      if (type == "toolcall" || type == "tool_call" || type == "tooluse" || type == "tool_use") {
        if (auto name = string_member(block, "name"); !name.empty()) r.tools.push_back(name);
      } else if (type == "tool_result" || type == "tool_result_error") {
        ++r.tool_results;
        if (block.value("is_error", false) == true) ++r.errors;
      }
    }
  }
  const std::string stop = string_member(m, "stopReason");
  if (stop == "error" || stop == "aborted" || stop == "timeout") ++r.errors;
  if (auto u = m.find("usage"); u != m.end() && u->is_object()) {
    r.has_usage = true;
    Totals& t = r.usage;
    t.input = int_member(*u, "input");
    t.output = int_member(*u, "output");
    t.cache_read = int_member(*u, "cacheRead");
    t.cache_write = int_member(*u, "cacheWrite");
    const int64_t sum = t.input + t.output + t.cache_read + t.cache_write;
    t.total_tokens = u->contains("totalTokens") ? int_member(*u, "totalTokens") : u->contains("total") ? int_member(*u, "total") : sum;
    const json* cost = u->contains("cost") && (*u)["cost"].is_object() ? &(*u)["cost"] : nullptr;
    const double total = cost ? number_member(*cost, "total").value_or(0) : 0;
    if (total > 0) {  // a recorded price (an OpenClaw transcript)
      t.total_cost = total;
      t.input_cost = number_member(*cost, "input").value_or(0);
      t.output_cost = number_member(*cost, "output").value_or(0);
      t.cache_read_cost = number_member(*cost, "cacheRead").value_or(0);
      t.cache_write_cost = number_member(*cost, "cacheWrite").value_or(0);
    } else if (t.total_tokens > 0) {  // tokens without a price: Pincer keeps no model prices
      t.missing_cost_entries = 1;
      t.missing_cost_by_model[(r.provider.empty() ? "unknown" : r.provider) + "/" + (r.model.empty() ? "unknown" : r.model)] = 1;
    }
  }
  return r;
}

/// Calls `fn(record)` for every message of `file` that `range` covers. Read by the shared
/// transcript reader (store::read_transcript): its size limit, and its skipping of lines that are
/// not entries (a torn last line …) with a warning, logged here at debug level (the usage views are
/// asked for again and again; a load of the session for a turn logs them as warnings).
template <typename Fn>
void for_each_record(const fs::path& file, const Range& range, Fn fn) {
  auto contents = store::read_transcript(file);
  if (!contents) {  // gone since it was listed, unreadable or too large: it counts nothing
    spdlog::debug("usage: {}: {}", file.string(), contents.error().message);
    return;
  }
  for (const auto& w : contents->warnings) spdlog::debug("usage: {}:{}: {}", file.string(), w.line, w.message);
  for (const auto& entry : contents->entries) {
    auto r = read_record(entry.raw);
    if (!r) continue;
    if (r->ts ? (*r->ts < range.start_ms || *r->ts > range.end_ms) : !range.include_untimestamped) continue;
    fn(*r);
  }
}

json counts_json() { return {{"total", 0}, {"user", 0}, {"assistant", 0}, {"toolCalls", 0}, {"toolResults", 0}, {"errors", 0}}; }

void count(json& c, const Record& r) {
  if (r.role == "user" || r.role == "assistant") {
    c["total"] = c["total"].get<int64_t>() + 1;
    c[r.role] = c[r.role].get<int64_t>() + 1;
  }
  c["toolCalls"] = c["toolCalls"].get<int64_t>() + static_cast<int64_t>(r.tools.size());
  c["toolResults"] = c["toolResults"].get<int64_t>() + r.tool_results;
  c["errors"] = c["errors"].get<int64_t>() + r.errors;
}

bool model_order(const json& a, const json& b) {
  const double ca = a["totals"]["totalCost"], cb = b["totals"]["totalCost"];
  if (ca != cb) return ca > cb;
  return a["totals"]["totalTokens"].get<int64_t>() > b["totals"]["totalTokens"].get<int64_t>();
}

json tools_json(const std::map<std::string, int64_t>& tools) {
  json list = json::array();
  int64_t calls = 0;
  for (const auto& [name, n] : tools) {
    list.push_back({{"name", name}, {"count", n}});
    calls += n;
  }
  std::stable_sort(list.begin(), list.end(), [](const json& a, const json& b) { return a["count"].get<int64_t>() > b["count"].get<int64_t>(); });
  return {{"totalCalls", calls}, {"uniqueTools", static_cast<int64_t>(tools.size())}, {"tools", list}};
}

}  // namespace

int DayZone::offset_at(int64_t unix_ms) const {
  switch (mode) {
    case Mode::Utc: return 0;
    case Mode::Fixed: return fixed_offset_minutes;
    case Mode::Zone: return agent::time_zone_offset_minutes(zone, unix_ms).value_or(0);
    case Mode::Gateway: {
      const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
      std::tm tm{};
      localtime_r(&t, &tm);
      return static_cast<int>(tm.tm_gmtoff / 60);
    }
  }
  return 0;
}

std::string DayZone::day_key(int64_t unix_ms) const { return format_day(day_of(*this, unix_ms)); }

Result<Range> parse_range(const json& params, int64_t now_ms) {
  auto invalid = [](std::string m) { return Error{"INVALID_INPUT", std::move(m)}; };
  const json p = params.is_object() ? params : json::object();
  auto present = [&](const char* key) {
    auto it = p.find(key);
    return it != p.end() && !it->is_null() && !(it->is_string() && it->get<std::string>().find_first_not_of(" \t") == std::string::npos);
  };
  for (const char* field : {"startDate", "endDate"}) {
    if (present(field) && !parse_day(p[field])) return invalid(std::string("invalid ") + field + ": expected a valid YYYY-MM-DD calendar date");
  }
  Range r;
  const std::string mode = p.value("mode", json()).is_string() ? p["mode"].get<std::string>() : "";
  if (mode == "gateway") {
    r.zone.mode = DayZone::Mode::Gateway;
  } else if (mode == "specific") {
    // A plain int with a sentinel: gcc 12 -O2 reports *optional<int> here as maybe-uninitialized.
    constexpr int kNoOffset = std::numeric_limits<int>::min();
    const int offset = present("utcOffset") ? parse_utc_offset(p["utcOffset"]).value_or(kNoOffset) : kNoOffset;
    if (p.contains("timeZone") && !p["timeZone"].is_null()) {
      const std::string tz = p["timeZone"].is_string() ? p["timeZone"].get<std::string>() : "";
      if (agent::is_time_zone_name(tz) && agent::time_zone_offset_minutes(tz, now_ms)) {
        r.zone.mode = DayZone::Mode::Zone;
        r.zone.zone = tz;
      } else if (offset != kNoOffset) {
        r.zone.mode = DayZone::Mode::Fixed;
        r.zone.fixed_offset_minutes = offset;
      } else {
        return invalid("invalid timeZone: expected a valid IANA time zone");
      }
    } else if (offset != kNoOffset) {
      r.zone.mode = DayZone::Mode::Fixed;
      r.zone.fixed_offset_minutes = offset;
    } else if (present("utcOffset")) {
      return invalid("invalid utcOffset: expected UTC-12:00 through UTC+14:00");
    }
  }
  const int64_t today = day_of(r.zone, now_ms);
  const int64_t today_end = day_start_ms(r.zone, today + 1) - 1;
  const bool has_start = present("startDate"), has_end = present("endDate");
  if (has_start != has_end) return invalid("startDate and endDate must be provided together");
  if (has_start) {
    const int64_t first = *parse_day(p["startDate"]), last = *parse_day(p["endDate"]);
    if (first > last) return invalid("startDate must not be after endDate");
    r.start_ms = day_start_ms(r.zone, first);
    r.end_ms = day_start_ms(r.zone, last + 1) - 1;
    return r;
  }
  const std::string range = p.value("range", json()).is_string() ? p["range"].get<std::string>() : "";
  if (range == "all") {
    r.start_ms = 0;
    r.end_ms = today_end;
    r.include_untimestamped = true;
    return r;
  }
  int64_t days = range == "7d" ? 7 : range == "30d" ? 30 : range == "90d" ? 90 : range == "1y" ? 365 : 0;
  if (days == 0 && p.contains("days")) {
    const json& d = p["days"];
    if (d.is_number()) days = static_cast<int64_t>(d.get<double>());
    else if (d.is_string()) days = std::atoll(d.get<std::string>().c_str());
    days = std::min(days, kMaxDays);
  }
  if (days == 0) days = 30;
  days = std::max<int64_t>(1, days);
  r.start_ms = day_start_ms(r.zone, today - (days - 1));
  r.end_ms = today_end;
  return r;
}

void Totals::add(const Totals& o) {
  input += o.input;
  output += o.output;
  cache_read += o.cache_read;
  cache_write += o.cache_write;
  total_tokens += o.total_tokens;
  total_cost += o.total_cost;
  input_cost += o.input_cost;
  output_cost += o.output_cost;
  cache_read_cost += o.cache_read_cost;
  cache_write_cost += o.cache_write_cost;
  missing_cost_entries += o.missing_cost_entries;
  for (const auto& [model, n] : o.missing_cost_by_model) missing_cost_by_model[model] += n;
}

json Totals::to_json() const {
  json j = {{"input", input},           {"output", output},         {"cacheRead", cache_read},
            {"cacheWrite", cache_write}, {"totalTokens", total_tokens}, {"totalCost", total_cost},
            {"inputCost", input_cost},   {"outputCost", output_cost},   {"cacheReadCost", cache_read_cost},
            {"cacheWriteCost", cache_write_cost}, {"missingCostEntries", missing_cost_entries}};
  if (!missing_cost_by_model.empty()) j["missingCostByModel"] = missing_cost_by_model;
  return j;
}

Totals totals_from_json(const json& j) {
  Totals t;
  t.input = int_member(j, "input");
  t.output = int_member(j, "output");
  t.cache_read = int_member(j, "cacheRead");
  t.cache_write = int_member(j, "cacheWrite");
  t.total_tokens = int_member(j, "totalTokens");
  t.total_cost = number_member(j, "totalCost").value_or(0);
  t.input_cost = number_member(j, "inputCost").value_or(0);
  t.output_cost = number_member(j, "outputCost").value_or(0);
  t.cache_read_cost = number_member(j, "cacheReadCost").value_or(0);
  t.cache_write_cost = number_member(j, "cacheWriteCost").value_or(0);
  t.missing_cost_entries = int_member(j, "missingCostEntries");
  if (auto m = j.find("missingCostByModel"); m != j.end() && m->is_object()) {
    for (const auto& [k, v] : m->items()) {
      if (v.is_number_integer()) t.missing_cost_by_model[k] = v.get<int64_t>();
    }
  }
  return t;
}

std::vector<TranscriptFile> list_transcripts(const fs::path& dir) {
  std::vector<TranscriptFile> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    const std::string name = it->path().filename().string();
    TranscriptFile f;
    if (auto archive = store::parse_archive_name(name)) {
      if (archive->reason == store::ArchiveReason::Bak || archive->base.size() <= 6 ||
          archive->base.compare(archive->base.size() - 6, 6, ".jsonl") != 0) {
        continue;
      }
      f.session_id = archive->base.substr(0, archive->base.size() - 6);
    } else if (name.size() > 6 && name.compare(name.size() - 6, 6, ".jsonl") == 0) {
      f.session_id = name.substr(0, name.size() - 6);
      f.primary = true;
    } else {
      continue;
    }
    f.path = it->path();
    const auto mtime = fs::last_write_time(it->path(), fec);
    if (!fec) {
      f.mtime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::file_clock::to_sys(mtime).time_since_epoch())
                       .count();
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const TranscriptFile& a, const TranscriptFile& b) { return a.path < b.path; });
  return out;
}

void add_cost_usage(const fs::path& file, const Range& range, std::map<std::string, Totals>& daily, Totals& totals) {
  for_each_record(file, range, [&](const Record& r) {
    if (!r.has_usage) return;
    totals.add(r.usage);
    if (r.ts) daily[range.zone.day_key(*r.ts)].add(r.usage);
  });
}

std::optional<json> session_summary(const std::string& session_id, const std::vector<TranscriptFile>& files, const Range& range) {
  Totals totals;
  json counts = counts_json();
  std::map<std::string, Totals> daily;
  std::map<std::string, json> daily_counts;
  std::map<std::string, int64_t> tools;
  std::map<std::string, json> models, daily_models;
  std::optional<int64_t> first, last;
  bool any = false;
  for (const auto& f : files) {
    for_each_record(f.path, range, [&](const Record& r) {
      any = true;
      count(counts, r);
      for (const auto& t : r.tools) ++tools[t];
      std::string day;
      if (r.ts) {
        first = std::min(first.value_or(*r.ts), *r.ts);
        last = std::max(last.value_or(*r.ts), *r.ts);
        day = range.zone.day_key(*r.ts);
        auto& c = daily_counts[day];
        if (c.is_null()) {
          c = counts_json();
          c["date"] = day;
        }
        count(c, r);
      }
      if (!r.has_usage) return;
      totals.add(r.usage);
      const std::string key = r.provider + "\n" + r.model;
      json& m = models[key];
      if (m.is_null()) m = {{"provider", r.provider}, {"model", r.model}, {"count", 0}, {"totals", Totals{}.to_json()}};
      Totals mt = totals_from_json(m["totals"]);
      mt.add(r.usage);
      m["totals"] = mt.to_json();
      m["count"] = m["count"].get<int64_t>() + 1;
      if (!day.empty()) {
        daily[day].add(r.usage);
        json& dm = daily_models[day + "\n" + key];
        if (dm.is_null()) dm = {{"date", day}, {"provider", r.provider}, {"model", r.model}, {"tokens", 0}, {"cost", 0.0}, {"count", 0}};
        dm["tokens"] = dm["tokens"].get<int64_t>() + r.usage.total_tokens;
        dm["cost"] = dm["cost"].get<double>() + r.usage.total_cost;
        dm["count"] = dm["count"].get<int64_t>() + 1;
      }
    });
  }
  if (!any) return std::nullopt;
  json out = totals.to_json();
  out["sessionId"] = session_id;
  const TranscriptFile* current = nullptr;
  for (const auto& f : files) {
    if (!current || (f.primary && !current->primary) || (f.primary == current->primary && f.mtime_ms > current->mtime_ms)) current = &f;
  }
  if (current) out["sessionFile"] = current->path.string();
  if (first) {
    out["firstActivity"] = *first;
    out["lastActivity"] = *last;
    out["durationMs"] = *last - *first;
  }
  json dates = json::array(), breakdown = json::array(), message_days = json::array();
  std::set<std::string> all_days;
  for (const auto& [day, c] : daily_counts) all_days.insert(day);
  for (const auto& day : all_days) dates.push_back(day);
  for (const auto& [day, t] : daily) {
    json row = t.to_json();
    row["date"] = day;
    row["tokens"] = t.total_tokens;
    row["cost"] = t.total_cost;
    breakdown.push_back(std::move(row));
  }
  for (const auto& [day, c] : daily_counts) message_days.push_back(c);
  out["activityDates"] = dates;
  out["dailyBreakdown"] = breakdown;
  out["dailyMessageCounts"] = message_days;
  if (!daily_models.empty()) {
    json rows = json::array();
    for (const auto& [k, v] : daily_models) rows.push_back(v);
    out["dailyModelUsage"] = rows;
  }
  out["messageCounts"] = counts;
  out["toolUsage"] = tools_json(tools);
  json model_rows = json::array();
  for (const auto& [k, v] : models) model_rows.push_back(v);
  std::stable_sort(model_rows.begin(), model_rows.end(), model_order);
  out["modelUsage"] = model_rows;
  return out;
}

void Aggregate::add(const json& s, const std::string& agent_id, const std::string& channel) {
  const Totals t = totals_from_json(s);
  totals_.add(t);
  longest_ms_ = std::max(longest_ms_, int_member(s, "durationMs"));
  const json counts = s.value("messageCounts", json::object());
  if (s.contains("firstActivity") || int_member(counts, "total") > 0) ++sessions_;
  for (const char* k : {"total", "user", "assistant", "toolCalls", "toolResults", "errors"}) {
    messages_[k] = messages_[k].get<int64_t>() + int_member(counts, k);
  }
  for (const auto& tool : s.value("toolUsage", json::object()).value("tools", json::array())) tools_[tool.value("name", "")] += int_member(tool, "count");
  for (const auto& m : s.value("modelUsage", json::array())) {
    const std::string provider = m.value("provider", ""), model = m.value("model", "");
    auto merge = [&](std::map<std::string, json>& into, const std::string& key, bool with_model) {
      json& row = into[key];
      if (row.is_null()) {
        row = {{"provider", provider.empty() ? "unknown" : provider}, {"count", 0}, {"totals", Totals{}.to_json()}};
        if (with_model) row["model"] = model;
      }
      Totals rt = totals_from_json(row["totals"]);
      rt.add(totals_from_json(m.value("totals", json::object())));
      row["totals"] = rt.to_json();
      row["count"] = row["count"].get<int64_t>() + int_member(m, "count");
    };
    merge(models_, provider + "\n" + model, true);
    merge(providers_, provider.empty() ? "unknown" : provider, false);
  }
  if (!agent_id.empty()) agents_[agent_id].add(t);
  if (!channel.empty()) channels_[channel].add(t);
  auto day = [&](const std::string& date) -> json& {
    json& d = days_[date];
    if (d.is_null()) d = {{"date", date}, {"tokens", 0}, {"cost", 0.0}, {"messages", 0}, {"toolCalls", 0}, {"errors", 0}};
    return d;
  };
  for (const auto& b : s.value("dailyBreakdown", json::array())) {
    const std::string date = b.value("date", "");
    json& d = day(date);
    d["tokens"] = d["tokens"].get<int64_t>() + int_member(b, "tokens");
    d["cost"] = d["cost"].get<double>() + number_member(b, "cost").value_or(0);
    cost_daily_[date].add(totals_from_json(b));
  }
  for (const auto& c : s.value("dailyMessageCounts", json::array())) {
    json& d = day(c.value("date", ""));
    d["messages"] = d["messages"].get<int64_t>() + int_member(c, "total");
    d["toolCalls"] = d["toolCalls"].get<int64_t>() + int_member(c, "toolCalls");
    d["errors"] = d["errors"].get<int64_t>() + int_member(c, "errors");
  }
  for (const auto& dm : s.value("dailyModelUsage", json::array())) {
    const std::string key = dm.value("date", "") + "\n" + dm.value("provider", "") + "\n" + dm.value("model", "");
    json& row = model_daily_[key];
    if (row.is_null()) row = {{"date", dm["date"]}, {"provider", dm["provider"]}, {"model", dm["model"]}, {"tokens", 0}, {"cost", 0.0}, {"count", 0}};
    row["tokens"] = row["tokens"].get<int64_t>() + int_member(dm, "tokens");
    row["cost"] = row["cost"].get<double>() + number_member(dm, "cost").value_or(0);
    row["count"] = row["count"].get<int64_t>() + int_member(dm, "count");
  }
}

json Aggregate::finish() const {
  json out = {{"sessionCount", sessions_}, {"messages", messages_}, {"tools", tools_json(tools_)}};
  if (longest_ms_ > 0) out["longestSessionDurationMs"] = longest_ms_;
  auto sorted = [](const std::map<std::string, json>& rows) {
    json list = json::array();
    for (const auto& [k, v] : rows) list.push_back(v);
    std::stable_sort(list.begin(), list.end(), model_order);
    return list;
  };
  out["byModel"] = sorted(models_);
  out["byProvider"] = sorted(providers_);
  auto grouped = [](const std::map<std::string, Totals>& rows, const char* name) {
    json list = json::array();
    for (const auto& [k, t] : rows) list.push_back({{name, k}, {"totals", t.to_json()}});
    std::stable_sort(list.begin(), list.end(), [](const json& a, const json& b) {
      return a["totals"]["totalCost"].get<double>() > b["totals"]["totalCost"].get<double>();
    });
    return list;
  };
  out["byAgent"] = grouped(agents_, "agentId");
  out["byChannel"] = grouped(channels_, "channel");
  json cost_daily = json::array();
  for (const auto& [date, t] : cost_daily_) {
    json row = t.to_json();
    row["date"] = date;
    cost_daily.push_back(std::move(row));
  }
  out["costDaily"] = cost_daily;
  json model_daily = json::array();
  for (const auto& [k, v] : model_daily_) model_daily.push_back(v);
  out["modelDaily"] = model_daily;
  json daily = json::array();
  for (const auto& [k, v] : days_) daily.push_back(v);
  out["daily"] = daily;
  return out;
}

}  // namespace pincer::gateway::usage
