#include "agent/session_reset.h"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace pincer::agent {
namespace {

using nlohmann::json;

constexpr int64_t kMinuteMs = 60'000;
constexpr int64_t kDayMs = 24 * 60 * kMinuteMs;

const json* block(const json& parent, std::string_view name) {
  if (!parent.is_object()) return nullptr;
  auto it = parent.find(std::string(name));
  return it != parent.end() && it->is_object() ? &*it : nullptr;
}

std::optional<ResetMode> mode_of(const json* b) {
  if (!b || !b->contains("mode") || !(*b)["mode"].is_string()) return std::nullopt;
  const std::string m = (*b)["mode"];
  if (m == "daily") return ResetMode::Daily;
  if (m == "idle") return ResetMode::Idle;
  return ResetMode::None;
}

std::optional<double> number_of(const json* b, const char* key) {
  if (!b || !b->contains(key) || !(*b)[key].is_number()) return std::nullopt;
  return (*b)[key].get<double>();
}

}  // namespace

std::string reset_type_of(std::string_view key) {
  if (key.find(":thread:") != std::string_view::npos || key.find(":topic:") != std::string_view::npos) return "thread";
  if (key.find(":group:") != std::string_view::npos || key.find(":channel:") != std::string_view::npos) return "group";
  return "direct";
}

ResetPolicy resolve_reset_policy(const json& session, std::string_view type, std::string_view channel) {
  const json channels = session.is_object() ? session.value("resetByChannel", json()) : json();
  const json* by_channel = channel.empty() ? nullptr : block(channels, channel);
  const json* base = by_channel ? by_channel : block(session, "reset");
  const json types = session.is_object() ? session.value("resetByType", json()) : json();
  const json* typed = by_channel ? nullptr : block(types, type);

  ResetPolicy p;
  const auto base_mode = mode_of(base);
  const auto typed_mode = mode_of(typed);
  if (typed_mode) p.mode = *typed_mode;
  else if (typed && base_mode && *base_mode != ResetMode::None) p.mode = *base_mode;
  else if (typed) p.mode = ResetMode::Daily;
  else if (base_mode) p.mode = *base_mode;
  else p.mode = base ? ResetMode::Daily : ResetMode::None;

  auto hour = number_of(typed, "atHour");
  if (!hour) hour = number_of(base, "atHour");
  if (hour) p.at_hour = static_cast<int>(std::clamp(std::floor(*hour), 0.0, 23.0));
  auto idle = number_of(typed, "idleMinutes");
  if (!idle) idle = number_of(base, "idleMinutes");
  if (idle) p.idle_minutes = std::max<int64_t>(0, static_cast<int64_t>(std::floor(*idle)));
  return p;
}

int64_t daily_reset_at_ms(int64_t now_ms, int at_hour, const std::function<int(int64_t)>& offset) {
  const int64_t off_ms = static_cast<int64_t>(offset(now_ms)) * kMinuteMs;
  const int64_t local = now_ms + off_ms;
  const int64_t day_start = local - ((local % kDayMs) + kDayMs) % kDayMs;
  int64_t boundary = day_start + at_hour * 60 * kMinuteMs - off_ms;
  if (now_ms < boundary) boundary -= kDayMs;
  return boundary;
}

std::optional<std::string> stale_reason(const ResetPolicy& policy, int64_t now_ms, int64_t started_ms, int64_t last_ms,
                                        const std::function<int(int64_t)>& offset) {
  if (policy.mode == ResetMode::None) return std::nullopt;
  if (started_ms <= 0 || started_ms > now_ms) started_ms = last_ms;
  if (last_ms <= 0 || last_ms > now_ms) last_ms = started_ms;
  if (started_ms <= 0) return std::nullopt;  // nothing known: leave the session alone
  std::optional<int64_t> daily_at, idle_at;
  if (policy.mode == ResetMode::Daily) daily_at = daily_reset_at_ms(now_ms, policy.at_hour, offset);
  if (policy.idle_minutes && *policy.idle_minutes > 0) idle_at = last_ms + *policy.idle_minutes * kMinuteMs;
  const bool daily = daily_at && started_ms < *daily_at;
  const bool idle = idle_at && now_ms > *idle_at;
  if (daily && idle) return *daily_at <= *idle_at ? "daily" : "idle";
  if (idle) return "idle";
  if (daily) return "daily";
  return std::nullopt;
}

int host_utc_offset_minutes(int64_t unix_ms) {
  const time_t t = static_cast<time_t>(unix_ms / 1000);
  struct tm tm {};
  if (!localtime_r(&t, &tm)) return 0;
  return static_cast<int>(tm.tm_gmtoff / 60);
}

}  // namespace pincer::agent
