// The `connect` handshake (GW-3, AU-1, AU-2; openclaw-protocol.md §1.4, §4.1): strict validation of
// ConnectParams, protocol negotiation, browser-origin check and shared-secret authentication.
// Pure logic over plain inputs; the Gateway sequences these steps and owns the rate limiter.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "gateway/protocol/client_address.h"
#include "gateway/protocol/device_auth.h"
#include "gateway/protocol/frames.h"

namespace pincer::gateway {

/// What the transport knows about the other end of a socket.
struct PeerInfo {
  std::string remote_ip;                      ///< the socket's peer: "127.0.0.1", "::1", …
  bool loopback = false;                      ///< remote_ip is a loopback address
  std::string host;                           ///< the HTTP Host header
  std::optional<std::string> origin;          ///< the Origin header (browsers)
  std::map<std::string, std::string> headers; ///< all request headers, names lower-cased
  /// Set when remote_ip is a trusted proxy (gateway.trustedProxies): the client it names
  /// (resolve_client_ip), or "unknown" when it named none.
  std::string proxied_client_ip;
  bool forwarded = false;                     ///< the request carries X-Forwarded-For, X-Real-IP or Forwarded

  /// The client's address: remote_ip, or behind a trusted proxy the address that proxy names.
  const std::string& client_ip() const { return proxied_client_ip.empty() ? remote_ip : proxied_client_ip; }
};

/// A handshake failure: the error answered to `connect`, then the socket is closed.
struct ConnectFailure {
  RpcError error;
  uint16_t close_code;  ///< 1008 (policy) or 1002 (protocol mismatch)
};

/// Validated `connect` params (OpenClaw 2026.9's ConnectParamsSchema; unknown keys rejected at every level).
struct ConnectRequest {
  int min_protocol = 0;
  int max_protocol = 0;
  struct Client {
    std::string id, display_name, version, platform, device_family, model_identifier, mode, instance_id;
    std::string build_id;   ///< the client's build (1..96 characters), e.g. the Control UI's bundle hash
    std::string time_zone;  ///< the client's self-reported IANA zone (1..64 characters)
  } client;
  std::vector<std::string> caps;
  std::string role = "operator";
  std::vector<std::string> scopes;   ///< requested scopes, in the order sent
  bool has_device = false;           ///< a `device` identity block was sent
  /// The `device` block {id, publicKey, signature, signedAt, nonce}, shape-checked only: the Gateway
  /// verifies the proof (device_auth::verify_proof) against its challenge nonce.
  std::optional<device_auth::DeviceProof> device;
  std::optional<std::string> token, device_token, password, bootstrap_token;
  std::string locale, user_agent;
};

/// Validates `params` of a connect request. Failure: INVALID_REQUEST
/// "invalid connect params: <path> <what>", close 1008.
std::variant<ConnectRequest, ConnectFailure> parse_connect_params(const nlohmann::json& params);

/// Picks the protocol version: the highest of [kMinProtocol, kMaxProtocol] inside the client's
/// range. Failure: INVALID_REQUEST "protocol mismatch", details {expectedProtocol,
/// minProtocol, maxProtocol}, close 1002.
std::variant<int, ConnectFailure> negotiate_protocol(const ConnectRequest& request);

/// The shared-secret auth configuration (`gateway.auth`, `gateway.trustedProxies`).
struct AuthSettings {
  std::string mode = "token";  ///< none | token | password | trusted-proxy
  std::string token, password;
  std::string trusted_user_header;
  std::vector<std::string> trusted_required_headers, trusted_allow_users, trusted_proxies;
  std::vector<std::string> allowed_origins;  ///< gateway.controlUi.allowedOrigins
  bool loopback_bind = true;                 ///< the gateway listens on a loopback address only
};

/// Whether a browser page at `origin` may talk to this gateway (WebSocket or HTTP route) when its
/// request carries the Host header `host`: an origin in gateway.controlUi.allowedOrigins ("*" = any),
/// or the gateway's own page (scheme://<host>) under a Host no DNS-rebinding page can produce — a
/// loopback Host (localhost, 127.x, [::1]) on a loopback bind; on other binds also an IP literal.
/// Entries match case-insensitively. The opaque origin "null" (sandboxed frames, file:// pages)
/// and anything that is not scheme://host are never allowed, not even by "*".
bool browser_origin_allowed(std::string_view origin, std::string_view host, const AuthSettings& auth);

/// Browser origin check of a WebSocket upgrade (browser_origin_allowed; no Origin = not a browser).
/// Failure: INVALID_REQUEST "origin not allowed (…)", details.code CONTROL_UI_ORIGIN_NOT_ALLOWED,
/// close 1008.
std::optional<ConnectFailure> check_origin(const PeerInfo& peer, const AuthSettings& auth);

/// Result of shared-secret authentication.
struct AuthResult {
  bool ok = false;
  std::string method;   ///< "none" | "token" | "password" | "trusted-proxy"
  std::string user;     ///< trusted-proxy user
  std::string reason;   ///< failure reason (token_missing, token_mismatch, …)
};

/// Authenticates a connect request against `auth` (constant-time comparisons).
AuthResult authenticate(const ConnectRequest& request, const PeerInfo& peer, const AuthSettings& auth);

/// The failure answered for a failed AuthResult: INVALID_REQUEST "unauthorized: …" with
/// details {code: AUTH_*, authReason, canRetryWithDeviceToken, recommendedNextStep}, close 1008.
/// Reason "device_token_mismatch" → AUTH_DEVICE_TOKEN_MISMATCH. `can_retry_with_device_token`: a
/// device sent a mismatching shared token and no device token (next step retry_with_device_token).
ConnectFailure auth_failure(const AuthResult& result, bool can_retry_with_device_token = false);

/// The failure answered while an IP is locked out: AUTH_RATE_LIMITED, retryable, retryAfterMs.
ConnectFailure rate_limited_failure(int64_t retry_after_ms);

/// Constant-time equality of two secrets (lengths may differ; compares SHA-256 digests).
bool secrets_equal(std::string_view a, std::string_view b);

}  // namespace pincer::gateway
