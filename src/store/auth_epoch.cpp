#include "store/auth_epoch.h"

#include <sodium.h>

#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "store/atomic_file.h"

namespace pincer::store {
namespace {

using nlohmann::json;

constexpr const char* kFile = "auth-epoch.json";

std::string fingerprint(std::string_view salt, std::string_view mode, std::string_view secret) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(salt.data()), salt.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(mode.data()), mode.size());
  const unsigned char zero = 0;
  crypto_auth_hmacsha256_update(&st, &zero, 1);
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[2 * sizeof mac + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

}  // namespace

Result<AuthEpochOutcome> apply_auth_epoch(DeviceStore& devices, const std::filesystem::path& dir, std::string_view mode,
                                          std::string_view secret, int64_t now_ms) {
  AuthEpochOutcome out;
  if (dir.empty()) return out;
  if (sodium_init() < 0) return Error{"IO_ERROR", "libsodium cannot be initialised"};
  const auto path = dir / kFile;
  auto text = read_file(path, 64 * 1024);
  json record = text ? json::parse(*text, nullptr, /*allow_exceptions=*/false) : json();
  if (!text && text.error().code != "NOT_FOUND") return text.error();
  const bool readable = record.is_object() && record.value("salt", "").size() >= 16 &&
                        record.value("fingerprint", "").size() == 2 * crypto_auth_hmacsha256_BYTES;
  if (text && readable && fingerprint(record.value("salt", ""), mode, secret) == record.value("fingerprint", "")) {
    return out;  // Same
  }
  if (!text) {
    out.kind = AuthEpochOutcome::Kind::First;
    out.unverified = devices.live_tokens();
  } else {
    out.kind = AuthEpochOutcome::Kind::Changed;
    auto revoked = devices.revoke_all_tokens(now_ms);
    if (!revoked) return revoked.error();
    out.revoked = *revoked;
  }
  const std::string salt = ids::random_token(32);
  json next = {{"version", 1}, {"salt", salt}, {"fingerprint", fingerprint(salt, mode, secret)}, {"sinceMs", now_ms}};
  if (auto st = write_file_atomic(path, next.dump(2) + "\n", 0600); !st) return st.error();
  return out;
}

}  // namespace pincer::store
