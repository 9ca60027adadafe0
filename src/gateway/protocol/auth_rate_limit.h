// Failed-authentication rate limiter (AU-2; openclaw-protocol.md §4.1, `gateway.auth.rateLimit`):
// after `maxAttempts` failures from one client IP within `windowMs`, that IP is locked out for
// `lockoutMs`. Loopback clients are exempt when `exemptLoopback` (the default). Loop-affine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace pincer::gateway {

struct AuthRateLimitOptions {
  int max_attempts = 10;
  int64_t window_ms = 60'000;
  int64_t lockout_ms = 300'000;
  bool exempt_loopback = true;
};

class AuthRateLimiter {
 public:
  explicit AuthRateLimiter(AuthRateLimitOptions options = {}) : options_(options) {}

  /// nullopt when `ip` may try to authenticate now, else the ms until its lockout ends.
  std::optional<int64_t> check(const std::string& ip, bool is_loopback, int64_t now_ms) const;
  /// Records a failed attempt (may start a lockout).
  void record_failure(const std::string& ip, bool is_loopback, int64_t now_ms);
  /// Clears the failures of `ip` after a success.
  void record_success(const std::string& ip);

 private:
  struct State {
    int failures = 0;
    int64_t window_start_ms = 0;
    int64_t locked_until_ms = 0;
  };
  bool exempt(bool is_loopback) const { return is_loopback && options_.exempt_loopback; }

  AuthRateLimitOptions options_;
  std::unordered_map<std::string, State> by_ip_;
};

}  // namespace pincer::gateway
