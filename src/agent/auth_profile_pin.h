// A session's pinned auth profile (PV-3; OpenClaw's `/model <provider/model>@<profileId>`): the
// pure parts — splitting the profile off a model reference, checking the profile against the
// agent's auth-profiles.json. The pin is stored in the session entry as OpenClaw does
// (`authProfileOverride`, `authProfileOverrideSource: "user"`); a run tries it first while it is
// usable and rotates to the provider's other profiles when it fails, keeping the pin
// (model_failover.h).
//
// Thread affinity: none (pure).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "llm/auth/auth_profiles.h"

namespace pincer::agent {

struct ModelRefWithProfile {
  std::string model;    ///< the reference without the profile, trimmed
  std::string profile;  ///< "" = none
};

/// OpenClaw's splitTrailingAuthProfile: the first '@' after the last '/' starts the profile id,
/// except a date suffix (`@20250101`) and a quantisation suffix (`@q4_k_m`, `@8bit`) that are part
/// of the model's name. "openai/gpt-4.1@openai:work" → {"openai/gpt-4.1", "openai:work"}.
ModelRefWithProfile split_model_profile(std::string_view raw);

/// Checks that `profile_id` can be pinned for a model of `provider`. Errors (INVALID_REQUEST):
/// an unknown id (the message names the provider's known profiles, or says there are none) and a
/// profile of another provider.
Status check_pinnable_profile(const llm::auth::AuthProfiles& profiles, std::string_view profile_id,
                              std::string_view provider);

}  // namespace pincer::agent
