// models.authStatus against the real gateway binary (gateway/methods/models_auth_status.cpp): it
// answers in OpenClaw's shape from the agent's auth-profiles.json — a profile added with
// models.authSetApiKey is listed at once, a cooling or disabled profile shows until when and why
// (the state `pincer models auth list` shows), a token's expiry is given — and never a secret.
#include <gtest/gtest.h>

#include <string>

#include "gateway_process.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace models_auth_status_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "models-auth-status-token-0123456789";
constexpr const char* kSetKey = "AuthStatusSetKey0123aaaa";
constexpr const char* kCoolKey = "AuthStatusCoolKey0123bbbb";
constexpr const char* kOffKey = "AuthStatusOffKey0123cccc";
constexpr const char* kTokenSecret = "AuthStatusToken0123dddd";
constexpr const char* kConfigKey = "AuthStatusConfigKey0123eeee";

class ModelsAuthStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                                   "  models: { providers: {\n" +
                                   "    mock: { baseUrl: '" + mock_->base_url() + "', models: [ { id: 'model-a' } ] },\n" +
                                   "    keyed: { baseUrl: '" + mock_->base_url() + "', apiKey: '" + kConfigKey +
                                   "', models: [ { id: 'model-k' } ] } } },\n" +
                                   "  agents: { defaults: { model: { primary: 'mock/model-a' } },\n" +
                                   "    list: [ { id: 'main' }, { id: 'ops' } ] } }\n");
    now_ = wall_now_ms();
    home_.write("agents/main/agent/auth-profiles.json",
                json{{"version", 1},
                     {"profiles",
                      {{"other:cool", {{"type", "api_key"}, {"provider", "other"}, {"key", kCoolKey}}},
                       {"other:off", {{"type", "api_key"}, {"provider", "other"}, {"key", kOffKey}}},
                       {"other:tok",
                        {{"type", "token"}, {"provider", "other"}, {"token", kTokenSecret}, {"expires", now_ + 2 * 3'600'000LL},
                         {"email", "ops@example.test"}}}}},
                     {"order", {{"other", {"other:tok", "other:cool", "other:off"}}}},
                     {"usageStats",
                      {{"other:cool", {{"cooldownUntil", now_ + 3'600'000LL}, {"cooldownReason", "rate_limit"}, {"errorCount", 2}}},
                       {"other:off", {{"disabledUntil", now_ + 5 * 3'600'000LL}, {"disabledReason", "billing"}, {"errorCount", 1}}},
                       {"other:tok", {{"lastUsed", now_ - 60'000}}}}}}
                    .dump(2));
    gw_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes) {
    auto c = std::make_unique<WsClient>(gw_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, scopes)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true) << (res ? res->dump() : "no answer");
    return c;
  }
  static json find(const json& list, const char* key, const std::string& value) {
    for (const auto& e : list) {
      if (e.value(key, "") == value) return e;
    }
    return nullptr;
  }
  static void expect_no_secret(const json& answer) {
    const std::string text = answer.dump();
    for (const char* secret : {kSetKey, kCoolKey, kOffKey, kTokenSecret, kConfigKey}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << "secret in the answer: " << text;
    }
  }

  TempDir home_;
  int64_t now_ = 0;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(ModelsAuthStatusTest, ListsEachProvidersProfilesWithTheirStateAndNoSecret) {
  auto admin = client({"operator.admin"});
  auto saved = admin->request("models.authSetApiKey", {{"provider", "mock"}, {"apiKey", kSetKey}});
  ASSERT_EQ(saved["ok"], true) << saved.dump();

  auto r = admin->request("models.authStatus", json::object());
  ASSERT_EQ(r["ok"], true) << r.dump();
  const json& out = r["payload"];
  expect_no_secret(out);
  EXPECT_FALSE(out.contains("unavailable")) << out.dump();
  EXPECT_GE(out["ts"].get<int64_t>(), now_);

  // The profile just set, listed at once.
  const json mock = find(out["providers"], "provider", "mock");
  ASSERT_TRUE(mock.is_object()) << out.dump();
  EXPECT_EQ(mock["status"], "static") << mock.dump();
  ASSERT_EQ(mock["profiles"].size(), 1u) << mock.dump();
  const json& manual = mock["profiles"][0];
  EXPECT_EQ(manual["profileId"], "mock:manual");
  EXPECT_EQ(manual["type"], "api_key");
  EXPECT_EQ(manual["status"], "static");
  EXPECT_EQ(manual["source"], "saved");
  EXPECT_EQ(manual["state"], "usable");
  EXPECT_EQ(manual["logoutSupported"], true);

  // A cooling profile says until when and why; a disabled one too; a token its expiry.
  const json other = find(out["providers"], "provider", "other");
  ASSERT_TRUE(other.is_object()) << out.dump();
  EXPECT_EQ(other["status"], "expiring") << "its token expires within 24 h: " << other.dump();
  EXPECT_EQ(other["expiry"]["at"], now_ + 2 * 3'600'000LL);
  EXPECT_EQ(other["profileOrder"], (json{"other:tok", "other:cool", "other:off"}));
  const json cool = find(other["profiles"], "profileId", "other:cool");
  EXPECT_EQ(cool["state"], "cooling") << cool.dump();
  EXPECT_EQ(cool["cooldownUntil"], now_ + 3'600'000LL);
  EXPECT_EQ(cool["cooldownReason"], "rate_limit");
  EXPECT_EQ(cool["errorCount"], 2);
  const json off = find(other["profiles"], "profileId", "other:off");
  EXPECT_EQ(off["state"], "disabled") << off.dump();
  EXPECT_EQ(off["disabledUntil"], now_ + 5 * 3'600'000LL);
  EXPECT_EQ(off["disabledReason"], "billing");
  const json tok = find(other["profiles"], "profileId", "other:tok");
  EXPECT_EQ(tok["type"], "token") << tok.dump();
  EXPECT_EQ(tok["status"], "expiring") << "within OpenClaw's 24 h window: " << tok.dump();
  EXPECT_EQ(tok["expiry"]["at"], now_ + 2 * 3'600'000LL);
  EXPECT_EQ(tok["expiry"]["label"], "2h");
  EXPECT_EQ(tok["email"], "ops@example.test") << "operator.admin sees who the profile is";
  EXPECT_EQ(tok["lastUsedAt"], now_ - 60'000);

  // A key in the config counts, unnamed; every configured provider may take a key from the form.
  const json keyed = find(out["providers"], "provider", "keyed");
  ASSERT_TRUE(keyed.is_object()) << out.dump();
  EXPECT_EQ(keyed["status"], "static");
  EXPECT_EQ(keyed["apiKey"], (json{{"source", "config"}}));
  EXPECT_EQ(keyed["profiles"], json::array());
  EXPECT_EQ(find(out["providerCapabilities"], "provider", "mock"),
            (json{{"provider", "mock"}, {"apiKeySupported", true}, {"quickApiKeySetup", true}}));

  // `pincer models auth list` shows the same state (one code path).
  auto cli = run_pincer({"models", "auth", "list", "--json"}, isolated_cli_env(home_.path(), {{"PINCER_HOME", home_.path().string()}}),
                        60s);
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const json listed = json::parse(cli.out);
  EXPECT_EQ(find(listed["profiles"], "id", "other:cool")["cooldownUntil"], cool["cooldownUntil"]) << cli.out;
}

TEST_F(ModelsAuthStatusTest, AReaderSeesNoIdentityAndBadParamsAreRefused) {
  auto reader = client({"operator.read"});
  auto r = reader->request("models.authStatus", {{"refresh", true}, {"agentId", "main"}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  expect_no_secret(r["payload"]);
  const json tok = find(find(r["payload"]["providers"], "provider", "other")["profiles"], "profileId", "other:tok");
  EXPECT_EQ(tok["status"], "expiring") << r.dump();
  EXPECT_FALSE(tok.contains("email")) << tok.dump();
  EXPECT_FALSE(tok.contains("lastUsedAt")) << tok.dump();

  auto ops = reader->request("models.authStatus", {{"agentId", "ops"}});
  ASSERT_EQ(ops["ok"], true) << ops.dump();
  EXPECT_EQ(find(ops["payload"]["providers"], "provider", "other"), nullptr) << "another agent's profiles are its own";

  auto refresh = reader->request("models.authStatus", {{"refresh", "yes"}});
  EXPECT_EQ(refresh["error"]["message"], "invalid models.authStatus params: /refresh must be boolean") << refresh.dump();
  auto extra = reader->request("models.authStatus", {{"provider", "mock"}});
  EXPECT_EQ(extra["error"]["message"], "invalid models.authStatus params: must NOT have additional properties (\"provider\")")
      << extra.dump();
  auto agent = reader->request("models.authStatus", {{"agentId", "nobody"}});
  EXPECT_EQ(agent["error"]["message"], "unknown agent id \"nobody\"") << agent.dump();
}

}  // namespace
}  // namespace models_auth_status_test
}  // namespace pincer::test
