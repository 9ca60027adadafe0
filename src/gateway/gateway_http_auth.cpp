// Bearer credentials of HTTP requests (the Control UI's bootstrap JSON) checked like a connect's:
// the same secrets, the same rate limit per client.
#include "gateway/gateway.h"

namespace pincer::gateway {

bool Gateway::authorize_http_bearer(const PeerInfo& peer, std::string_view bearer) {
  if (settings_.auth.mode == "none") return true;
  ConnectRequest req;
  if (!bearer.empty()) req.token = req.password = std::string(bearer);
  const int64_t now = clock_.steady_ms();
  const AuthSource source = auth_source(peer);
  if (auth_limiter_.check(AuthScope::SharedSecret, source, now)) return false;
  if (authenticate(req, peer, settings_.auth).ok) {
    auth_limiter_.record_success(AuthScope::SharedSecret, source);
    return true;
  }
  if (bearer.empty()) return false;  // no credential sent: nothing guessed
  // The Control UI may hold an operator device token from its pairing instead of the shared secret.
  if (!auth_limiter_.check(AuthScope::DeviceToken, source, now)) {
    for (const auto& device : devices_->list_paired()) {
      if (!device.tokens.count("operator")) continue;
      auto verdict = devices_->verify_token(device.device_id, "operator", std::string(bearer), {"operator.read"}, clock_.wall_ms());
      if (verdict && !*verdict) {
        auth_limiter_.record_success(AuthScope::DeviceToken, source);
        return true;
      }
    }
  }
  auth_limiter_.record_failure(AuthScope::SharedSecret, source, now);
  return false;
}

}  // namespace pincer::gateway
