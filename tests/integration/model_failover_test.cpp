// Credentials and failover end to end (issue 17, PV-2..5): the real gateway, two auth profiles in
// agents/main/agent/auth-profiles.json and a fallback model on another provider, the mock LLM
// failing chosen keys with the providers' real 429/402 bodies (/__mock/keys). The cooldowns and
// disables are read back from the file and must hold across a gateway restart.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace model_failover_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "failover-test-token-0123456789";
// Shapes no credential pattern knows: only exact-value redaction of the profiles can mask them.
constexpr const char* kKeyA = "ProfileKeyAlpha7731aaaa";
constexpr const char* kKeyB = "ProfileKeyBravo8842bbbb";
constexpr const char* kBackupKey = "BackupProviderKey5519zzzz";

class ModelFailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json",
                std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                    "  models: { providers: {\n" +
                    "    mock: { baseUrl: '" + mock_->base_url() + "', models: [ { id: 'primary-model' } ] },\n" +
                    "    backup: { baseUrl: '" + mock_->base_url() + "', apiKey: '" + kBackupKey +
                    "', models: [ { id: 'backup-model', contextWindow: 64000 } ] } } },\n" +
                    "  agents: { defaults: { model: { primary: 'mock/primary-model', fallbacks: ['backup/backup-model'] } } } }\n");
    home_.write("agents/main/agent/auth-profiles.json",
                json{{"version", 1},
                     {"profiles",
                      {{"mock:a", {{"type", "api_key"}, {"provider", "mock"}, {"key", kKeyA}}},
                       {"mock:b", {{"type", "api_key"}, {"provider", "mock"}, {"key", kKeyB}}}}},
                     {"somethingNew", {{"kept", true}}}}
                    .dump(2));
    start_gateway();
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  void start_gateway() {
    client_.reset();
    gateway_.reset();
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  void fail_keys(const json& rules) {
    auto r = http_request(mock_->port(), "POST", "/__mock/keys", {{"Content-Type", "application/json"}}, rules.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  json generation_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    json out = json::array();
    for (const auto& e : json::parse(r.body)) {
      if (e.contains("api")) out.push_back(e);
    }
    return out;
  }
  void reset_mock() { http_request(mock_->port(), "POST", "/__mock/reset"); }
  json profiles_file() { return json::parse(read_file(home_.path() / "agents/main/agent/auth-profiles.json")); }

  /// Sends `message`; returns every frame up to the run's terminal chat event (included).
  std::vector<json> turn(const std::string& message, const std::string& run_id) {
    return chat_turn(*client_, "main", message, run_id);
  }
  static json terminal_of(const std::vector<json>& frames) { return frames.empty() ? json() : frames.back()["payload"]; }
  static std::vector<json> fallbacks_in(const std::vector<json>& frames) {
    std::vector<json> out;
    for (const auto& f : frames) {
      if (f["event"] == "agent" && f["payload"]["stream"] == "lifecycle" && f["payload"]["data"]["phase"] == "fallback") {
        out.push_back(f["payload"]["data"]);
      }
    }
    return out;
  }
  static std::vector<std::string> key_suffixes(const json& requests) {
    std::vector<std::string> out;
    for (const auto& r : requests) out.push_back(r.value("keySuffix", ""));
    return out;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ModelFailoverTest, ARateLimitedProfileRotatesToTheNextAndStaysCoolingAfterARestart) {
  fail_keys({{kKeyA, 429}});
  auto frames = turn("hello", "run-429");
  json final = terminal_of(frames);
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(generation_requests()), (std::vector<std::string>{"aaaa", "bbbb"}));
  // The switch between profiles of one model is reported to operators (the agent event).
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["fromProfile"], "mock:a");
  EXPECT_EQ(switches[0]["toProfile"], "mock:b");
  EXPECT_EQ(switches[0]["reason"], "rate_limit");

  json file = profiles_file();
  const json& a = file["usageStats"]["mock:a"];
  EXPECT_GT(a.value("cooldownUntil", int64_t{0}), wall_now_ms()) << file.dump();
  EXPECT_EQ(a["cooldownReason"], "rate_limit");
  EXPECT_EQ(a["failureCounts"]["rate_limit"], 1);
  EXPECT_EQ(file["lastGood"]["mock"], "mock:b");
  EXPECT_EQ(file["somethingNew"]["kept"], true) << "members Pincer does not know survive its writes";
  const auto perms = std::filesystem::status(home_.path() / "agents/main/agent/auth-profiles.json").permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // /status tells which switch happened last, and why.
  final = terminal_of(turn("/status", "run-status"));
  EXPECT_NE(final.dump().find("last failover: mock/primary-model (profile mock:a)"), std::string::npos) << final.dump();
  EXPECT_NE(final.dump().find("rate_limit"), std::string::npos) << final.dump();

  // After a restart the cooling key is not tried first: the next turn goes straight to b.
  start_gateway();
  reset_mock();
  fail_keys({{kKeyA, 0}});
  final = terminal_of(turn("again", "run-after-restart"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(generation_requests()), (std::vector<std::string>{"bbbb"}));
}

TEST_F(ModelFailoverTest, BillingDisablesAProfileAndAllDownFallsBackToTheNextModel) {
  fail_keys({{kKeyA, 402}, {kKeyB, 429}});
  auto frames = turn("hello", "run-402");
  json final = terminal_of(frames);
  ASSERT_EQ(final["state"], "final") << final.dump();
  json requests = generation_requests();
  ASSERT_EQ(requests.size(), 3u) << requests.dump();
  EXPECT_EQ(requests[2]["body"]["model"], "backup-model");
  EXPECT_EQ(requests[2]["keySuffix"], "zzzz");
  // The user sees why another model answered.
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 2u);
  EXPECT_EQ(switches[1]["fromModel"], "mock/primary-model");
  EXPECT_EQ(switches[1]["toModel"], "backup/backup-model");
  EXPECT_EQ(switches[1]["reason"], "rate_limit");

  json file = profiles_file();
  EXPECT_GT(file["usageStats"]["mock:a"].value("disabledUntil", int64_t{0}), wall_now_ms() + 3'600'000) << file.dump();
  EXPECT_EQ(file["usageStats"]["mock:a"]["disabledReason"], "billing");

  // After a restart the billing-blocked key is skipped; with b cooling too, the fallback answers
  // at once and says why.
  start_gateway();
  reset_mock();
  frames = turn("again", "run-after-restart");
  final = terminal_of(frames);
  ASSERT_EQ(final["state"], "final") << final.dump();
  requests = generation_requests();
  ASSERT_EQ(requests.size(), 1u) << requests.dump();
  EXPECT_EQ(requests[0]["keySuffix"], "zzzz");
  switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["reason"], "unavailable");
}

TEST_F(ModelFailoverTest, ProfilesAddedAndOrderedWithTheCliApplyToTheRunningGateway) {
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()}, {"HOME", home_.path().string()}};
  home_.write("c.key", "ProfileKeyCharlie9953cccc\n");
  auto added = run_pincer({"models", "auth", "add", "--provider", "mock", "--id", "mock:c", "--key-file",
                           (home_.path() / "c.key").string()}, env);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  auto ordered = run_pincer({"models", "auth", "order", "--provider", "mock", "mock:c", "mock:a"}, env);
  ASSERT_EQ(ordered.exit_code, 0) << ordered.err;
  auto bad = run_pincer({"models", "auth", "order", "--provider", "mock", "backup:x"}, env);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("backup:x"), std::string::npos) << bad.err;
  ASSERT_EQ(terminal_of(turn("hello", "run-cli"))["state"], "final");
  EXPECT_EQ(key_suffixes(generation_requests()), (std::vector<std::string>{"cccc"}));

  auto listed = run_pincer({"models", "auth", "list", "--json"}, env);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find("ProfileKeyCharlie"), std::string::npos) << "list never prints a secret";
  const json rows = json::parse(listed.out)["profiles"];
  ASSERT_EQ(rows.size(), 3u) << listed.out;
  fail_keys({{"ProfileKeyCharlie9953cccc", 429}});
  reset_mock();
  ASSERT_EQ(terminal_of(turn("again", "run-cli-2"))["state"], "final");
  listed = run_pincer({"models", "auth", "list", "--json"}, env);
  bool cooling = false;
  const json after = json::parse(listed.out);
  for (const auto& r : after["profiles"]) cooling |= r["id"] == "mock:c" && r["state"] == "cooling";
  EXPECT_TRUE(cooling) << listed.out;
  auto reset = run_pincer({"models", "auth", "reset", "mock:c"}, env);
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  listed = run_pincer({"models", "auth", "list", "--json"}, env);
  EXPECT_EQ(listed.out.find("cooling"), std::string::npos) << listed.out;
}

// A new-user pass found /status showing the agent's primary model window after /model.
TEST_F(ModelFailoverTest, StatusShowsTheWindowOfTheSessionsModel) {
  json status = terminal_of(turn("/status", "run-status-1"));
  EXPECT_NE(status.dump().find("context window 128000 tokens"), std::string::npos) << status.dump();
  ASSERT_EQ(terminal_of(turn("/model backup/backup-model", "run-model"))["state"], "final");
  status = terminal_of(turn("/status", "run-status-2"));
  EXPECT_NE(status.dump().find("model `backup/backup-model`"), std::string::npos) << status.dump();
  EXPECT_NE(status.dump().find("context window 64000 tokens"), std::string::npos) << status.dump();
}

TEST_F(ModelFailoverTest, AFailureAfterTextWasShownIsNotRetriedOnAnotherModel) {
  auto frames = turn("MOCK_STREAM_ERROR:2", "run-mid-stream");
  json final = terminal_of(frames);
  EXPECT_EQ(final["state"], "error") << final.dump();
  EXPECT_EQ(generation_requests().size(), 1u);
  EXPECT_TRUE(fallbacks_in(frames).empty());
}

TEST_F(ModelFailoverTest, NoProfileSecretReachesTheLogWhenEveryCandidateFails) {
  // Each provider answers 401 quoting the key it was sent (a careless provider or proxy).
  auto frames = turn("MOCK_ECHO_KEY:401", "run-echo");
  json final = terminal_of(frames);
  ASSERT_EQ(final["state"], "error") << final.dump();
  EXPECT_EQ(generation_requests().size(), 3u) << "a, b, then the fallback";
  // The error says what was tried and what each attempt met.
  const std::string error_text = final.value("errorMessage", "");
  EXPECT_NE(error_text.find("(failed over: "), std::string::npos) << final.dump();
  EXPECT_NE(error_text.find("HTTP 401"), std::string::npos) << final.dump();
  const std::string everything = [&] {
    std::string s;
    for (const auto& f : frames) s += f.dump() + "\n";
    return s;
  }();
  auto tail = client_->request("logs.tail", {{"limit", 1000}});
  ASSERT_EQ(tail["ok"], true) << tail.dump();
  for (const char* key : {kKeyA, kKeyB, kBackupKey}) {
    EXPECT_EQ(everything.find(key), std::string::npos) << key << " in the events";
    EXPECT_EQ(tail["payload"]["lines"].dump().find(key), std::string::npos) << key << " in logs.tail";
    EXPECT_EQ(all_files_under(home_.path(), {"auth-profiles.json", "pincer.json"}).find(key), std::string::npos) << key << " in a file";
  }
  EXPECT_NE(read_file(home_.path() / "agents/main/agent/auth-profiles.json").find(kKeyA), std::string::npos)
      << "the key stays in its own file";
}

}  // namespace
}  // namespace model_failover_test
}  // namespace pincer::test
