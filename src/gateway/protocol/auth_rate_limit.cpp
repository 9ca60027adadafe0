#include "gateway/protocol/auth_rate_limit.h"

namespace pincer::gateway {

AuthSource auth_source(const PeerInfo& peer) {
  const bool browser = peer.origin && !peer.origin->empty();
  const std::string ip = peer.client_ip().empty() ? "unknown" : peer.client_ip();
  const bool loopback_client = is_loopback_ip(peer.client_ip());
  if (browser && loopback_client) return {"browser-origin:" + *peer.origin, false};
  return {ip, loopback_client && !peer.forwarded && !browser};
}

std::string AuthRateLimiter::key(AuthScope scope, const AuthSource& source) {
  return (scope == AuthScope::SharedSecret ? "shared-secret:" : "device-token:") + source.key;
}

std::optional<int64_t> AuthRateLimiter::check(AuthScope scope, const AuthSource& source, int64_t now_ms) const {
  if (exempt(source)) return std::nullopt;
  auto it = by_key_.find(key(scope, source));
  if (it == by_key_.end() || it->second.locked_until_ms <= now_ms) return std::nullopt;
  return it->second.locked_until_ms - now_ms;
}

void AuthRateLimiter::record_failure(AuthScope scope, const AuthSource& source, int64_t now_ms) {
  if (exempt(source)) return;
  if (by_key_.size() > 4096) {  // bound memory under a scan: forget idle entries
    std::erase_if(by_key_, [&](const auto& kv) {
      return kv.second.locked_until_ms <= now_ms && now_ms - kv.second.window_start_ms >= options_.window_ms;
    });
  }
  State& s = by_key_[key(scope, source)];
  if (s.failures == 0 || now_ms - s.window_start_ms >= options_.window_ms) {
    s.failures = 0;
    s.window_start_ms = now_ms;
  }
  if (++s.failures >= options_.max_attempts) {
    s.locked_until_ms = now_ms + options_.lockout_ms;
    s.failures = 0;
  }
}

void AuthRateLimiter::record_success(AuthScope scope, const AuthSource& source) { by_key_.erase(key(scope, source)); }

}  // namespace pincer::gateway
