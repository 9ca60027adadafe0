// An OpenClaw device identity for tests (AU-3, GW-4): an Ed25519 key of its own (libsodium,
// independent of the gateway's code) that signs the v3 (or v2) device payload over a connect
// challenge, as OpenClaw clients do. Shared by the device pairing and the auth attack tests.
#pragma once

#include <sodium.h>

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace pincer::test {

/// base64url without padding (OpenClaw's encoding of keys and signatures).
std::string b64url(const unsigned char* data, std::size_t size);

struct TestDevice {
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk{};
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk{};
  std::string id;          ///< hex SHA-256 of the public key
  std::string public_key;  ///< b64url of pk

  /// A fresh key pair. Throws std::runtime_error when libsodium cannot start.
  TestDevice();

  /// The `device` block for connect `params`, signed over the v3 payload
  /// (v3|id|client.id|client.mode|role|scopes|signedAt|token|nonce|platform|deviceFamily, the last
  /// two lower-cased), or v2 (without them) when `v2`.
  nlohmann::json sign(const nlohmann::json& params, const std::string& nonce, int64_t signed_at, bool v2 = false) const;

  /// Opens a connection to 127.0.0.1:`port`, signs `params` over its challenge and sends connect;
  /// returns the connect response (null when none came).
  nlohmann::json connect(int port, nlohmann::json params) const;
};

}  // namespace pincer::test
