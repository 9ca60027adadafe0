// OpenClaw's model-auth write methods against the real gateway binary (gateway/methods/
// models_auth.cpp): models.authSetApiKey, models.authOrderSet and models.authLogout edit the same
// auth-profiles.json as `pincer models auth …` (llm/auth/auth_profile_edits), the CLI sees each
// change, a turn sends the key at once, and no answer or log line holds the secret.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace models_auth_methods_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "models-auth-methods-token-0123456789";
constexpr const char* kKey = "SetApiKeyRoundTrip0123dddd";

class ModelsAuthMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url(), .models = "{ id: 'model-a' }", .api_key = "", .api = ""},
                             .primary = "mock/model-a",
                             .agents = ",\n    list: [ { id: 'main' }, { id: 'ops' } ]"}));
    gw_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes = {"operator.admin"}) {
    auto c = std::make_unique<WsClient>(gw_->port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  }
  RunResult pincer(const std::vector<std::string>& args) const {
    return run_pincer(args, isolated_cli_env(home_.path(), {{"PINCER_HOME", home_.path().string()}}), 60s);
  }
  json cli_profiles(const std::string& agent = "main") const {
    auto r = pincer({"models", "auth", "list", "--agent", agent, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json listed = json::parse(r.out, nullptr, false);
    json ids = json::array();
    if (listed.is_object()) {
      for (const auto& p : listed["profiles"]) ids.push_back(p["id"]);
    }
    return ids;
  }
  fs::path file(const std::string& agent = "main") const { return home_.path() / "agents" / agent / "agent" / "auth-profiles.json"; }
  static std::string error(const json& r) { return r.value("error", json::object()).value("message", ""); }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(ModelsAuthMethodsTest, WritesNeedTheAdminScope) {
  auto reader = client({"operator.read", "operator.write"});
  for (const auto& [method, params] : std::vector<std::pair<std::string, json>>{
           {"models.authSetApiKey", {{"provider", "mock"}, {"apiKey", kKey}}},
           {"models.authOrderSet", {{"provider", "mock"}}},
           {"models.authLogout", {{"provider", "mock"}}}}) {
    auto r = reader->request(method, params);
    EXPECT_EQ(r["ok"], false) << method;
    EXPECT_EQ(r["error"]["code"], "FORBIDDEN") << r.dump();
    EXPECT_EQ(error(r), "missing scope: operator.admin") << r.dump();
  }
  EXPECT_FALSE(fs::exists(file()));
}

// Each gateway allows 3 control-plane writes a minute per client (GW-8, as OpenClaw): a refused
// call counts too, so each test below makes at most three.
TEST_F(ModelsAuthMethodsTest, ABadKeyIsRefusedNamingTheFieldAndNeverEchoed) {
  auto c = client();
  auto no_key = c->request("models.authSetApiKey", {{"provider", "mock"}});
  EXPECT_EQ(error(no_key), "invalid models.authSetApiKey params: must have required property 'apiKey'") << no_key.dump();
  auto blank = c->request("models.authSetApiKey", {{"provider", "mock"}, {"apiKey", " \n "}});
  EXPECT_EQ(error(blank), "invalid models.authSetApiKey params: apiKey is empty") << blank.dump();
  auto openai = c->request("models.authSetApiKey", {{"provider", "OpenAI"}, {"apiKey", "eyJhbGciOi.not-a-key"}});
  EXPECT_EQ(error(openai), "invalid models.authSetApiKey params: apiKey does not look like an OpenAI API key (sk-…)")
      << openai.dump();
  EXPECT_EQ(openai.dump().find("eyJhbGciOi"), std::string::npos) << "the key is not echoed";
  EXPECT_FALSE(fs::exists(file())) << "nothing written by a refused call";
}

TEST_F(ModelsAuthMethodsTest, AnUnknownAgentAndABadOrderAreRefused) {
  auto c = client();
  auto agent = c->request("models.authSetApiKey", {{"provider", "mock"}, {"apiKey", kKey}, {"agentId", "nobody"}});
  EXPECT_EQ(error(agent), "unknown agent id \"nobody\"") << agent.dump();
  EXPECT_EQ(agent["error"]["details"]["code"], "UNKNOWN_AGENT_ID");
  auto empty_order = c->request("models.authOrderSet", {{"provider", "mock"}, {"profileIds", json::array()}});
  EXPECT_EQ(error(empty_order), "invalid models.authOrderSet params: /profileIds must be a non-empty array of profile ids")
      << empty_order.dump();
  auto extra = c->request("models.authOrderSet", {{"provider", "mock"}, {"order", json::array()}});
  EXPECT_EQ(error(extra), "invalid models.authOrderSet params: must NOT have additional properties (\"order\")") << extra.dump();
  EXPECT_FALSE(fs::exists(file()));
}

TEST_F(ModelsAuthMethodsTest, ABadLogoutIsRefused) {
  auto c = client();
  auto type = c->request("models.authLogout", {{"provider", "mock"}, {"credentialType", "oauth"}});
  EXPECT_EQ(error(type), "invalid models.authLogout params: /credentialType must be \"api_key\"") << type.dump();
  auto both = c->request("models.authLogout", {{"provider", "mock"}, {"credentialType", "api_key"}, {"profileIds", {"mock:a"}}});
  EXPECT_EQ(error(both), "invalid models.authLogout params: give either credentialType or profileIds, not both") << both.dump();
  auto unknown = c->request("models.authLogout", {{"provider", "mock"}, {"profileIds", {"mock:none"}}});
  EXPECT_EQ(error(unknown), "invalid models.authLogout params: no auth profile \"mock:none\" of provider mock") << unknown.dump();
  EXPECT_FALSE(fs::exists(file())) << "nothing written by a refused call";
}

TEST_F(ModelsAuthMethodsTest, AKeySetOverRpcIsUsedAtOnceAndTheCliSeesIt) {
  auto c = client();
  // Saved in a new <provider>:manual profile; the answer names it and holds no secret.
  auto saved = c->request("models.authSetApiKey", {{"provider", " Mock "}, {"apiKey", std::string(kKey) + "\n"}, {"label", "x"}});
  ASSERT_EQ(saved["ok"], true) << saved.dump();
  EXPECT_EQ(saved["payload"], (json{{"provider", "mock"}, {"profileId", "mock:manual"}}));
  EXPECT_EQ(saved.dump().find(kKey), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(cli_profiles(), (json{"mock:manual"}));
  EXPECT_EQ(cli_profiles("ops"), json::array()) << "another agent's file is its own";

  // The running gateway sends it on the next turn (no restart).
  auto frames = chat_turn(*c, "main", "hello", "run-set-key");
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  const json seen = json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back()["keySuffix"], "dddd") << seen.dump();

  // A second key replaces the first in the same profile.
  auto again = c->request("models.authSetApiKey", {{"provider", "mock"}, {"apiKey", "SetApiKeyRoundTrip0123eeee"}});
  EXPECT_EQ(again["payload"]["profileId"], "mock:manual") << again.dump();
  EXPECT_EQ(cli_profiles(), (json{"mock:manual"}));

  // A profile the CLI added is logged out by name; the other stays.
  home_.write("k.key", "CliAddedKey0123456789ffff\n");
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "mock", "--id", "mock:cli", "--key-file", (home_.path() / "k.key").string()})
                .exit_code,
            0);
  auto one = c->request("models.authLogout", {{"provider", "mock"}, {"profileIds", {"mock:cli"}}});
  ASSERT_EQ(one["ok"], true) << one.dump();
  EXPECT_EQ(one["payload"], (json{{"provider", "mock"}, {"removedProfiles", {"mock:cli"}}, {"abortedRunIds", json::array()}}));
  EXPECT_EQ(cli_profiles(), (json{"mock:manual"}));

  // No key reached the gateway's log.
  for (const char* secret : {kKey, "SetApiKeyRoundTrip0123eeee", "CliAddedKey0123456789ffff"}) {
    EXPECT_EQ(gw_->process().err().find(secret), std::string::npos) << secret;
  }
}

TEST_F(ModelsAuthMethodsTest, TheOrderNamesEveryProfileAndTheCliSeesIt) {
  home_.write("k.key", "CliAddedKey0123456789ffff\n");
  for (const char* id : {"mock:one", "mock:two"}) {
    ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "mock", "--id", id, "--key-file", (home_.path() / "k.key").string()}).exit_code, 0);
  }
  auto c = client();
  auto partial = c->request("models.authOrderSet", {{"provider", "mock"}, {"profileIds", {"mock:two"}}});
  EXPECT_EQ(error(partial), "invalid models.authOrderSet params: the order must name every profile of provider mock; missing \"mock:one\"")
      << partial.dump();
  auto ordered = c->request("models.authOrderSet", {{"provider", "mock"}, {"profileIds", {"mock:two", "mock:one"}}});
  ASSERT_EQ(ordered["ok"], true) << ordered.dump();
  EXPECT_EQ(ordered["payload"], (json{{"provider", "mock"}, {"profileIds", {"mock:two", "mock:one"}}}));
  auto order = pincer({"models", "auth", "order", "--provider", "mock", "--json"});
  ASSERT_EQ(order.exit_code, 0) << order.err;
  EXPECT_EQ(json::parse(order.out)["order"], (json{"mock:two", "mock:one"})) << order.out;
  auto cleared = c->request("models.authOrderSet", {{"provider", "mock"}});
  EXPECT_EQ(cleared["payload"], (json{{"provider", "mock"}, {"profileIds", nullptr}})) << cleared.dump();
  EXPECT_EQ(json::parse(pincer({"models", "auth", "order", "--provider", "mock", "--json"}).out)["order"], json::array());
}

TEST_F(ModelsAuthMethodsTest, LogoutRemovesTheProvidersKeysThenTheRest) {
  home_.write("k.key", "CliAddedKey0123456789ffff\n");
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "mock", "--id", "mock:key", "--key-file", (home_.path() / "k.key").string()}).exit_code, 0);
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "mock", "--id", "mock:tok", "--type", "token", "--key-file",
                    (home_.path() / "k.key").string()})
                .exit_code,
            0);
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "other", "--id", "other:key", "--key-file", (home_.path() / "k.key").string()}).exit_code, 0);
  auto c = client();
  auto keys = c->request("models.authLogout", {{"provider", "mock"}, {"credentialType", "api_key"}});
  ASSERT_EQ(keys["ok"], true) << keys.dump();
  EXPECT_EQ(keys["payload"]["removedProfiles"], (json{"mock:key"}));
  EXPECT_FALSE(keys["payload"].contains("warning")) << "no configured key for mock";
  auto rest = c->request("models.authLogout", {{"provider", "MOCK"}});
  EXPECT_EQ(rest["payload"]["removedProfiles"], (json{"mock:tok"})) << rest.dump();
  EXPECT_EQ(cli_profiles(), (json{"other:key"}));
}

}  // namespace
}  // namespace models_auth_methods_test
}  // namespace pincer::test
