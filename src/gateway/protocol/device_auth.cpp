#include "gateway/protocol/device_auth.h"

#include <sodium.h>

#include <algorithm>
#include <array>

#include "core/ids.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway::device_auth {
namespace {

constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Value of one base64 digit in either alphabet (`url` selects -_ vs +/), or -1.
int digit(char c, bool url) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == (url ? '-' : '+')) return 62;
  if (c == (url ? '_' : '/')) return 63;
  return -1;
}

/// Decodes `digits` (no padding) strictly: unused trailing bits must be zero.
std::optional<std::string> decode_digits(std::string_view digits, bool url) {
  if (digits.size() % 4 == 1) return std::nullopt;  // never produced by an encoder
  std::string out;
  out.reserve(digits.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : digits) {
    int v = digit(c, url);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical tail
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (size_t i = 0; i < scopes.size(); ++i) out += (i ? "," : "") + scopes[i];
  return out;
}

std::string v2_body(const SignedFields& f, std::string_view tag) {
  std::string out(tag);
  for (const std::string* part : {&f.device_id, &f.client_id, &f.client_mode, &f.role}) out += "|" + *part;
  out += "|" + join_scopes(f.scopes) + "|" + std::to_string(f.signed_at_ms) + "|" + f.token + "|" + f.nonce;
  return out;
}

/// |a - b| > limit without overflow.
bool differs_by_more_than(int64_t a, int64_t b, int64_t limit) {
  // The difference of two int64 values always fits in uint64 when taken larger minus smaller.
  const uint64_t d = a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                            : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  return d > static_cast<uint64_t>(limit);
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kUrlAlphabet[(acc >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(kUrlAlphabet[(acc << (6 - bits)) & 0x3F]);
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.empty() || text.size() > kMaxEncodedBytes) return std::nullopt;
  const bool url_alphabet_only = std::all_of(text.begin(), text.end(), [](char c) { return digit(c, true) >= 0; });
  if (url_alphabet_only) return decode_digits(text, true);
  // Standard base64: length a multiple of 4, at most two '=' at the end.
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && text[text.size() - 1 - pad] == '=') ++pad;
  std::string_view digits = text.substr(0, text.size() - pad);
  if (digits.size() % 4 == 1) return std::nullopt;
  if ((digits.size() + pad) % 4 != 0) return std::nullopt;
  return decode_digits(digits, false);
}

std::optional<std::string> decode_public_key(std::string_view text) {
  text = trim(text);
  constexpr std::string_view kBegin = "-----BEGIN PUBLIC KEY-----", kEnd = "-----END PUBLIC KEY-----";
  if (text.substr(0, kBegin.size()) == kBegin) {
    if (text.size() > kMaxEncodedBytes || text.size() < kBegin.size() + kEnd.size() ||
        text.substr(text.size() - kEnd.size()) != kEnd) {
      return std::nullopt;
    }
    std::string body;
    for (char c : text.substr(kBegin.size(), text.size() - kBegin.size() - kEnd.size())) {
      if (!is_space(c)) body.push_back(c);
    }
    auto der = base64_decode(body);
    // SPKI for Ed25519: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (0 unused) key } (RFC 8410).
    static constexpr std::array<unsigned char, 12> kSpkiPrefix = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                                                 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
    if (!der || der->size() != kSpkiPrefix.size() + kPublicKeyBytes ||
        !std::equal(kSpkiPrefix.begin(), kSpkiPrefix.end(), reinterpret_cast<const unsigned char*>(der->data()))) {
      return std::nullopt;
    }
    return der->substr(kSpkiPrefix.size());
  }
  auto raw = base64_decode(text);
  if (!raw || raw->size() != kPublicKeyBytes) return std::nullopt;
  return raw;
}

std::string device_id_for_key(std::string_view raw_public_key) { return ids::sha256_hex(raw_public_key); }

std::string normalize_metadata(std::string_view value) {
  std::string out(trim(value));
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string payload_v2(const SignedFields& f) { return v2_body(f, "v2"); }

std::string payload_v3(const SignedFields& f) {
  return v2_body(f, "v3") + "|" + normalize_metadata(f.platform) + "|" + normalize_metadata(f.device_family);
}

bool verify_signature(std::string_view raw_public_key, std::string_view payload, std::string_view signature_text) {
  if (raw_public_key.size() != kPublicKeyBytes) return false;
  auto sig = base64_decode(trim(signature_text));
  if (!sig || sig->size() != kSignatureBytes) return false;
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sig->data()),
                                     reinterpret_cast<const unsigned char*>(payload.data()), payload.size(),
                                     reinterpret_cast<const unsigned char*>(raw_public_key.data())) == 0;
}

std::string sign(std::string_view secret_key, std::string_view payload) {
  if (secret_key.size() != crypto_sign_SECRETKEYBYTES) return {};
  std::array<unsigned char, crypto_sign_BYTES> sig{};
  crypto_sign_detached(sig.data(), nullptr, reinterpret_cast<const unsigned char*>(payload.data()), payload.size(),
                       reinterpret_cast<const unsigned char*>(secret_key.data()));
  return base64url_encode(std::string_view(reinterpret_cast<const char*>(sig.data()), sig.size()));
}

std::variant<VerifiedDevice, ProofFailure> verify_proof(const DeviceProof& proof, SignedFields fields,
                                                        std::string_view expected_nonce, int64_t now_ms) {
  auto key = decode_public_key(proof.public_key);
  if (!key || device_id_for_key(*key) != proof.id) {
    return ProofFailure{"device-id-mismatch", "device identity mismatch"};
  }
  if (differs_by_more_than(now_ms, proof.signed_at_ms, kSignatureSkewMs)) {
    return ProofFailure{"device-signature-stale", "device signature expired"};
  }
  const std::string nonce(trim(proof.nonce));
  if (nonce.empty()) return ProofFailure{"device-nonce-missing", "device nonce required"};
  if (nonce != expected_nonce) return ProofFailure{"device-nonce-mismatch", "device nonce mismatch"};

  fields.device_id = proof.id;
  fields.signed_at_ms = proof.signed_at_ms;
  fields.nonce = nonce;
  std::string version;
  if (verify_signature(*key, payload_v3(fields), proof.signature)) version = "v3";
  else if (verify_signature(*key, payload_v2(fields), proof.signature)) version = "v2";
  else return ProofFailure{"device-signature", "device signature invalid"};
  return VerifiedDevice{proof.id, base64url_encode(*key), version};
}

std::string_view detail_code(std::string_view reason) {
  if (reason == "device-id-mismatch") return "DEVICE_AUTH_DEVICE_ID_MISMATCH";
  if (reason == "device-signature-stale") return "DEVICE_AUTH_SIGNATURE_EXPIRED";
  if (reason == "device-nonce-missing") return "DEVICE_AUTH_NONCE_REQUIRED";
  if (reason == "device-nonce-mismatch") return "DEVICE_AUTH_NONCE_MISMATCH";
  if (reason == "device-signature") return "DEVICE_AUTH_SIGNATURE_INVALID";
  if (reason == "device-public-key") return "DEVICE_AUTH_PUBLIC_KEY_INVALID";
  return "DEVICE_AUTH_INVALID";
}

RpcError proof_error(const ProofFailure& failure) {
  return RpcError::invalid(failure.message, {{"code", detail_code(failure.reason)}, {"reason", failure.reason}});
}

bool role_scopes_allow(std::string_view role, const std::vector<std::string>& requested,
                       const std::vector<std::string>& allowed) {
  for (const auto& raw : requested) {
    std::string scope(trim(raw));
    if (scope.empty()) continue;
    const bool ok = role == "operator" ? operator_scope_allows(allowed, scope)
                                       : std::find(allowed.begin(), allowed.end(), scope) != allowed.end();
    if (!ok) return false;
  }
  return true;
}

std::vector<std::string> normalize_scopes(const std::vector<std::string>& scopes) {
  std::vector<std::string> out;
  for (const auto& s : scopes) {
    std::string t(trim(s));
    if (!t.empty()) out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace pincer::gateway::device_auth

namespace pincer::gateway::device_auth {
namespace {

struct PairingText {
  std::string_view reason, requirement, hint;
};
// PAIRING_CONNECT_REASON_METADATA (connect-error-details.ts).
constexpr std::array<PairingText, 4> kPairingTexts = {{
    {"not-paired", "device is not approved yet", "Approve this device from the pending pairing requests."},
    {"role-upgrade", "device is asking for a higher role than currently approved",
     "Review the requested role upgrade, then approve the pending request."},
    {"scope-upgrade", "device is asking for more scopes than currently approved",
     "Review the requested scopes, then approve the pending upgrade."},
    {"metadata-upgrade", "device identity changed and must be re-approved",
     "Review the refreshed device details, then approve the pending request."},
}};

const PairingText& pairing_text(std::string_view reason) {
  for (const auto& t : kPairingTexts) {
    if (t.reason == reason) return t;
  }
  return kPairingTexts[0];
}

}  // namespace

std::optional<std::string> pairing_reason(const store::PairedDevice* paired, const VerifiedDevice& device,
                                          const std::string& platform, const std::string& device_family,
                                          const std::string& role, const std::vector<std::string>& scopes) {
  if (!paired || paired->public_key != device.public_key) return "not-paired";
  const std::string pinned_platform = normalize_metadata(paired->platform);
  const std::string pinned_family = normalize_metadata(paired->device_family);
  if ((!pinned_platform.empty() && pinned_platform != normalize_metadata(platform)) ||
      (!pinned_family.empty() && pinned_family != normalize_metadata(device_family))) {
    return "metadata-upgrade";
  }
  const bool role_ok = std::find(paired->roles.begin(), paired->roles.end(), role) != paired->roles.end() ||
                       (paired->roles.empty() && paired->role == role);
  if (!role_ok) return "role-upgrade";
  const auto& approved = paired->approved_scopes.empty() ? paired->scopes : paired->approved_scopes;
  if (!normalize_scopes(scopes).empty() && (approved.empty() || !role_scopes_allow(role, scopes, approved))) {
    return "scope-upgrade";
  }
  return std::nullopt;
}

RpcError pairing_required_error(const std::string& reason, const std::string& request_id,
                                const std::string& device_id, const std::string& role,
                                const std::vector<std::string>& scopes, const store::PairedDevice* paired) {
  const PairingText& text = pairing_text(reason);
  nlohmann::json details = {{"code", "PAIRING_REQUIRED"},     {"reason", reason},
                            {"requestId", request_id},         {"remediationHint", text.hint},
                            {"deviceId", device_id},           {"requestedRole", role},
                            {"requestedScopes", scopes}};
  if (paired && !paired->roles.empty()) details["approvedRoles"] = paired->roles;
  const auto& approved = paired ? (paired->approved_scopes.empty() ? paired->scopes : paired->approved_scopes)
                                : std::vector<std::string>{};
  if (!approved.empty()) details["approvedScopes"] = approved;
  return RpcError{"NOT_PAIRED", "pairing required: " + std::string(text.requirement), std::move(details),
                  std::nullopt, std::nullopt};
}

std::string pairing_close_reason(const std::string& reason, const std::string& request_id) {
  return "pairing required: " + std::string(pairing_text(reason).requirement) + " (requestId: " + request_id + ")";
}

}  // namespace pincer::gateway::device_auth
