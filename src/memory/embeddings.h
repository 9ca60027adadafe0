// Embedding providers (SPEC MM-4): OpenAI / OpenAI-compatible (`POST {baseUrl}/embeddings`),
// Ollama (`POST {baseUrl}/api/embed`), Gemini (`POST {baseUrl}/models/{model}:batchEmbedContents`).
//
// Threading: embed() blocks the calling (worker) thread; it runs its own private event loop for
// the HTTP call, so it never touches the gateway's loop. One provider object may be used from
// several threads at once. Every call is bounded by its timeout (connect + whole response).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "memory/memory_config.h"

namespace pincer::memory {

using Vector = std::vector<float>;

class EmbeddingProvider {
 public:
  virtual ~EmbeddingProvider() = default;
  virtual const std::string& id() const = 0;     ///< "openai", "ollama", …
  virtual const std::string& model() const = 0;
  /// One vector per text, in order, L2-normalised. Errors: "EMBED_TIMEOUT" (the call took longer
  /// than `timeout_ms`), "EMBED_HTTP" (status ≠ 2xx; message has the status and the body's start),
  /// "EMBED_TRANSPORT" (connect/TLS/reset), "EMBED_BAD_RESPONSE" (not the provider's shape, or a
  /// count/dimension mismatch).
  virtual Result<std::vector<Vector>> embed(const std::vector<std::string>& texts, int64_t timeout_ms) const = 0;
};

/// The provider of `settings`, or nullptr for "none". Error "EMBED_PROVIDER_UNKNOWN".
Result<std::shared_ptr<EmbeddingProvider>> make_embedding_provider(const MemorySettings& settings);

/// Cosine similarity of two L2-normalised vectors (their dot product); 0 when sizes differ.
double cosine(const Vector& a, const Vector& b);

}  // namespace pincer::memory
