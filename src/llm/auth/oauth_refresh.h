// OAuth refresh of `oauth` auth profiles (PV-2) — the pure part: which providers refresh where
// (OpenClaw's built-in OAuth providers), when a profile needs a refresh, the refresh_token request
// (OAuth 2.0, RFC 6749 §6) and the token endpoint's answer. The I/O side — the call on the event
// loop, single flight per profile, the write back to auth-profiles.json, redaction — is
// agent/oauth_refresher.h; runs use it before a call and after a 401 (agent/agent_run_oauth.cpp).
// Endpoints can be overridden per provider (models.providers.<id>.oauth, docs/providers.md).
//
// Thread affinity: none (pure).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "llm/auth/auth_profiles.h"

namespace pincer::llm::auth {

/// How a provider's token endpoint wants its body: form-encoded (RFC 6749) or JSON (Anthropic).
enum class TokenBodyFormat { Form, Json };

struct OAuthEndpoint {
  std::string token_url;
  std::string client_id;
  TokenBodyFormat format = TokenBodyFormat::Form;
};

/// OpenClaw's built-in OAuth providers: openai (and its legacy id openai-codex), anthropic, xai.
/// Provider names compare ASCII case-insensitively; nullopt for others.
std::optional<OAuthEndpoint> builtin_oauth_endpoint(std::string_view provider);

/// The endpoint for `provider` with the configured overrides (models.providers.<id>.oauth: token
/// URL, client id, body format "form" | "json"; "" = not set) applied over the built-in one. A
/// provider without a built-in endpoint needs `token_url` (format defaults to form, client id to
/// none); nullopt when there is no endpoint at all.
std::optional<OAuthEndpoint> oauth_endpoint(std::string_view provider, std::string_view token_url,
                                            std::string_view client_id, std::string_view body_format);

/// Refresh this long before `expires` (ms): a token about to expire would fail mid-request.
inline constexpr int64_t kRefreshMarginMs = 5 * 60'000;
/// Whether `c` is an oauth profile with a refresh token whose access token expires within the margin.
bool needs_refresh(const Credential& c, int64_t now_ms, int64_t margin_ms = kRefreshMarginMs);

/// application/x-www-form-urlencoded encoding of one value (RFC 3986 unreserved kept, space → %20).
std::string form_encode(std::string_view value);

struct TokenRequest {
  std::string content_type;
  std::string body;
};
/// grant_type=refresh_token, refresh_token, client_id (left out when empty) in the endpoint's format.
TokenRequest refresh_request(const OAuthEndpoint& endpoint, std::string_view refresh_token);

struct RefreshedTokens {
  std::string access;
  std::string refresh;     ///< the new one, or the old one when the answer has none
  int64_t expires_ms = 0;  ///< now + expires_in
};

/// Reads the token endpoint's answer. Errors: "OAUTH_INVALID_GRANT" (400/401 with error
/// invalid_grant or a revoked/expired/reused refresh token: the profile must be logged in again),
/// "OAUTH_REFRESH_FAILED" (any other failure: transient). Messages never contain tokens.
Result<RefreshedTokens> parse_refresh_response(int status, std::string_view body, int64_t now_ms,
                                               std::string_view old_refresh);

}  // namespace pincer::llm::auth
