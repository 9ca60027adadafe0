// `models.authStatus`'s answer in OpenClaw's shape (its server-methods/models-auth-status.ts),
// built from an agent's auth profiles (llm/auth) and the configured provider keys. Each profile's
// state comes from llm/auth/auth_profile_status — the function `pincer models auth list` uses.
// No secret is ever part of it.
//
//   {ts, providers: [{provider, authProvider, displayName, status, expiry?, profiles: [...],
//                     profileOrder?, profileOrderStored?, apiKey?: {source: "config"}}],
//    providerCapabilities: [{provider, apiKeySupported: true, quickApiKeySetup: true}]}
//
// A profile: {profileId, type, status: "static"|"ok"|"expiring"|"expired", reasonCode?: "expired",
// source: "saved", expiry?: {at, remainingMs, label}, logoutSupported: true, email? and
// lastUsedAt? (only for operator.admin, as OpenClaw), and Pincer's own state from
// `pincer models auth list`: state "usable"|"cooling"|"disabled"|"expired", cooldownUntil +
// cooldownReason, disabledUntil + disabledReason, errorCount?}. A provider's status is OpenClaw's
// roll-up: over its token/OAuth profiles the worst of expired, missing, expiring, ok; else
// "static" when it has an API-key profile or a key in models.providers.<p>.apiKey.
//
// Thread affinity: none (pure).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "llm/auth/auth_profiles.h"

namespace pincer::gateway {

/// The payload for `doc` (the agent's profiles) and `config` (the effective configuration) at
/// `now_ms`; `include_identity` adds each profile's email and last-use time.
nlohmann::json models_auth_status_payload(const llm::auth::AuthProfiles& doc, const nlohmann::json& config,
                                          int64_t now_ms, bool include_identity);

}  // namespace pincer::gateway
