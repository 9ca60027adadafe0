#include "llm/auth/oauth_refresh.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/percent_encoding.h"

namespace pincer::llm::auth {

namespace detail_oauth_refresh {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace detail_oauth_refresh

std::optional<OAuthEndpoint> builtin_oauth_endpoint(std::string_view provider) {
  using detail_oauth_refresh::same_name;
  if (same_name(provider, "openai") || same_name(provider, "openai-codex")) {
    return OAuthEndpoint{"https://auth.openai.com/oauth/token", "app_EMoamEEZ73f0CkXaXp7hrann", TokenBodyFormat::Form};
  }
  if (same_name(provider, "anthropic")) {
    return OAuthEndpoint{"https://platform.claude.com/v1/oauth/token", "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
                         TokenBodyFormat::Json};
  }
  if (same_name(provider, "xai")) {
    return OAuthEndpoint{"https://auth.x.ai/oauth/token", "b1a00492-073a-47ea-816f-4c329264a828", TokenBodyFormat::Form};
  }
  return std::nullopt;
}

std::optional<OAuthEndpoint> oauth_endpoint(std::string_view provider, std::string_view token_url,
                                            std::string_view client_id, std::string_view body_format) {
  std::optional<OAuthEndpoint> e = builtin_oauth_endpoint(provider);
  if (!token_url.empty()) {
    if (!e) e = OAuthEndpoint{};
    e->token_url = std::string(token_url);
  }
  if (!e) return std::nullopt;
  if (!client_id.empty()) e->client_id = std::string(client_id);
  if (body_format == "json") e->format = TokenBodyFormat::Json;
  else if (body_format == "form") e->format = TokenBodyFormat::Form;
  return e;
}

bool needs_refresh(const Credential& c, int64_t now_ms, int64_t margin_ms) {
  return c.type == CredentialType::OAuth && !c.refresh.empty() && c.expires_ms > 0 && c.expires_ms - margin_ms <= now_ms;
}

std::string form_encode(std::string_view value) { return percent_encode(value); }

TokenRequest refresh_request(const OAuthEndpoint& endpoint, std::string_view refresh_token) {
  if (endpoint.format == TokenBodyFormat::Json) {
    nlohmann::json body = {{"grant_type", "refresh_token"}, {"refresh_token", std::string(refresh_token)}};
    if (!endpoint.client_id.empty()) body["client_id"] = endpoint.client_id;
    return {"application/json", body.dump()};
  }
  std::string body = "grant_type=refresh_token&refresh_token=" + form_encode(refresh_token);
  if (!endpoint.client_id.empty()) body += "&client_id=" + form_encode(endpoint.client_id);
  return {"application/x-www-form-urlencoded", body};
}

Result<RefreshedTokens> parse_refresh_response(int status, std::string_view body, int64_t now_ms,
                                               std::string_view old_refresh) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (status < 200 || status >= 300) {
    std::string code;
    if (j.is_object()) {
      if (j.contains("error") && j["error"].is_string()) code = j["error"].get<std::string>();
      else if (j.contains("error") && j["error"].is_object()) code = j["error"].value("code", j["error"].value("type", ""));
    }
    for (const char* permanent : {"invalid_grant", "invalid_refresh_token", "refresh_token_expired",
                                  "refresh_token_invalidated", "refresh_token_reused"}) {
      if (code == permanent) {
        return Error{"OAUTH_INVALID_GRANT", "the token endpoint refused the refresh token (HTTP " + std::to_string(status) +
                                                ", " + code + "): log in again"};
      }
    }
    return Error{"OAUTH_REFRESH_FAILED", "the token endpoint answered HTTP " + std::to_string(status) +
                                             (code.empty() ? std::string() : " (" + code + ")")};
  }
  if (!j.is_object()) return Error{"OAUTH_REFRESH_FAILED", "the token endpoint's answer is not a JSON object"};
  const std::string access = j.value("access_token", "");
  const std::string refresh = j.contains("refresh_token") && j["refresh_token"].is_string() ? j["refresh_token"].get<std::string>()
                                                                                           : std::string(old_refresh);
  if (access.empty() || !j.contains("expires_in") || !j["expires_in"].is_number() || j["expires_in"].get<double>() <= 0) {
    return Error{"OAUTH_REFRESH_FAILED", "the token endpoint's answer lacks access_token or a positive expires_in"};
  }
  if (!secret_is_sendable(access) || !secret_is_sendable(refresh)) {
    return Error{"OAUTH_REFRESH_FAILED", "the token endpoint's tokens contain control characters or are too long"};
  }
  const double seconds = std::min(j["expires_in"].get<double>(), 10.0 * 365 * 24 * 3600);
  return RefreshedTokens{access, refresh, now_ms + static_cast<int64_t>(seconds * 1000)};
}

}  // namespace pincer::llm::auth
