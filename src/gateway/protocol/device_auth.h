// Device identity proofs of the `connect` handshake (AU-3; openclaw-protocol.md §1.4 "Device identity
// and signature", §1.3 detail codes). A client proves it holds an Ed25519 key by signing a payload
// that binds the challenge nonce, its client id/mode, role, scopes, the token it sent and the time.
// Pure functions over strings (libsodium for the crypto); the Gateway sequences them and owns pairing
// (store/device_store.h). Every input here is hostile: decoders never throw and bound their input.
//
// Wire formats (OpenClaw packages/gateway-client device-auth + device-identity; wire log §1):
//   device.publicKey  base64url without padding of the raw 32-byte Ed25519 public key
//                     (standard padded base64 and an SPKI PEM are accepted too)
//   device.id         lowercase hex SHA-256 of those 32 bytes (64 characters)
//   device.signature  base64url (or standard base64) of the 64-byte Ed25519 signature over the UTF-8
//                     payload string:
//     v3: v3|deviceId|clientId|clientMode|role|scopes,joined,by,comma|signedAtMs|token|nonce|platform|deviceFamily
//     v2: v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|token|nonce            (legacy, still accepted)
//   platform/deviceFamily in v3 are trimmed and ASCII-lowercased (A–Z only); absent → "".
//   token = auth.token, else auth.deviceToken, else auth.bootstrapToken, else "".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gateway/protocol/frames.h"
#include "store/device_store.h"

namespace pincer::gateway::device_auth {

/// Largest accepted |now - signedAt| in ms (DEVICE_SIGNATURE_SKEW_MS = 2 min, message-handler.ts).
inline constexpr int64_t kSignatureSkewMs = 2 * 60 * 1000;
/// Raw Ed25519 sizes (RFC 8032).
inline constexpr std::size_t kPublicKeyBytes = 32;
inline constexpr std::size_t kSignatureBytes = 64;
/// Longest base64 text the decoders look at (a PEM public key is ~113 characters).
inline constexpr std::size_t kMaxEncodedBytes = 4096;

/// base64url without padding (RFC 4648 §5).
std::string base64url_encode(std::string_view bytes);

/// Decodes canonical base64: either unpadded base64url ([A-Za-z0-9_-]) or padded standard base64
/// ([A-Za-z0-9+/] with '=' to a multiple of 4). Non-canonical input (stray characters, wrong
/// padding, non-zero trailing bits, longer than kMaxEncodedBytes) → nullopt.
std::optional<std::string> base64_decode(std::string_view text);

/// The raw 32-byte Ed25519 key from `device.publicKey`: base64url/base64 of the raw key, or an SPKI
/// PEM ("-----BEGIN PUBLIC KEY-----", DER prefix 302a300506032b6570032100 + key). nullopt otherwise.
std::optional<std::string> decode_public_key(std::string_view text);

/// Lowercase hex SHA-256 of the raw public key: the device id.
std::string device_id_for_key(std::string_view raw_public_key);

/// Trimmed (ASCII whitespace), A–Z lowered; other bytes untouched (normalizeDeviceMetadataForAuth).
std::string normalize_metadata(std::string_view value);

/// The fields a device signature covers, as the server reconstructs them from connect params.
struct SignedFields {
  std::string device_id, client_id, client_mode, role;
  std::vector<std::string> scopes;  ///< requested scopes, in the order sent
  int64_t signed_at_ms = 0;
  std::string token;                ///< auth.token ?? auth.deviceToken ?? auth.bootstrapToken ?? ""
  std::string nonce;
  std::string platform, device_family;  ///< raw; v3 normalizes them
};

std::string payload_v2(const SignedFields& f);
std::string payload_v3(const SignedFields& f);

/// Verifies a detached Ed25519 signature (`signature_text` base64url/base64 of 64 bytes) over
/// `payload` with a raw 32-byte key. False for any malformed input.
bool verify_signature(std::string_view raw_public_key, std::string_view payload, std::string_view signature_text);

/// Signs `payload` with a libsodium secret key (64 bytes: seed + public key); base64url signature.
/// For tests and Pincer's own clients.
std::string sign(std::string_view secret_key, std::string_view payload);

/// The `device` block of connect params (shape already validated by parse_connect_params).
struct DeviceProof {
  std::string id, public_key, signature, nonce;
  int64_t signed_at_ms = 0;
};

/// A failed proof: OpenClaw's device-auth reason and message.
struct ProofFailure {
  std::string reason;   ///< device-id-mismatch | device-signature-stale | device-nonce-missing |
                        ///< device-nonce-mismatch | device-signature | device-public-key
  std::string message;  ///< "device identity mismatch", "device signature expired", …
};

/// A proof that holds: the canonical base64url public key and which payload version it signed.
struct VerifiedDevice {
  std::string device_id;
  std::string public_key;  ///< canonical base64url of the raw key (what pairing records)
  std::string payload_version;  ///< "v3" | "v2"
};

/// Checks a proof in OpenClaw's order: id = sha256(key) → |now - signedAt| <= kSignatureSkewMs →
/// nonce present (trimmed) → nonce == `expected_nonce` → signature over v3, else v2.
/// `fields` carries everything but device_id, signed_at_ms and nonce (taken from `proof`).
std::variant<VerifiedDevice, ProofFailure> verify_proof(const DeviceProof& proof, SignedFields fields,
                                                        std::string_view expected_nonce, int64_t now_ms);

/// Detail code for a reason (resolveDeviceAuthConnectErrorDetailCode): DEVICE_AUTH_DEVICE_ID_MISMATCH,
/// DEVICE_AUTH_SIGNATURE_EXPIRED, DEVICE_AUTH_NONCE_REQUIRED, DEVICE_AUTH_NONCE_MISMATCH,
/// DEVICE_AUTH_SIGNATURE_INVALID, DEVICE_AUTH_PUBLIC_KEY_INVALID, else DEVICE_AUTH_INVALID.
std::string_view detail_code(std::string_view reason);

/// The connect error for a failed proof: INVALID_REQUEST <message>, details {code, reason}
/// (the socket is then closed 1008).
RpcError proof_error(const ProofFailure& failure);

/// Whether `allowed` scopes cover `requested` for `role` (roleScopesAllow): nothing requested is
/// always covered; for operators operator.admin covers every operator.* scope and operator.write
/// covers operator.read; other roles need each scope verbatim.
bool role_scopes_allow(std::string_view role, const std::vector<std::string>& requested,
                       const std::vector<std::string>& allowed);

/// Why a verified device must (re-)pair before this connect, or nullopt when its pairing covers it
/// (message-handler.ts order): "not-paired" (unknown, or paired with another key), "metadata-upgrade"
/// (pinned platform / deviceFamily differ after normalize_metadata), "role-upgrade" (role not
/// approved), "scope-upgrade" (requested scopes beyond the approved ones).
std::optional<std::string> pairing_reason(const store::PairedDevice* paired, const VerifiedDevice& device,
                                          const std::string& platform, const std::string& device_family,
                                          const std::string& role, const std::vector<std::string>& scopes);

/// The connect error while pairing is pending (connect-error-details.ts): NOT_PAIRED
/// "pairing required: <requirement>", details {code: PAIRING_REQUIRED, reason, requestId,
/// remediationHint, deviceId, requestedRole, requestedScopes, approvedRoles?, approvedScopes?}.
RpcError pairing_required_error(const std::string& reason, const std::string& request_id,
                                const std::string& device_id, const std::string& role,
                                const std::vector<std::string>& scopes, const store::PairedDevice* paired);

/// Close reason for that failure: "pairing required: <requirement> (requestId: <id>)".
std::string pairing_close_reason(const std::string& reason, const std::string& request_id);

/// Trimmed, de-duplicated, sorted scopes (normalizeDeviceAuthScopes): how tokens record them.
std::vector<std::string> normalize_scopes(const std::vector<std::string>& scopes);

}  // namespace pincer::gateway::device_auth
