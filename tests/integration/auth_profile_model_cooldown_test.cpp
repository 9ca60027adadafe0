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


// A pinned profile (`/model provider/model@profile`, PV-3): the run sends its key although the
// order would pick another; an unknown profile is refused naming the provider's profiles; /status
// and sessions.list show the pin; a failure of the pinned key rotates to the next (the pin stays).
TEST(AuthProfilePinTest, APinnedProfileIsTriedFirstAndUnknownOnesAreRefused) {
  TempDir home;
  MockLlm mock;
  home.write("pincer.json",
             std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                 "  models: { providers: {\n" +
                 "    mock: { baseUrl: '" + mock.base_url() + "', models: [ { id: 'model-a' } ] } } },\n" +
                 "  agents: { defaults: { model: { primary: 'mock/model-a' } } } }\n");
  home.write("agents/main/agent/auth-profiles.json",
             json{{"version", 1},
                  {"profiles",
                   {{"mock:first", {{"type", "api_key"}, {"provider", "mock"}, {"key", "PinTestKeyFirst7001aaaa"}}},
                    {"mock:second", {{"type", "api_key"}, {"provider", "mock"}, {"key", "PinTestKeySecond7002bbbb"}}}}},
                  {"order", {{"mock", {"mock:first", "mock:second"}}}}}
                 .dump(2));
  Gateway gateway(home.path());
  WsClient client(gateway.port());
  ASSERT_TRUE(client.recv());
  client.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = client.recv_response("c1");
  ASSERT_TRUE(res && (*res)["ok"] == true);
  auto suffixes = [&] {
    std::vector<std::string> out;
    for (const auto& e : json::parse(http_request(mock.port(), "GET", "/__mock/requests").body)) {
      if (e.contains("api")) out.push_back(e.value("keySuffix", ""));
    }
    return out;
  };

  json reply = chat_turn(client, "main", "/model mock/model-a@mock:nope", "run-pin-bad").back()["payload"];
  const std::string bad = reply.dump();
  EXPECT_NE(bad.find("mock:nope"), std::string::npos) << bad;
  EXPECT_NE(bad.find("mock:first, mock:second"), std::string::npos) << "names the known profiles: " << bad;

  reply = chat_turn(client, "main", "/model mock/model-a@mock:second", "run-pin").back()["payload"];
  EXPECT_NE(reply.dump().find("auth profile `mock:second`"), std::string::npos) << reply.dump();
  reply = chat_turn(client, "main", "hello", "run-pinned").back()["payload"];
  ASSERT_EQ(reply["state"], "final") << reply.dump();
  EXPECT_EQ(suffixes(), std::vector<std::string>{"bbbb"}) << "the pinned key, not the first in the order";

  reply = chat_turn(client, "main", "/status", "run-pin-status").back()["payload"];
  EXPECT_NE(reply.dump().find("auth profile `mock:second` (pinned)"), std::string::npos) << reply.dump();
  client.send_json({{"type", "req"}, {"id", "l1"}, {"method", "sessions.list"}, {"params", json::object()}});
  auto list = client.recv_response("l1");
  ASSERT_TRUE(list && (*list)["ok"] == true);
  bool found = false;
  for (const auto& row : (*list)["payload"]["sessions"]) {
    if (row.value("key", "") == "agent:main:main") {
      found = true;
      EXPECT_EQ(row["authProfileOverride"], "mock:second") << row.dump();
      EXPECT_EQ(row["authProfileOverrideSource"], "user") << row.dump();
    }
  }
  EXPECT_TRUE(found) << list->dump();

  // The pinned key fails (401): the run rotates to the other profile; the pin stays for later.
  http_request(mock.port(), "POST", "/__mock/reset");
  http_request(mock.port(), "POST", "/__mock/keys", {{"Content-Type", "application/json"}},
               json{{"PinTestKeySecond7002bbbb", 401}}.dump());
  reply = chat_turn(client, "main", "again", "run-pinned-fails").back()["payload"];
  ASSERT_EQ(reply["state"], "final") << reply.dump();
  EXPECT_EQ(suffixes(), (std::vector<std::string>{"bbbb", "aaaa"}));
  reply = chat_turn(client, "main", "/status", "run-pin-status-2").back()["payload"];
  EXPECT_NE(reply.dump().find("auth profile `mock:second` (pinned)"), std::string::npos) << reply.dump();
}

}  // namespace
}  // namespace auth_profile_model_cooldown_test
}  // namespace pincer::test
