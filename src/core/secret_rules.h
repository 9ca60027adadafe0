// How long a gateway secret must be: one rule for `pincer gateway run` (flag, environment or
// config; also checked before a config reload restarts the gateway), `pincer config validate` and
// `pincer doctor`, so that no command accepts what another calls a failure.
//   token:    < kMinTokenChars refused; < kStrongTokenChars accepted with a warning
//             (onboarding and the first start generate 43 characters).
//   password: < kStrongPasswordChars accepted with a warning (a person chose it; the auth rate
//             limiter slows guessing), never refused.
// Pure; any thread.
#pragma once

#include <cstddef>
#include <string>

namespace pincer::secrets {

inline constexpr std::size_t kMinTokenChars = 16;
inline constexpr std::size_t kStrongTokenChars = 24;
inline constexpr std::size_t kStrongPasswordChars = 12;

enum class Strength { Refused, Weak, Strong };

/// `mode`: "token" or "password" (any other mode has no secret: Strong).
inline Strength secret_strength(const std::string& mode, std::size_t chars) {
  if (mode == "token") return chars < kMinTokenChars ? Strength::Refused : chars < kStrongTokenChars ? Strength::Weak : Strength::Strong;
  if (mode == "password") return chars < kStrongPasswordChars ? Strength::Weak : Strength::Strong;
  return Strength::Strong;
}

/// The one-line reason for a Refused token, e.g. `the gateway token is 5 characters; at least 16
/// are required (generate one: openssl rand -hex 24)`.
inline std::string refused_token_message(std::size_t chars) {
  return "the gateway token is " + std::to_string(chars) + " characters; at least " + std::to_string(kMinTokenChars) +
         " are required (generate one: openssl rand -hex 24)";
}

}  // namespace pincer::secrets
