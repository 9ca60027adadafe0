// Secret redaction for anything that may reach a log or a client (AU-5: API keys and tokens are
// never logged). Two layers: exact values registered at runtime (the configured gateway token,
// provider API keys …) and patterns that look like credentials wherever they come from.
#pragma once

#include <string>
#include <string_view>

namespace pincer::redact {

/// Registers a secret value; every later redact() call replaces it. Values shorter than 6 bytes
/// are ignored (too likely to match ordinary text). Thread-safe.
void add_secret(std::string_view value);

/// Forgets all registered secrets (tests).
void clear_secrets();

/// Returns `text` with registered secrets and credential-looking substrings replaced by "***":
/// `Bearer <x>`, `sk-…`/`xox?-…`-style API keys, and the values of JSON/k=v fields named
/// token|password|secret|apiKey|api_key|authorization (any case). Thread-safe.
std::string apply(std::string_view text);

}  // namespace pincer::redact
