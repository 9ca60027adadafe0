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

#include "gateway/protocol/device_auth.h"
#include "gateway/protocol/frames.h"

namespace pincer::gateway {

/// What the transport knows about the other end of a socket.
struct PeerInfo {
  std::string remote_ip;                      ///< "127.0.0.1", "::1", …
  bool loopback = false;                      ///< remote_ip is a loopback address
  std::string host;                           ///< the HTTP Host header
  std::optional<std::string> origin;          ///< the Origin header (browsers)
  std::map<std::string, std::string> headers; ///< all request headers, names lower-cased
};

/// A handshake failure: the error answered to `connect`, then the socket is closed.
struct ConnectFailure {
  RpcError error;
  uint16_t close_code;  ///< 1008 (policy) or 1002 (protocol mismatch)
};

/// Validated `connect` params (ConnectParamsSchema; unknown keys rejected at every level).
struct ConnectRequest {
  int min_protocol = 0;
  int max_protocol = 0;
  struct Client {
    std::string id, display_name, version, platform, device_family, model_identifier, mode, instance_id;
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
};

/// Browser origin check: a request with an Origin header must come from the page the gateway
/// serves (same host) or from an allowed origin. Failure: INVALID_REQUEST
/// "origin not allowed (…)", details.code CONTROL_UI_ORIGIN_NOT_ALLOWED, close 1008.
/// With auth mode "none", same-origin is accepted only when the Host header names loopback
/// (localhost, 127.x, [::1]) — DNS rebinding protection.
std::optional<ConnectFailure> check_origin(const PeerInfo& peer, const AuthSettings& auth);

/// True for a Host header value naming loopback: localhost, 127.x.x.x or [::1], with or without a port.
bool is_loopback_host_header(std::string_view host);

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
