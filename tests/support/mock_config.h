// pincer.json text for integration tests that run the gateway against the mock LLM (MockLlm in
// gateway_process.h) as the provider `mock`: the lines most of them spelled out the same, with
// what varies from test to test as fields. Also the waits on the mock's state the tests share.
#pragma once

#include <chrono>
#include <string>

#include "gateway_process.h"

namespace pincer::test {

/// The models block naming the mock as provider `mock`:
///   models: { providers: { mock: { baseUrl: '<base_url>', apiKey: '<api_key>', api: '<api>', models: [ <models> ] } } }
/// (apiKey and api are left out when empty).
struct MockProvider {
  std::string base_url{};  ///< e.g. MockLlm::base_url()
  std::string models = "{ id: 'mock-model', contextWindow: 128000 }";  ///< the models list's entries, JSON5
  std::string api_key = "k";
  std::string api = "openai-completions";
};
std::string mock_models_block(const MockProvider& provider);

/// A whole pincer.json with the gateway token, the mock provider and an agent default on it:
///   { gateway: { auth: { token: '<token>' }<gateway> },
///     models: <mock_models_block>,
///     agents: { defaults: { model: { primary: '<primary>' }<defaults> }<agents> }<top> }
/// `gateway`, `defaults`, `agents` and `top` are more keys of that object, each with its leading ", ".
struct MockConfig {
  std::string token{};
  MockProvider provider{};
  std::string primary = "mock/mock-model";
  std::string defaults{};
  std::string agents{};
  std::string top{};
  std::string gateway{};
};
std::string mock_config(const MockConfig& config);

/// Waits (polling the mock's GET /__mock/holds, as it has no push) until at least `n` requests are
/// held at the gate `name` (a MOCK_HOLD:name, or a script entry's "hold"). False when that is not
/// so within `timeout` (a generous bound for a loaded machine, not a timing).
bool wait_for_held(const MockLlm& mock, const std::string& name, int n = 1,
                   std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace pincer::test
