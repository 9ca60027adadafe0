// Integer conversions that saturate instead of overflowing: a configured duration such as
// `agents.defaults.timeoutSeconds: 1e20` must become "a very long time", never a negative or
// wrapped value that fires at once (the schema bounds such keys too; this is the second line).
//
// Pure; any thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace pincer {

/// a * b, clamped to [INT64_MIN, INT64_MAX].
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

/// A JSON number as the integer type T, clamped to T's range (a float is truncated; NaN gives
/// `fallback`); `fallback` when `v` is not a number. Unlike json::get<T>() it never overflows.
template <class T>
T saturating_json_int(const nlohmann::json& v, T fallback) {
  static_assert(std::is_integral_v<T>);
  using L = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(L::max()) ? L::max() : static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (i < static_cast<std::int64_t>(L::min())) return L::min();
      if (i > static_cast<std::int64_t>(L::max())) return L::max();
    } else {
      if (i < 0) return 0;
      if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(L::max())) return L::max();
    }
    return static_cast<T>(i);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return fallback;
    // Compare as long double: (double)INT64_MAX rounds up to 2^63, which does not fit.
    if (static_cast<long double>(d) >= static_cast<long double>(L::max())) return L::max();
    if (static_cast<long double>(d) <= static_cast<long double>(L::min())) return L::min();
    return static_cast<T>(d);
  }
  return fallback;
}

}  // namespace pincer
