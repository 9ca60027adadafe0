// Retry timing of provider failures (llm/failover.h): the Retry-After header (delay-seconds or an
// HTTP-date), the "try again in …" hint in a provider's message, and the backoff with jitter.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>

#include "core/civil_date.h"
#include "llm/failover.h"
#include "llm/failover_internal.h"

namespace pincer::llm {

namespace detail_failover_retry {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") as milliseconds since the epoch.
std::optional<int64_t> parse_http_date_ms(std::string_view value) {
  static constexpr std::string_view kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
  const std::string s(value.substr(0, 64));
  char wday[4] = {0}, mon[4] = {0}, zone[4] = {0};
  int day = 0, year = 0, hh = 0, mm = 0, ss = 0;
  if (std::sscanf(s.c_str(), "%3[A-Za-z], %d %3[A-Za-z] %d %d:%d:%d %3s", wday, &day, mon, &year, &hh, &mm,
                  &ss, zone) != 8) {
    return std::nullopt;
  }
  const std::string month = lower_ascii(mon);
  const auto it = std::find(std::begin(kMonths), std::end(kMonths), month);
  if (it == std::end(kMonths) || lower_ascii(zone) != "gmt" || day < 1 || day > 31 || year < 1970 || year > 9999 ||
      hh > 23 || mm > 59 || ss > 60 || hh < 0 || mm < 0 || ss < 0) {
    return std::nullopt;
  }
  const auto m = static_cast<unsigned>(it - std::begin(kMonths) + 1);
  const int64_t days = civil::days_from_civil(year, m, static_cast<unsigned>(day));
  return ((days * 24 + hh) * 60 + mm) * 60'000 + ss * 1000LL;
}

}  // namespace detail_failover_retry

std::optional<int64_t> failover_retry_hint_ms(std::string_view lowered) {
  const auto pos = lowered.find("try again in ");
  if (pos == std::string_view::npos) return std::nullopt;
  const std::string rest(lowered.substr(pos + 13, 32));
  double value = 0;
  char unit[4] = {0};
  if (std::sscanf(rest.c_str(), "%lf%3[a-z]", &value, unit) != 2 || !(value >= 0) || value > 86400) {
    return std::nullopt;
  }
  const std::string_view u(unit);
  if (u == "ms") return static_cast<int64_t>(std::ceil(value));
  if (u == "s" || u == "sec") return static_cast<int64_t>(std::ceil(value * 1000));
  if (u == "m" || u == "min") return static_cast<int64_t>(std::ceil(value * 60000));
  return std::nullopt;
}

std::optional<int64_t> parse_retry_after(std::string_view value, int64_t now) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    if (value.find_first_not_of("0123456789.") != std::string_view::npos || value.size() > 12) return std::nullopt;
    const double seconds = std::strtod(std::string(value).c_str(), nullptr);
    return static_cast<int64_t>(std::ceil(seconds * 1000));
  }
  const auto at = detail_failover_retry::parse_http_date_ms(value);
  if (!at) return std::nullopt;
  return std::max<int64_t>(0, *at - now);
}

int64_t backoff_ms(int attempt, const ProviderFailure& failure) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  return backoff_ms(attempt, failure, dist(rng));
}

int64_t backoff_ms(int attempt, const ProviderFailure& failure, double jitter) {
  if (!failure.retryable || attempt < 1 || attempt > kMaxRetryAttempts) return 0;
  if (failure.retry_after_ms && *failure.retry_after_ms > 0) {
    return *failure.retry_after_ms > kMaxRetryAfterMs ? 0 : *failure.retry_after_ms;
  }
  const int64_t delay = std::min(kBackoffCapMs, kBackoffBaseMs << std::min(attempt - 1, 16));
  jitter = std::clamp(jitter, 0.0, 1.0);
  return std::max<int64_t>(1, delay / 2 + static_cast<int64_t>(jitter * static_cast<double>(delay / 2)));
}

}  // namespace pincer::llm
