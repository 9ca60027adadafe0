// Random identifiers: UUID v4 (connection ids, nonces) and URL-safe tokens (gateway tokens).
// Randomness comes from libsodium (getrandom); all functions are thread-safe.
#pragma once

#include <cstddef>
#include <string>

namespace pincer::ids {

/// A random RFC 4122 version-4 UUID, lowercase, e.g. "0e2df3ef-c92b-4471-9b25-18cce4418810".
std::string uuid_v4();

/// base64url (no padding) of `bytes` random bytes; 32 bytes → 43 characters.
std::string random_token(std::size_t bytes = 32);

/// Lowercase hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace pincer::ids
