// Provider secrets never leave the gateway (issue 22, items 6 and 9): the real binary, the mock
// LLM quoting the credentials it was sent in its error body (MOCK_ECHO_KEY), and every place an
// error goes — the log file, logs.tail, the operators' chat/agent events, agent.wait, the
// transcript — checked for the API key (from "${ENV}") and a provider header value. config.get
// (operator.read) shows "${NAME}" references as written, not their values.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace secrets_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "secrets-test-token-0123456789";
// Shapes no credential pattern knows (no "sk-", no "token=" before them): only exact-value
// redaction of the configured values can catch them.
constexpr const char* kProviderKey = "Prov1derKey0fTheOwner7730xyz";
constexpr const char* kHeaderValue = "Hdr0rgValue4412qrs";

class SecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json",
                std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                    "  models: { providers: { mock: { baseUrl: '${PINCER_TEST_BASE_URL}', apiKey: '${PINCER_TEST_KEY}',\n" +
                    "    headers: { 'X-Org-Ref': '" + kHeaderValue + "' },\n" +
                    "    models: [ { id: 'mock-model' } ] } } },\n" +
                    "  agents: { defaults: { model: { primary: 'mock/mock-model' } } } }\n");
    gateway_ = std::make_unique<Gateway>(
        home_.path(), std::vector<std::string>{},
        std::map<std::string, std::string>{{"PINCER_TEST_KEY", kProviderKey}, {"PINCER_TEST_BASE_URL", mock_->base_url()}});
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  /// Sends `message` and returns every frame up to the run's terminal chat event (included).
  std::vector<json> turn(const std::string& message, const std::string& run_id) {
    std::vector<json> frames;
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    frames.push_back(ack);
    auto terminal = [&](const json& f) {
      return f["event"] == "chat" && f["payload"]["runId"] == run_id && f["payload"]["state"] != "delta";
    };
    while (!client_->events().empty()) {
      frames.push_back(std::move(client_->events().front()));
      client_->events().pop_front();
      if (terminal(frames.back())) return frames;
    }
    for (int i = 0; i < 2000; ++i) {
      auto f = client_->recv(20s);
      if (!f) break;
      frames.push_back(*f);
      if (terminal(*f)) return frames;
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return frames;
  }

  static void expect_no_secret(const std::string& where, const std::string& text) {
    EXPECT_EQ(text.find(kProviderKey), std::string::npos) << "API key in " << where << ":\n" << text;
    EXPECT_EQ(text.find(kHeaderValue), std::string::npos) << "header value in " << where << ":\n" << text;
    // Not even a prefix of the key (a cut after the first characters).
    EXPECT_EQ(text.find(std::string(kProviderKey).substr(0, 12)), std::string::npos) << where << ":\n" << text;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(SecretsTest, AProviderEchoingTheKeyLeaksItNowhere) {
  // 401 (auth) and 400 (format): both end the run at once with the provider's message quoted.
  for (const auto& [message, run_id] : {std::pair{"MOCK_ECHO_KEY", "run-401"}, std::pair{"MOCK_ECHO_KEY:400", "run-400"}}) {
    auto frames = turn(message, run_id);
    ASSERT_FALSE(frames.empty());
    const json& last = frames.back()["payload"];
    ASSERT_EQ(last["state"], "error") << last.dump();
    const std::string error = last.value("errorMessage", "");
    EXPECT_NE(error.find("mock/mock-model"), std::string::npos) << "operators still get the detail: " << error;
    EXPECT_NE(error.find("Invalid API key provided"), std::string::npos) << error;
    std::string all;
    for (const auto& f : frames) all += f.dump() + "\n";
    expect_no_secret(std::string("the chat/agent events of ") + run_id, all);
    auto waited = client_->request("agent.wait", {{"runId", run_id}, {"timeoutMs", 2000}});
    expect_no_secret("agent.wait", waited.dump());
  }
  // The mock did receive the key (the test would prove nothing otherwise).
  auto requests = http_request(mock_->port(), "GET", "/__mock/requests");
  ASSERT_EQ(requests.status, 200);
  EXPECT_NE(requests.body.find(kHeaderValue), std::string::npos) << "the header reached the provider";

  auto tail = client_->request("logs.tail", {{"limit", 1000}});
  ASSERT_EQ(tail["ok"], true) << tail.dump();
  const std::string tail_text = tail["payload"]["lines"].dump();
  EXPECT_NE(tail_text.find("model call failed"), std::string::npos) << "the failure is logged: " << tail_text;
  expect_no_secret("logs.tail", tail_text);
  expect_no_secret("the log file", all_files_under(home_.path() / "logs"));
  const std::string transcripts = all_files_under(home_.path() / "agents");
  EXPECT_NE(transcripts.find("errorMessage"), std::string::npos) << "the error is in the transcript";
  expect_no_secret("the transcript", transcripts);
  expect_no_secret("the gateway's console", gateway_->process().out() + gateway_->process().err());
}

TEST_F(SecretsTest, ASecretAddedByAHotReloadIsMaskedToo) {
  constexpr const char* kNewHeader = "Hdr0rgValueAfterReload9981";
  home_.write("pincer.json",
              std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                  "  models: { providers: { mock: { baseUrl: '${PINCER_TEST_BASE_URL}', apiKey: '${PINCER_TEST_KEY}',\n" +
                  "    headers: { 'X-Org-Ref': '" + kNewHeader + "' },\n" +
                  "    models: [ { id: 'mock-model' } ] } } },\n" +
                  "  agents: { defaults: { model: { primary: 'mock/mock-model' } } } }\n");
  // Wait (bounded) until the gateway has applied the edit.
  bool reloaded = false;
  for (int i = 0; i < 100 && !reloaded; ++i) {
    auto tail = client_->request("logs.tail", {{"limit", 1000}});
    reloaded = tail["payload"]["lines"].dump().find("config reloaded") != std::string::npos;
    if (!reloaded) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(reloaded) << gateway_->process().err();
  auto frames = turn("MOCK_ECHO_KEY", "run-reload");
  ASSERT_EQ(frames.back()["payload"]["state"], "error") << frames.back().dump();
  std::string all;
  for (const auto& f : frames) all += f.dump() + "\n";
  EXPECT_EQ(all.find(kNewHeader), std::string::npos) << all;
  const std::string log = all_files_under(home_.path() / "logs");
  EXPECT_EQ(log.find(kNewHeader), std::string::npos) << log;
  EXPECT_EQ(all_files_under(home_.path() / "agents").find(kNewHeader), std::string::npos);
  auto requests = http_request(mock_->port(), "GET", "/__mock/requests");
  EXPECT_NE(requests.body.find(kNewHeader), std::string::npos) << "the new header reached the provider";
}

TEST_F(SecretsTest, ConfigGetShowsEnvReferencesAsWritten) {
  auto res = client_->request("config.get");
  ASSERT_EQ(res["ok"], true) << res.dump();
  const json& provider = res["payload"]["config"]["models"]["providers"]["mock"];
  EXPECT_EQ(provider["baseUrl"], "${PINCER_TEST_BASE_URL}") << provider.dump();
  EXPECT_EQ(provider["apiKey"], "__PINCER_REDACTED__");
  EXPECT_EQ(res["payload"]["config"].dump().find(mock_->base_url()), std::string::npos)
      << "no substituted value: " << res.dump();
}

// Issue 22 item 14: a state dir or pincer.json that other users can read is said at start.
TEST(GatewayStart, WarnsAboutAStateDirOthersCanRead) {
  TempDir home;
  home.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } } }\n");
  std::filesystem::permissions(home.path(), std::filesystem::perms(0755));
  std::filesystem::permissions(home.path() / "pincer.json", std::filesystem::perms(0644));
  {
    Gateway gw(home.path());
    const std::string err = gw.process().err();
    EXPECT_NE(err.find(home.path().string() + " is mode 755"), std::string::npos) << err;
    EXPECT_NE(err.find("chmod 700 " + home.path().string()), std::string::npos) << err;
    EXPECT_NE(err.find("pincer.json is mode 644"), std::string::npos) << err;
  }
  std::filesystem::permissions(home.path(), std::filesystem::perms(0700));
  std::filesystem::permissions(home.path() / "pincer.json", std::filesystem::perms(0600));
  Gateway gw(home.path());
  EXPECT_EQ(gw.process().err().find("is mode"), std::string::npos) << gw.process().err();
}

// Issue 22 item 14: the gateway token from a file instead of the command line (visible in ps).
TEST(GatewayStart, TakesItsTokenFromAFile) {
  TempDir home;
  home.write("pincer.json", "{ gateway: { auth: { mode: 'token' } } }\n");
  home.write("token.txt", std::string(kToken) + "\n");
  std::filesystem::permissions(home.path() / "token.txt", std::filesystem::perms(0600));
  {
    Gateway gw(home.path(), {"--token-file", (home.path() / "token.txt").string()});
    EXPECT_EQ(gw.process().err().find("warning: --token"), std::string::npos) << gw.process().err();
    WsClient c(gw.port());
    ASSERT_TRUE(c.recv());
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c.recv_response("c1");
    ASSERT_TRUE(res);
    EXPECT_EQ((*res)["ok"], true) << res->dump();
  }
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()}};
  auto missing = run_pincer({"gateway", "run", "--port", "0", "--token-file", (home.path() / "nope").string()}, env);
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find((home.path() / "nope").string()), std::string::npos) << missing.err;
  auto both = run_pincer({"gateway", "run", "--port", "0", "--token", kToken, "--token-file",
                          (home.path() / "token.txt").string()},
                         env);
  EXPECT_EQ(both.exit_code, 2) << both.err;
  Gateway flagged(home.path(), {"--token", kToken});
  EXPECT_NE(flagged.process().err().find("warning: --token is visible to every local user"), std::string::npos)
      << flagged.process().err();
}

}  // namespace
}  // namespace secrets_test
}  // namespace pincer::test
