// Model specs shared by the wire API tests (llm_requests_test.cpp, llm_streams_test.cpp): one
// reasoning- and image-capable test model per wire API, pointed at the API's usual base URL with a
// fake key (none for Ollama).
#pragma once

#include <string>
#include <utility>

#include "llm/provider.h"

namespace pincer::llm::llm_providers_test_support {

/// A "test/test-model" spec for `api` at `base_url`, with key "sk-test", reasoning, text and image.
inline ModelSpec make_model(std::string api, std::string base_url) {
  ModelSpec m;
  m.provider = "test";
  m.id = "test-model";
  m.api = std::move(api);
  m.base_url = std::move(base_url);
  m.api_key = "sk-test";
  m.reasoning = true;
  m.input = {"text", "image"};
  return m;
}

inline ModelSpec completions_model() { return make_model("openai-completions", "https://api.openai.com/v1"); }
inline ModelSpec responses_model() { return make_model("openai-responses", "https://api.openai.com/v1"); }
inline ModelSpec anthropic_model() { return make_model("anthropic-messages", "https://api.anthropic.com"); }
/// A local Ollama model: no API key.
inline ModelSpec ollama_model() {
  ModelSpec m = make_model("ollama", "http://127.0.0.1:11434");
  m.api_key.clear();
  return m;
}

}  // namespace pincer::llm::llm_providers_test_support
