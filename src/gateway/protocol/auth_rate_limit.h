// Failed-authentication rate limiter (AU-2; openclaw-protocol.md §4.1, `gateway.auth.rateLimit`):
// after `maxAttempts` failures from one client within `windowMs`, that client is locked out for
// `lockoutMs`. Failures are counted per credential class (AuthScope), so that a success with one
// (say an operator.read device token) does not wipe the failures of another (guesses at the shared
// password). Direct local clients are exempt when `exemptLoopback` (the default); proxied and
// browser connections never are (auth_source). Loop-affine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "gateway/protocol/connect.h"

namespace pincer::gateway {

struct AuthRateLimitOptions {
  int max_attempts = 10;
  int64_t window_ms = 60'000;
  int64_t lockout_ms = 300'000;
  bool exempt_loopback = true;
};

/// The credential class an attempt is counted against (OpenClaw's limiter scopes).
enum class AuthScope { SharedSecret, DeviceToken };

/// Who an attempt is counted for.
struct AuthSource {
  std::string key;     ///< the client IP, "unknown", or "browser-origin:<origin>" for a local browser
  bool local = false;  ///< a direct loopback client (no proxy headers, no browser Origin): may be exempt
};

/// The limiter's view of `peer`: its client IP (resolved through trusted proxies; "unknown" when a
/// trusted proxy named none); a browser page on this machine is keyed by its Origin, so that a
/// hostile page neither escapes the limit nor locks the owner's own web chat out.
AuthSource auth_source(const PeerInfo& peer);

class AuthRateLimiter {
 public:
  explicit AuthRateLimiter(AuthRateLimitOptions options = {}) : options_(options) {}

  /// nullopt when `source` may try a credential of `scope` now, else the ms until its lockout ends.
  std::optional<int64_t> check(AuthScope scope, const AuthSource& source, int64_t now_ms) const;
  /// Records a failed attempt (may start a lockout).
  void record_failure(AuthScope scope, const AuthSource& source, int64_t now_ms);
  /// Clears the failures of `source` in `scope` only, after a success with that credential class.
  void record_success(AuthScope scope, const AuthSource& source);

 private:
  struct State {
    int failures = 0;
    int64_t window_start_ms = 0;
    int64_t locked_until_ms = 0;
  };
  bool exempt(const AuthSource& source) const { return source.local && options_.exempt_loopback; }
  static std::string key(AuthScope scope, const AuthSource& source);

  AuthRateLimitOptions options_;
  std::unordered_map<std::string, State> by_key_;
};

}  // namespace pincer::gateway
