// Device tokens are bound to the gateway's auth epoch (issue 22, item 7): the authentication
// mode and its shared secret. When either changes — `auth: none` becomes `token`, a leaked token
// is rotated — every device token issued before is revoked, so a device paired under the old
// regime cannot keep going on its token alone; it must present the new shared secret (which
// issues it a fresh token) or be approved again.
//
//   <state>/devices/auth-epoch.json  {version: 1, salt, fingerprint, sinceMs}
//
// fingerprint = hex HMAC-SHA-256(key = salt, "<mode>\0<secret>"): the secret is not stored, and
// the random salt of this state dir keeps the fingerprint from being an offline guessing oracle
// for a password. Written atomically (0600) after the revocation, so a crash in between revokes
// again at the next start (idempotent).
//
// Blocking file I/O (small files); called once at gateway start, before clients connect.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "core/result.h"
#include "store/device_store.h"

namespace pincer::store {

struct AuthEpochOutcome {
  enum class Kind {
    Same,     ///< mode and secret as at the last start: nothing to do
    First,    ///< no record yet (a new state dir, or tokens from a Pincer that kept none)
    Changed,  ///< mode or secret changed: every earlier device token was revoked
  };
  Kind kind = Kind::Same;
  int revoked = 0;      ///< Changed: tokens revoked now
  int unverified = 0;   ///< First: live tokens of unknown epoch (the caller warns about them)
};

/// Compares (mode, secret) with `<dir>/auth-epoch.json`, revokes every live token of `devices`
/// when it differs, and records the current epoch. `dir` empty: nothing (memory-only stores).
/// Errors: IO_ERROR (the record or paired.json cannot be read or written); an unreadable record
/// counts as a change (fail safe: revoke).
Result<AuthEpochOutcome> apply_auth_epoch(DeviceStore& devices, const std::filesystem::path& dir, std::string_view mode,
                                          std::string_view secret, int64_t now_ms);

}  // namespace pincer::store
