#include "llm/auth/auth_profile_status.h"

#include <string>

namespace pincer::llm::auth {

nlohmann::json profile_state(const AuthProfiles& doc, const Credential& c, int64_t now) {
  const UsageStats s = doc.stats(c.id);
  nlohmann::json r = {{"id", c.id}, {"provider", c.provider}, {"type", std::string(to_string(c.type))}};
  if (!c.email.empty()) r["email"] = c.email;
  if (c.expires_ms > 0) r["expires"] = c.expires_ms;
  if (s.last_used > 0) r["lastUsed"] = s.last_used;
  if (s.error_count > 0) r["errorCount"] = s.error_count;
  std::string state = "usable";
  if (c.type == CredentialType::Token && c.expires_ms > 0 && c.expires_ms <= now) {
    state = "expired";
  } else if (s.disabled_until > now) {
    state = "disabled";
    r["disabledUntil"] = s.disabled_until;
    r["disabledReason"] = s.disabled_reason;
  } else if (s.cooldown_until > now) {
    state = "cooling";
    r["cooldownUntil"] = s.cooldown_until;
    r["cooldownReason"] = s.cooldown_reason;
  }
  r["state"] = state;
  return r;
}

}  // namespace pincer::llm::auth
