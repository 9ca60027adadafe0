// OAuth refresh of `oauth` auth profiles end to end (PV-2): the real gateway, an oauth profile in
// agents/main/agent/auth-profiles.json and an api_key profile after it, the mock LLM's OAuth token
// endpoint (tests/mock_llm/mock-oauth.mjs, configured through `models.providers.mock.oauth`), and
// the mock refusing the old access token with the provider's real 401 body (/__mock/keys), so a
// turn can only answer with the token the endpoint issued. Tokens are shaped like no credential
// pattern: only exact-value redaction can keep them out of the log.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace oauth_refresh_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "oauth-refresh-test-token-0123456789";
constexpr const char* kOldAccess = "OldOAuthAccess4471qqqq";
constexpr const char* kOldRefresh = "OldOAuthRefresh9902rrrr";
constexpr const char* kNewAccess = "NewOAuthAccess6613nnnn";
constexpr const char* kNewRefresh = "NewOAuthRefresh2280ssss";
constexpr const char* kKeyB = "PlainProfileKey7705bbbb";

class OAuthRefreshTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  /// Starts the mock and the gateway; the oauth profile's access token expires at `expires`.
  /// `body_format` "none": the provider has no `oauth` settings (no token endpoint at all).
  void start(int64_t expires, const std::string& body_format = "") {
    mock_ = std::make_unique<MockLlm>();
    const std::string token_url = "http://127.0.0.1:" + std::to_string(mock_->port()) + "/oauth/token";
    const std::string oauth = body_format == "none" ? std::string()
                              : ",\n            oauth: { tokenUrl: '" + token_url + "', clientId: 'pincer-test-client'" +
                                    (body_format.empty() ? std::string() : ", bodyFormat: '" + body_format + "'") + " }";
    home_.write("pincer.json",
                std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                    "  models: { providers: {\n" +
                    "    mock: { baseUrl: '" + mock_->base_url() + "', models: [ { id: 'primary-model' } ]" + oauth +
                    " } } },\n" +
                    "  agents: { defaults: { model: { primary: 'mock/primary-model' } } } }\n");
    home_.write("agents/main/agent/auth-profiles.json",
                json{{"version", 1},
                     {"profiles",
                      {{"mock:me@example.com",
                        {{"type", "oauth"}, {"provider", "mock"}, {"access", kOldAccess}, {"refresh", kOldRefresh},
                         {"expires", expires}, {"email", "me@example.com"}}},
                       {"mock:key", {{"type", "api_key"}, {"provider", "mock"}, {"key", kKeyB}}}}}}
                    .dump(2));
    // The provider refuses the old access token: only a refreshed one can answer.
    post("/__mock/keys", {{kOldAccess, 401}});
    post("/__mock/oauth", {{"refreshToken", kOldRefresh}, {"accessToken", kNewAccess}, {"nextRefreshToken", kNewRefresh}});
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  json post(const std::string& path, const json& body) {
    auto r = http_request(mock_->port(), "POST", path, {{"Content-Type", "application/json"}}, body.dump());
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  json token_calls() { return json::parse(http_request(mock_->port(), "GET", "/__mock/oauth").body)["calls"]; }
  std::vector<std::string> key_suffixes() {
    std::vector<std::string> out;
    for (const auto& e : json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body)) {
      if (e.contains("api")) out.push_back(e.value("keySuffix", ""));
    }
    return out;
  }
  json profiles_file() { return json::parse(read_file(home_.path() / "agents/main/agent/auth-profiles.json")); }
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
  /// No token, old or new, in the gateway's log or any file it wrote besides auth-profiles.json.
  void expect_no_token_leaked() {
    const std::string log =
        gateway_->process().err() + gateway_->process().out() + all_files_under(home_.path(), {"auth-profiles.json"});
    for (const char* secret : {kOldAccess, kOldRefresh, kNewAccess, kNewRefresh, kKeyB}) {
      EXPECT_EQ(log.find(secret), std::string::npos) << secret << " leaked";
    }
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(OAuthRefreshTest, AnExpiredProfileIsRefreshedOnceSavedAndTheTurnUsesTheNewToken) {
  start(wall_now_ms() - 60'000);
  json final = terminal_of(chat_turn(*client_, "main", "hello", "run-1"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(), std::vector<std::string>{"nnnn"}) << "the call carried the refreshed access token";
  json calls = token_calls();
  ASSERT_EQ(calls.size(), 1u) << calls.dump();
  EXPECT_EQ(calls[0]["format"], "form");
  EXPECT_EQ(calls[0]["grantType"], "refresh_token");
  EXPECT_EQ(calls[0]["clientId"], "pincer-test-client");
  EXPECT_EQ(calls[0]["refreshMatched"], true);

  const auto path = home_.path() / "agents/main/agent/auth-profiles.json";
  json file = profiles_file();
  const json& p = file["profiles"]["mock:me@example.com"];
  EXPECT_EQ(p["access"], kNewAccess);
  EXPECT_EQ(p["refresh"], kNewRefresh);
  EXPECT_GT(p["expires"].get<int64_t>(), wall_now_ms() + 30 * 60'000);
  EXPECT_EQ(p["email"], "me@example.com") << "other members are kept";
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // The next turn uses the saved token without another refresh.
  final = terminal_of(chat_turn(*client_, "main", "again", "run-2"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(token_calls().size(), 1u);
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"nnnn", "nnnn"}));
  expect_no_token_leaked();
}

TEST_F(OAuthRefreshTest, TwoConcurrentTurnsWaitForOneRefresh) {
  start(wall_now_ms() - 60'000, "json");
  post("/__mock/oauth", {{"hold", "token"}});  // the endpoint answers when released
  for (const char* session : {"one", "two"}) {
    auto ack = client_->request("chat.send", {{"sessionKey", session}, {"message", "hi"}, {"idempotencyKey", std::string("run-") + session}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  // Both runs have started (their lifecycle start events) before the refresh is let through.
  int started = 0, finals = 0;
  bool released = false;
  for (int i = 0; i < 2000 && finals < 2; ++i) {
    std::optional<json> f;
    if (!client_->events().empty()) {
      f = client_->events().front();
      client_->events().pop_front();
    } else {
      f = client_->recv(std::chrono::seconds(30));
    }
    ASSERT_TRUE(f) << "no frame";
    if ((*f)["event"] == "agent" && (*f)["payload"]["stream"] == "lifecycle" && (*f)["payload"]["data"]["phase"] == "start") {
      if (++started == 2 && !released) {
        http_request(mock_->port(), "POST", "/__mock/release?name=token");
        released = true;
      }
    }
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] != "delta") {
      EXPECT_EQ((*f)["payload"]["state"], "final") << f->dump();
      ++finals;
    }
  }
  ASSERT_EQ(finals, 2);
  json calls = token_calls();
  ASSERT_EQ(calls.size(), 1u) << calls.dump();
  EXPECT_EQ(calls[0]["format"], "json") << "models.providers.mock.oauth.bodyFormat";
  // The second run found the first one's refresh in flight and waited for it (single flight).
  EXPECT_NE(gateway_->process().err().find("mock:me@example.com: waiting for the OAuth refresh in flight"), std::string::npos);
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"nnnn", "nnnn"}));
  expect_no_token_leaked();
}

TEST_F(OAuthRefreshTest, InvalidGrantDisablesTheProfileAndTheNextOneAnswers) {
  start(wall_now_ms() - 60'000);
  post("/__mock/oauth", {{"error", "invalid_grant"}});
  auto frames = chat_turn(*client_, "main", "hello", "run-1");
  json final = terminal_of(frames);
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(), std::vector<std::string>{"bbbb"});
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["fromProfile"], "mock:me@example.com");
  EXPECT_EQ(switches[0]["toProfile"], "mock:key");
  EXPECT_EQ(switches[0]["reason"], "auth_permanent");
  EXPECT_NE(switches[0]["message"].get<std::string>().find("log in again"), std::string::npos) << switches[0].dump();

  json file = profiles_file();
  const json& stats = file["usageStats"]["mock:me@example.com"];
  EXPECT_GT(stats.value("disabledUntil", int64_t{0}), wall_now_ms() + 3'600'000) << file.dump();
  EXPECT_EQ(stats["disabledReason"], "auth_permanent");
  EXPECT_EQ(file["profiles"]["mock:me@example.com"]["access"], kOldAccess) << "nothing was refreshed";
  EXPECT_EQ(token_calls().size(), 1u);

  // The disabled profile is skipped by the next turn: no second refresh attempt.
  final = terminal_of(chat_turn(*client_, "main", "again", "run-2"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(token_calls().size(), 1u);
  expect_no_token_leaked();
}

TEST_F(OAuthRefreshTest, ATransientRefreshFailureCoolsTheProfileDown) {
  start(wall_now_ms() - 60'000);
  post("/__mock/oauth", {{"error", "server_error"}, {"status", 503}});
  auto frames = chat_turn(*client_, "main", "hello", "run-1");
  ASSERT_EQ(terminal_of(frames)["state"], "final");
  EXPECT_EQ(key_suffixes(), std::vector<std::string>{"bbbb"});
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["reason"], "auth");
  json stats = profiles_file()["usageStats"]["mock:me@example.com"];
  EXPECT_GT(stats.value("cooldownUntil", int64_t{0}), wall_now_ms()) << stats.dump();
  EXPECT_EQ(stats["cooldownReason"], "auth");
  EXPECT_FALSE(stats.contains("disabledUntil"));
}

TEST_F(OAuthRefreshTest, A401OnAnUnexpiredTokenRefreshesOnceAndRetries) {
  start(wall_now_ms() + 3'600'000);  // not due: the provider's 401 says it was revoked
  json final = terminal_of(chat_turn(*client_, "main", "hello", "run-1"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"qqqq", "nnnn"}));
  EXPECT_EQ(token_calls().size(), 1u);
  EXPECT_EQ(profiles_file()["profiles"]["mock:me@example.com"]["access"], kNewAccess);
  expect_no_token_leaked();
}

TEST_F(OAuthRefreshTest, A401AfterTheRefreshRotatesInsteadOfRefreshingAgain) {
  start(wall_now_ms() + 3'600'000);
  post("/__mock/keys", {{kNewAccess, 401}});  // the refreshed token is refused too
  auto frames = chat_turn(*client_, "main", "hello", "run-1");
  ASSERT_EQ(terminal_of(frames)["state"], "final");
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"qqqq", "nnnn", "bbbb"}));
  EXPECT_EQ(token_calls().size(), 1u) << "one refresh per profile and run";
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["fromProfile"], "mock:me@example.com");
  // The provider words it as a wrong key ("Incorrect API key provided"): the profile cools down
  // (auth) rather than being disabled, as OpenClaw treats such ambiguous refusals.
  EXPECT_EQ(switches[0]["reason"], "auth");
  const json stats = profiles_file()["usageStats"]["mock:me@example.com"];
  EXPECT_GT(stats.value("cooldownUntil", int64_t{0}), wall_now_ms()) << stats.dump();
  EXPECT_FALSE(stats.contains("disabledUntil")) << stats.dump();
}

TEST_F(OAuthRefreshTest, ATokenShorterThanTheMarginIsNotRefreshedBeforeEveryCall) {
  start(wall_now_ms() - 60'000);
  post("/__mock/oauth", {{"expiresIn", 60}});  // inside the 5-minute margin from the start
  // A tool call makes the turn two model calls.
  json final = terminal_of(chat_turn(*client_, "main", "MOCK_TOOL:session_status", "run-1"));
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"nnnn", "nnnn"}));
  EXPECT_EQ(token_calls().size(), 1u);
}

TEST_F(OAuthRefreshTest, WithoutATokenEndpointTheTokenIsSentAsItIsAndTheProfileFailsOver) {
  start(wall_now_ms() - 60'000, "none");
  auto frames = chat_turn(*client_, "main", "hello", "run-1");
  ASSERT_EQ(terminal_of(frames)["state"], "final");
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"qqqq", "bbbb"}));
  EXPECT_EQ(token_calls().size(), 0u);
  auto switches = fallbacks_in(frames);
  ASSERT_EQ(switches.size(), 1u);
  EXPECT_EQ(switches[0]["fromProfile"], "mock:me@example.com");
}

TEST_F(OAuthRefreshTest, TokensThatCannotBeSavedAreKeptInMemoryAndSavedAtTheNextUse) {
  start(wall_now_ms() - 60'000);
  // Every write of auth-profiles.json fails while its lock is a directory (even for root).
  const std::filesystem::path lock = home_.path() / "agents/main/agent/auth-profiles.json.lock";
  std::filesystem::remove(lock);
  std::filesystem::create_directory(lock);
  ASSERT_EQ(terminal_of(chat_turn(*client_, "main", "hello", "run-1"))["state"], "final");
  EXPECT_EQ(profiles_file()["profiles"]["mock:me@example.com"]["access"], kOldAccess) << "not saved";
  // The provider rotated the refresh token: the file's one is spent. The next turn uses the tokens
  // kept in memory instead of refreshing (or failing over) again.
  ASSERT_EQ(terminal_of(chat_turn(*client_, "main", "again", "run-2"))["state"], "final");
  EXPECT_EQ(key_suffixes(), (std::vector<std::string>{"nnnn", "nnnn"}));
  EXPECT_EQ(token_calls().size(), 1u);
  EXPECT_NE(gateway_->process().err().find("could not be saved"), std::string::npos);
  // Writable again: the next use saves them.
  std::filesystem::remove(lock);
  ASSERT_EQ(terminal_of(chat_turn(*client_, "main", "third", "run-3"))["state"], "final");
  const json profile = profiles_file()["profiles"]["mock:me@example.com"];
  EXPECT_EQ(profile["access"], kNewAccess);
  EXPECT_EQ(profile["refresh"], kNewRefresh);
  EXPECT_EQ(token_calls().size(), 1u);
  expect_no_token_leaked();
}

/// The refresh lock file of (provider, profile id) as llm/auth/oauth_refresh_lock.h documents it:
/// <state>/locks/oauth/<provider>-<FNV-1a 64 of the profile id, 16 hex digits>.lock.
std::filesystem::path refresh_lock_path(const std::filesystem::path& home, const std::string& provider,
                                        const std::string& profile_id) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : profile_id) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return home / "locks" / "oauth" / (provider + "-" + hex + ".lock");
}

TEST_F(OAuthRefreshTest, AnotherProcessHoldingTheRefreshLockIsWaitedForAndItsTokensUsed) {
  start(wall_now_ms() - 60'000);
  // This test process is "another Pincer process" refreshing the profile: it holds the lock.
  const auto lock_path = refresh_lock_path(home_.path(), "mock", "mock:me@example.com");
  std::filesystem::create_directories(lock_path.parent_path());
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "hello"}, {"idempotencyKey", "run-1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  bool waiting = false;
  for (int i = 0; i < 300 && !waiting; ++i) {  // up to 30 s for the gateway to find the lock held
    waiting = gateway_->process().err().find("another process is refreshing it; waiting for its lock") != std::string::npos;
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(waiting) << gateway_->process().err();
  // The other process stores its refreshed tokens, then lets go of the lock.
  json file = profiles_file();
  file["profiles"]["mock:me@example.com"]["access"] = kNewAccess;
  file["profiles"]["mock:me@example.com"]["refresh"] = kNewRefresh;
  file["profiles"]["mock:me@example.com"]["expires"] = wall_now_ms() + 3'600'000;
  home_.write("agents/main/agent/auth-profiles.json", file.dump(2));
  ::close(fd);
  std::vector<json> frames;
  for (int i = 0; i < 2000; ++i) {
    auto f = client_->events().empty() ? client_->recv(std::chrono::seconds(30)) : std::optional<json>(client_->events().front());
    if (!client_->events().empty()) client_->events().pop_front();
    ASSERT_TRUE(f) << "no frame";
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] != "delta") {
      EXPECT_EQ((*f)["payload"]["state"], "final") << f->dump();
      break;
    }
  }
  EXPECT_EQ(token_calls().size(), 0u) << "the other process's refresh was used, the endpoint not called";
  EXPECT_EQ(key_suffixes(), std::vector<std::string>{"nnnn"}) << "the call carried the other process's access token";
  expect_no_token_leaked();
}

}  // namespace
}  // namespace oauth_refresh_test
}  // namespace pincer::test
