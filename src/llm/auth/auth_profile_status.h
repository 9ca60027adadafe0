// One auth profile's state as the operator sees it — shared by `pincer models auth list`
// (app/models_auth_command.cpp) and the gateway's `models.authStatus`
// (gateway/methods/models_auth_status.cpp): one code path for "usable / cooling until … /
// disabled until … / expired". Never a secret: only the id, provider, type, email, times and
// reasons.
//
// Thread affinity: none (pure).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "llm/auth/auth_profiles.h"

namespace pincer::llm::auth {

/// `credential` (a profile of `doc`) at `now_ms`: {id, provider, type ("api_key"|"token"|"oauth"),
/// email?, expires? (ms), lastUsed? (ms), errorCount?, state: "usable"|"cooling"|"disabled"|"expired",
/// cooldownUntil + cooldownReason when cooling, disabledUntil + disabledReason when disabled}.
/// "expired": a token past its expiry (an OAuth credential is refreshed before use).
nlohmann::json profile_state(const AuthProfiles& doc, const Credential& credential, int64_t now_ms);

}  // namespace pincer::llm::auth
