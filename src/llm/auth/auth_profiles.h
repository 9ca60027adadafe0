// Auth profiles (PV-2, PV-3): several credentials per provider, in OpenClaw's file shape, with the
// usage statistics that drive rotation and cooldowns. This header is the pure part — the document
// model, the order, the cooldown arithmetic; auth_profile_file.h reads and writes the file.
//
// File `<state>/agents/<agentId>/agent/auth-profiles.json` (OpenClaw's path and shape):
//   {"version": 1,
//    "profiles":   {"<id>": {"type": "api_key", "provider": "openai", "key": "sk-…", "email"?},
//                   "<id>": {"type": "token",   "provider": "anthropic", "token": "…", "expires"?: ms},
//                   "<id>": {"type": "oauth",   "provider": "…", "access": "…", "refresh": "…", "expires": ms}},
//    "order"?:     {"<provider>": ["<id>", …]},            // explicit preferred order
//    "lastGood"?:  {"<provider>": "<id>"},
//    "usageStats"?: {"<id>": {"lastUsed", "cooldownUntil", "cooldownReason", "disabledUntil",
//                             "disabledReason", "errorCount", "failureCounts": {"<reason>": n},
//                             "lastFailureAt", "cooldownModel"?}}}  // all times ms since the epoch
// Members Pincer does not know are kept as they are (the file round-trips). Profile ids are
// "<provider>:<name>" by convention ("openai:default", "anthropic:me@example.com").
//
// Order (PV-3): the explicit order for the provider first (ids that exist), then the rest by type —
// oauth, token, api_key — and within a type the least recently used first; profiles that are
// cooling down or disabled move to the end, soonest available first. An expired token is unusable.
//
// Cooldowns (PV-2): rate_limit / overloaded / timeout / auth / unknown failures put a profile in
// cooldown for 30 s, 1 min, 5 min, 25 min, then 1 h (the cap), by its error count (a format
// error — the request rejected — says nothing about the credential: no cooldown);
// billing and auth_permanent disable it for 5 h doubling per such failure up to 24 h (OpenClaw's
// billing backoff). Counters reset when the profile has not failed for 24 h
// (OpenClaw's failureWindowHours). A success clears the cooldown, the error count and the
// failure counts, and records lastUsed and lastGood.
//
// Per-model cooldowns (PV-2, OpenClaw's `cooldownModel`): providers limit rates per model, so a
// rate_limit or timeout failure of one model records that model's id in `cooldownModel` and cools
// the profile for that model only; the same profile stays usable for its other models. One
// member, as OpenClaw keeps it: a second model-scoped failure of another model while the cooldown
// runs widens it to the whole profile (cooldownModel removed), and any other reason, billing and
// auth_permanent disables always cover every model. Without a model id (callers that do not know
// it) the cooldown is the profile's. A model-scoped cooldown counts for a question asked without a
// model (`for_model` empty), so older readers and `doctor` stay conservative.
#pragma once

#include <cstdint>
#include <map>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "llm/failover.h"

namespace pincer::llm::auth {

enum class CredentialType { ApiKey, Token, OAuth };

/// "api_key" | "token" | "oauth".
std::string_view to_string(CredentialType type);
std::optional<CredentialType> credential_type_from_string(std::string_view s);

/// One profile's credential. `secret` is the key (api_key), the token (token) or the access token
/// (oauth): the value sent to the provider.
struct Credential {
  std::string id;
  std::string provider;
  CredentialType type = CredentialType::ApiKey;
  std::string secret;
  std::string refresh;         ///< oauth only
  int64_t expires_ms = 0;      ///< token/oauth expiry (0 = none)
  std::string email;
};

/// Longest secret a profile may hold (bytes); longer ones are ignored with a warning.
inline constexpr std::size_t kMaxSecretBytes = 8 * 1024;
/// Whether `secret` can go into an HTTP header: no control characters (CR/LF would inject
/// headers), at most kMaxSecretBytes.
bool secret_is_sendable(std::string_view secret);
/// Whether a token or OAuth credential has expired at `now_ms` and cannot be renewed: api keys
/// never expire, and an OAuth credential with a refresh token is refreshed before use
/// (agent/oauth_refresher.h), so only one without a refresh token counts as expired.
bool expired(const Credential& credential, int64_t now_ms);

/// One profile's usage statistics (all times ms since the epoch; 0 = unset).
struct UsageStats {
  int64_t last_used = 0;
  int64_t cooldown_until = 0;
  std::string cooldown_reason;  ///< a FailoverReason name, e.g. "rate_limit"
  int64_t disabled_until = 0;
  std::string disabled_reason;  ///< "billing" | "auth_permanent"
  int error_count = 0;
  std::map<std::string, int> failure_counts;  ///< by FailoverReason name
  int64_t last_failure_at = 0;
  std::string cooldown_model;  ///< the model id the cooldown is limited to ("" = every model)

  /// When the profile may be used again for `for_model` (a model id; "" = any use):
  /// max(cooldown_until, disabled_until), leaving out a cooldown limited to another model; 0 when
  /// usable.
  int64_t unusable_until(std::string_view for_model = {}) const;
  /// Whether the cooldown is limited to one model (a model-scoped reason with cooldownModel set).
  bool cooldown_is_model_scoped() const;
};

/// Cooldown step durations (ms) for rate_limit-like failures, by error count 1, 2, 3, 4, ≥5.
inline constexpr int64_t kCooldownStepsMs[] = {30'000, 60'000, 300'000, 1'500'000, 3'600'000};
inline constexpr int64_t kBillingBackoffMs = 5 * 3'600'000LL;     ///< first billing disable (5 h)
inline constexpr int64_t kBillingBackoffMaxMs = 24 * 3'600'000LL; ///< cap (24 h)
inline constexpr int64_t kFailureWindowMs = 24 * 3'600'000LL;     ///< counters reset after this quiet time

/// The cooldown after the `error_count`-th failure in a row (1-based; ≥ 5 = the cap).
int64_t cooldown_ms(int error_count);
/// The disable time after the `count`-th billing/auth_permanent failure (1-based).
int64_t disable_ms(int count);
/// Whether a failure of `reason` cools a profile for the failing model only (rate_limit, timeout,
/// model_not_found — OpenClaw's model-scoped reasons — and network, which OpenClaw counts as timeout).
bool model_scoped_reason(std::string_view reason);

/// The whole document. Parse with from_json, serialise with to_json (unknown members kept).
class AuthProfiles {
 public:
  /// Parses a document. Errors: "AUTH_PROFILES_INVALID" naming what is wrong and where when the
  /// document's shape is wrong ("order.openai must be an array of profile ids"). A bad profile (not
  /// an object, an unknown type, no provider or secret, a secret with control characters) is kept
  /// in the file but left out of credentials() and reported in warnings(); the others stay usable.
  static Result<AuthProfiles> from_json(const nlohmann::json& doc);
  nlohmann::json to_json() const;

  /// Every usable-shaped credential, in file order.
  const std::vector<Credential>& credentials() const { return credentials_; }
  const Credential* find(std::string_view id) const;
  /// Problems with individual profiles found while parsing, one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

  /// The stats of a profile (empty stats when none are recorded).
  UsageStats stats(std::string_view id) const;

  /// PV-3: the ids of `provider`'s profiles in the order to try them at `now_ms` for model id
  /// `for_model` ("" = any model; see the file comment). `preferred` (a session's pinned profile)
  /// goes first when usable. Provider names compare ASCII case-insensitively.
  std::vector<std::string> order(std::string_view provider, int64_t now_ms, std::string_view preferred = {},
                                 std::string_view for_model = {}) const;
  /// Whether `id` can be used at `now_ms` for model id `for_model` ("" = any): not cooling (for
  /// that model), not disabled, not expired.
  bool usable(std::string_view id, int64_t now_ms, std::string_view for_model = {}) const;

  /// Records a failure of profile `id` (classified by the failover classifier) on model id
  /// `model_id` ("" = unknown): cooldown or disable as in the file comment. Reasons that say
  /// nothing about the credential (context_overflow, model_not_found, session_expired, format —
  /// a rejected request) change nothing and return false.
  bool mark_failure(std::string_view id, FailoverReason reason, int64_t now_ms, std::string_view model_id = {});
  /// Records a successful call with profile `id` on model id `model_id` ("" = unknown). A running
  /// cooldown limited to another model is kept (that model is still limited), with its counters.
  void mark_good(std::string_view id, int64_t now_ms, std::string_view model_id = {});

  /// Adds or replaces a profile (the CLI). A replaced secret loses the old one's usage stats; the
  /// explicit order is left as it is.
  void put(const Credential& credential);
  /// Stores the tokens of an OAuth refresh in profile `id` (access, refresh, expires ms), keeping
  /// its other members and its usage stats; false when `id` is not an oauth profile.
  bool set_oauth_tokens(std::string_view id, const std::string& access, const std::string& refresh, int64_t expires_ms);
  /// Removes a profile, its stats and its place in the order; false when unknown.
  bool remove(std::string_view id);
  /// Sets the explicit order of `provider` (empty = clears it).
  void set_order(std::string_view provider, const std::vector<std::string>& ids);
  /// The explicit order of `provider` (empty when none).
  std::vector<std::string> explicit_order(std::string_view provider) const;

 private:
  nlohmann::json doc_ = nlohmann::json::object();
  std::vector<Credential> credentials_;
  std::vector<std::string> warnings_;
  void reparse();
  nlohmann::json& stats_json(std::string_view id);
};

}  // namespace pincer::llm::auth
