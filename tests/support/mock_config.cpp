#include "mock_config.h"

#include <thread>

#include <nlohmann/json.hpp>

#include "ws_client.h"

namespace pincer::test {

std::string mock_models_block(const MockProvider& p) {
  std::string text = "models: { providers: { mock: { baseUrl: '" + p.base_url + "'";
  if (!p.api_key.empty()) text += ", apiKey: '" + p.api_key + "'";
  if (!p.api.empty()) text += ", api: '" + p.api + "'";
  return text + ", models: [ " + p.models + " ] } } }";
}

std::string mock_config(const MockConfig& c) {
  return "{ gateway: { auth: { token: '" + c.token + "' }" + c.gateway + " },\n  " + mock_models_block(c.provider) +
         ",\n  agents: { defaults: { model: { primary: '" + c.primary + "' }" + c.defaults + " }" + c.agents + " }" +
         c.top + " }\n";
}

bool wait_for_held(const MockLlm& mock, const std::string& name, int n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto holds = nlohmann::json::parse(http_request(mock.port(), "GET", "/__mock/holds").body, nullptr, false);
    if (holds.is_object() && holds.contains(name) && holds[name].value("waiting", 0) >= n) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace pincer::test
