// The device pairing store (AU-3, GW-4; openclaw-protocol.md §4.4, OpenClaw src/infra/device-pairing.ts):
//   <state>/devices/pending.json  {requestId: PendingRequest}   requests awaiting approval (TTL 5 min)
//   <state>/devices/paired.json   {deviceId: PairedDevice}      approved devices and their role tokens
// Same file names and JSON shapes as OpenClaw, so a state dir can move between the two. Both files are
// rewritten atomically (temp + fsync + rename, mode 0600) after every change; they are small.
// A store opened with an empty directory keeps everything in memory (gateway unit tests, fuzzers).
//
// Times are wall-clock milliseconds since the epoch, passed in by the caller (testable).
// Thread affinity: one thread (the gateway's event loop); no locks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::store {

/// How long a pending pairing request lives (PENDING_TTL_MS = 5 min).
inline constexpr int64_t kPendingPairingTtlMs = 5 * 60 * 1000;

/// A per-(device, role) bearer token: base64url of 32 random bytes (pairing-token.ts).
struct DeviceToken {
  std::string token, role;
  std::vector<std::string> scopes;  ///< normalized: trimmed, de-duplicated, sorted
  int64_t created_at_ms = 0;
  std::optional<int64_t> rotated_at_ms, revoked_at_ms, last_used_at_ms;
};

/// A request to pair (or re-pair) a device: `{requestId, deviceId, publicKey, displayName?, platform?,
/// deviceFamily?, clientId?, clientMode?, role?, roles?, scopes?, remoteIp?, silent?, isRepair?, ts}`.
struct PendingPairing {
  std::string request_id, device_id, public_key;
  std::string display_name, platform, device_family, client_id, client_mode, role, remote_ip;
  std::vector<std::string> roles, scopes;
  bool silent = false, is_repair = false;
  int64_t ts = 0;
};

/// An approved device (`PairedDevice`); `tokens` is keyed by role.
struct PairedDevice {
  std::string device_id, public_key;
  std::string display_name, platform, device_family, client_id, client_mode, role, remote_ip;
  std::string operator_label;  ///< `operatorLabel`: the operator's name for it (device.pair.rename); "" = none
  std::vector<std::string> roles, scopes, approved_scopes;
  std::map<std::string, DeviceToken> tokens;
  int64_t created_at_ms = 0, approved_at_ms = 0;
};

nlohmann::json to_json(const PendingPairing& p);
/// With `include_secrets` false the token strings are left out and `tokens` becomes the sorted
/// summary array `[{role, scopes, createdAtMs, rotatedAtMs?, revokedAtMs?, lastUsedAtMs?}]`
/// (summarizeDeviceTokens) and approvedScopes is dropped, as device.pair.list answers it.
nlohmann::json to_json(const PairedDevice& d, bool include_secrets);

/// `allowed(role, requested, allowed)`: whether `allowed` scopes cover `requested` for `role`
/// (the gateway passes device_auth::role_scopes_allow; the store knows no scope semantics).
using ScopesAllow = std::function<bool(const std::string& role, const std::vector<std::string>& requested,
                                       const std::vector<std::string>& allowed)>;

class DeviceStore {
 public:
  /// Loads `<dir>/pending.json` and `<dir>/paired.json` if present. A file that is not a JSON object
  /// of the expected shape is renamed to `<name>.corrupt-<now_ms>` and the store starts without it
  /// (its message is in load_warnings()). `dir` empty: memory only.
  DeviceStore(std::filesystem::path dir, ScopesAllow allow, int64_t now_ms);

  const std::vector<std::string>& load_warnings() const { return warnings_; }

  /// The paired device with this id, or nullptr.
  const PairedDevice* paired(const std::string& device_id) const;
  /// Pending requests (expired ones pruned first), newest first; paired devices, newest approval first.
  std::vector<PendingPairing> list_pending(int64_t now_ms);
  std::vector<PairedDevice> list_paired() const;
  const PendingPairing* pending(const std::string& request_id, int64_t now_ms);

  /// Records a pairing request, merging into the device's existing pending request if any
  /// (roles/scopes unioned; silent only if both are). `incoming.request_id` and `ts` are assigned.
  struct Requested {
    PendingPairing request;
    bool created = false;
  };
  Result<Requested> request_pairing(PendingPairing incoming, int64_t now_ms);

  /// Approves a pending request: the device becomes (or stays) paired with the union of roles and
  /// scopes, and gets a fresh token for the request's role. nullopt: unknown or expired request.
  Result<std::optional<PairedDevice>> approve(const std::string& request_id, int64_t now_ms);
  /// Drops a pending request; returns its device id (nullopt: unknown request).
  Result<std::optional<std::string>> reject(const std::string& request_id, int64_t now_ms);
  /// Forgets a paired device and its tokens; false when it was not paired.
  Result<bool> remove(const std::string& device_id);
  /// Sets the operator's label of a paired device (kept across re-pairing and connects); false
  /// when it is not paired.
  Result<bool> rename(const std::string& device_id, const std::string& label);
  /// Updates descriptive fields of a paired device after a successful connect.
  Status touch(const std::string& device_id, const std::string& display_name, const std::string& client_id,
               const std::string& client_mode, const std::string& remote_ip);

  /// Checks a device token for (device, role, requested scopes). Failure reasons (verifyDeviceToken):
  /// device-not-paired, role-missing, token-missing, token-revoked, token-mismatch, scope-mismatch.
  /// Success records lastUsedAtMs (in memory at once; on disk at most once a minute per token).
  Result<std::optional<std::string>> verify_token(const std::string& device_id, const std::string& role,
                                                  const std::string& token, const std::vector<std::string>& scopes,
                                                  int64_t now_ms);
  /// The device's live token for `role` if it covers `scopes`, else a new one (ensureDeviceToken).
  /// nullopt when the device is not paired.
  Result<std::optional<DeviceToken>> ensure_token(const std::string& device_id, const std::string& role,
                                                  const std::vector<std::string>& scopes, int64_t now_ms);
  /// Replaces the role's token (scopes: given, else the old token's, else the approved scopes).
  /// Errors "UNKNOWN_DEVICE_OR_ROLE" (not paired / role never approved) and "SCOPE_NOT_APPROVED"
  /// (scopes beyond the device's approved scopes).
  Result<DeviceToken> rotate_token(const std::string& device_id, const std::string& role,
                                   const std::optional<std::vector<std::string>>& scopes, int64_t now_ms);
  /// Marks the role's token revoked. Error "UNKNOWN_DEVICE_OR_ROLE" when there is no such token.
  Result<DeviceToken> revoke_token(const std::string& device_id, const std::string& role, int64_t now_ms);
  /// Marks every live token of every paired device revoked (the pairings stay: a device that
  /// connects with the shared secret again gets a new token). Returns how many were live.
  Result<int> revoke_all_tokens(int64_t now_ms);
  /// How many tokens are live (not revoked).
  int live_tokens() const;

 private:
  void prune(int64_t now_ms);
  Status persist();
  DeviceToken new_token(const std::string& role, std::vector<std::string> scopes, const DeviceToken* previous,
                        int64_t now_ms) const;

  std::filesystem::path dir_;
  ScopesAllow allow_;
  std::map<std::string, PendingPairing> pending_;  ///< by requestId
  std::map<std::string, PairedDevice> paired_;     ///< by deviceId
  std::vector<std::string> warnings_;
};

}  // namespace pincer::store
