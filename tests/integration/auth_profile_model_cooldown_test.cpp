// Per-model cooldowns end to end (PV-2): one auth profile, two models of its provider, the mock
// LLM answering 429 for that key on the first model only. The run falls back to the second model
// on the same profile; the file records the cooldown for the first model only (OpenClaw's
// usageStats.cooldownModel), and the next turn goes straight to the model that is not limited.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace auth_profile_model_cooldown_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "model-cooldown-test-token-0123456789";
constexpr const char* kKey = "ProfileKeyModelScoped4410cccc";

TEST(AuthProfileModelCooldownTest, ARateLimitOnOneModelLeavesTheProfileUsableForAnother) {
  TempDir home;
  MockLlm mock;
  home.write("pincer.json",
             std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                 "  models: { providers: {\n" +
                 "    mock: { baseUrl: '" + mock.base_url() + "', models: [ { id: 'model-a' }, { id: 'model-b' } ] } } },\n" +
                 "  agents: { defaults: { model: { primary: 'mock/model-a', fallbacks: ['mock/model-b'] } } } }\n");
  home.write("agents/main/agent/auth-profiles.json",
             json{{"version", 1}, {"profiles", {{"mock:only", {{"type", "api_key"}, {"provider", "mock"}, {"key", kKey}}}}}}.dump(2));
  Gateway gateway(home.path());
  WsClient client(gateway.port());
  ASSERT_TRUE(client.recv());
  client.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = client.recv_response("c1");
  ASSERT_TRUE(res && (*res)["ok"] == true);

  auto r = http_request(mock.port(), "POST", "/__mock/keys", {{"Content-Type", "application/json"}},
                        json{{std::string(kKey) + "@model-a", 429}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  auto requests = [&] {
    json out = json::array();
    for (const auto& e : json::parse(http_request(mock.port(), "GET", "/__mock/requests").body)) {
      if (e.contains("api")) out.push_back(e);
    }
    return out;
  };

  auto frames = chat_turn(client, "main", "hello", "run-model-429");
  ASSERT_FALSE(frames.empty());
  json final = frames.back()["payload"];
  ASSERT_EQ(final["state"], "final") << final.dump() << "\n" << gateway.process().err();
  json seen = requests();
  ASSERT_EQ(seen.size(), 2u) << seen.dump();
  EXPECT_EQ(seen[0]["body"]["model"], "model-a");
  EXPECT_EQ(seen[0]["status"], 429);
  EXPECT_EQ(seen[1]["body"]["model"], "model-b");
  EXPECT_EQ(seen[1]["keySuffix"], "cccc") << "the same profile answers for the other model";

  std::ifstream in(home.path() / "agents/main/agent/auth-profiles.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const json file = json::parse(ss.str());
  const json& stats = file["usageStats"]["mock:only"];
  EXPECT_EQ(stats["cooldownReason"], "rate_limit") << file.dump();
  EXPECT_EQ(stats["cooldownModel"], "model-a") << file.dump();

  // The next turn: model-a's profile is cooling for model-a only, so model-b answers at once.
  http_request(mock.port(), "POST", "/__mock/reset");
  http_request(mock.port(), "POST", "/__mock/keys", {{"Content-Type", "application/json"}},
               json{{std::string(kKey) + "@model-a", 429}}.dump());
  final = chat_turn(client, "main", "again", "run-model-b").back()["payload"];
  ASSERT_EQ(final["state"], "final") << final.dump();
  seen = requests();
  ASSERT_EQ(seen.size(), 1u) << seen.dump();
  EXPECT_EQ(seen[0]["body"]["model"], "model-b");
}

}  // namespace
}  // namespace auth_profile_model_cooldown_test
}  // namespace pincer::test
