// The edits an operator makes to an agent's auth profiles (PV-2, PV-3), shared by the CLI
// (`pincer models auth add|remove|order`, app/models_auth_command.cpp) and the gateway methods
// `models.authSetApiKey|authLogout|authOrderSet` (gateway/methods/models_auth.cpp): one code path
// for the checks, the choice of profile id and the write. Every write goes through
// AuthProfileFile::update (locked, atomic, 0600); every new secret is registered for log
// redaction (AU-5) before it is stored; no result or error message contains a secret.
//
// Errors (Result codes): "INVALID_INPUT" — the input is wrong, the message names the field
// ("apiKey is empty"); "AUTH_PROFILE_UNKNOWN" — a named profile does not exist (or belongs to
// another provider); "AUTH_PROFILE_CONFLICT" — the profile the key would go to holds another kind
// of credential; and AuthProfileFile's "AUTH_PROFILES_INVALID" / "IO_ERROR".
//
// Thread affinity: none (AuthProfileFile locks). Blocking file I/O: the file is small.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "llm/auth/auth_profile_file.h"

namespace pincer::llm::auth {

/// A secret as pasted: line breaks (CR, LF, U+2028, U+2029) removed and surrounding whitespace
/// trimmed. "INVALID_INPUT" naming `field` when nothing is left, or when it still holds a control
/// character or is longer than kMaxSecretBytes (it could not be sent in an HTTP header).
Result<std::string> clean_secret(std::string_view raw, std::string_view field);

/// A provider id as OpenClaw keeps it: trimmed and lower-cased. "INVALID_INPUT" naming `field`
/// when empty or holding whitespace or '/'.
Result<std::string> normalize_provider(std::string_view raw, std::string_view field);

/// Adds or replaces `credential` (the CLI's `add`). Checks: a provider without whitespace or '/',
/// an id without tabs or line breaks, a sendable secret. Returns whether a profile was replaced.
Result<bool> put_credential(AuthProfileFile& file, const Credential& credential);

struct SavedApiKey {
  std::string provider;    ///< normalized
  std::string profile_id;  ///< where the key went
  bool replaced = false;   ///< an existing profile's key was replaced
};
/// OpenClaw's `models.authSetApiKey`: stores `api_key` for `provider` (both normalized as above)
/// in the provider's first API-key profile in the order that applies at `now_ms`, or in a new
/// profile `<provider>:manual` when it has none. OpenAI keys must look like one (`sk-…`), as
/// OpenClaw checks. "AUTH_PROFILE_CONFLICT" when `<provider>:manual` exists with another type.
Result<SavedApiKey> save_api_key(AuthProfileFile& file, std::string_view provider, std::string_view api_key,
                                 int64_t now_ms);

/// Which profiles to remove: every profile of `provider` (API-key profiles only with
/// `api_keys_only`), or exactly `ids`. With `provider` empty, `ids` may name any provider's
/// profiles (the CLI's `remove <id>`).
struct RemoveSelection {
  std::string provider;
  std::optional<std::vector<std::string>> ids;
  bool api_keys_only = false;
};
/// Removes the selected profiles with their stats, order entries and lastGood; returns their ids
/// in file order. "AUTH_PROFILE_UNKNOWN" naming the ids that do not exist (or are not of
/// `provider`): then nothing is removed and the file is left as it is.
Result<std::vector<std::string>> remove_profiles(AuthProfileFile& file, const RemoveSelection& selection);

/// Sets the explicit order of `provider` to `ids` (empty = clears it). "INVALID_INPUT" when an id
/// is given twice; "AUTH_PROFILE_UNKNOWN" naming ids that are not profiles of `provider`; with
/// `require_every_profile` (OpenClaw's models.authOrderSet), "INVALID_INPUT" when a profile of the
/// provider is left out. The file is left as it is on error.
Status set_provider_order(AuthProfileFile& file, std::string_view provider, const std::vector<std::string>& ids,
                          bool require_every_profile);

}  // namespace pincer::llm::auth
