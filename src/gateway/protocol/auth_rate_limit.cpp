#include "gateway/protocol/auth_rate_limit.h"

namespace pincer::gateway {

std::optional<int64_t> AuthRateLimiter::check(const std::string& ip, bool is_loopback, int64_t now_ms) const {
  if (exempt(is_loopback)) return std::nullopt;
  auto it = by_ip_.find(ip);
  if (it == by_ip_.end() || it->second.locked_until_ms <= now_ms) return std::nullopt;
  return it->second.locked_until_ms - now_ms;
}

void AuthRateLimiter::record_failure(const std::string& ip, bool is_loopback, int64_t now_ms) {
  if (exempt(is_loopback)) return;
  if (by_ip_.size() > 4096) {  // bound memory under a scan: forget idle entries
    std::erase_if(by_ip_, [&](const auto& kv) {
      return kv.second.locked_until_ms <= now_ms && now_ms - kv.second.window_start_ms >= options_.window_ms;
    });
  }
  State& s = by_ip_[ip];
  if (s.failures == 0 || now_ms - s.window_start_ms >= options_.window_ms) {
    s.failures = 0;
    s.window_start_ms = now_ms;
  }
  if (++s.failures >= options_.max_attempts) {
    s.locked_until_ms = now_ms + options_.lockout_ms;
    s.failures = 0;
  }
}

void AuthRateLimiter::record_success(const std::string& ip) { by_ip_.erase(ip); }

}  // namespace pincer::gateway
