// Secret redaction for anything that may reach a log or a client (AU-5: API keys and tokens are
// never logged). Two layers: exact values registered at runtime (the configured gateway token,
// provider API keys …) and patterns that look like credentials wherever they come from.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pincer::redact {

/// Shortest value add_secret() registers, in bytes. Redaction is by substring, so a registered
/// "secret" that is an ordinary short word would mask that word in every log line and error.
/// Real credentials (API keys, bot tokens, generated gateway tokens) are far longer than 8
/// bytes; a shorter configured value is too weak to protect anything and too likely to be a
/// common word, so it is left to the pattern rules (docs/security.md).
inline constexpr std::size_t kMinSecretBytes = 8;

/// Registers a secret value; every later apply() call replaces it. Values shorter than
/// kMinSecretBytes are ignored (too likely to match ordinary text). Registered values stay
/// registered (a rotated key may still appear in old text). Thread-safe.
void add_secret(std::string_view value);

/// Forgets all registered secrets (tests).
void clear_secrets();

/// Returns `text` with registered secrets and credential-looking substrings replaced by "***":
/// `Bearer <x>`, `sk-…`/`xox?-…`-style API keys, and the values of JSON/k=v fields named
/// token|password|secret|apiKey|api_key|authorization (any case). Thread-safe.
std::string apply(std::string_view text);

}  // namespace pincer::redact
