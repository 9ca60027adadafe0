// OAuth refresh, the pure part (PV-2): OpenClaw's token endpoints, when to refresh, the
// refresh_token request of RFC 6749 §6 and the answers (new tokens, invalid_grant, other failures).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "agent/model_failover.h"
#include "llm/auth/auth_profile_file.h"

#include "llm/auth/auth_profiles.h"
#include "llm/auth/oauth_refresh.h"
#include "llm/auth/oauth_refresh_lock.h"

namespace pincer {
namespace oauth_refresh_test {
namespace {

using namespace llm::auth;
constexpr int64_t kNow = 1'800'000'000'000;

TEST(OAuthRefreshTest, BuiltInEndpointsAndWhenToRefresh) {
  auto openai = builtin_oauth_endpoint("OpenAI");
  ASSERT_TRUE(openai);
  EXPECT_EQ(openai->token_url, "https://auth.openai.com/oauth/token");
  EXPECT_EQ(openai->format, TokenBodyFormat::Form);
  ASSERT_TRUE(builtin_oauth_endpoint("openai-codex"));
  auto anthropic = builtin_oauth_endpoint("anthropic");
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->format, TokenBodyFormat::Json);
  EXPECT_FALSE(builtin_oauth_endpoint("mock"));

  Credential c;
  c.type = CredentialType::OAuth;
  c.secret = "access";
  c.refresh = "refresh";
  c.expires_ms = kNow + kRefreshMarginMs + 1;
  EXPECT_FALSE(needs_refresh(c, kNow));
  c.expires_ms = kNow + kRefreshMarginMs;
  EXPECT_TRUE(needs_refresh(c, kNow)) << "within the margin";
  c.refresh.clear();
  EXPECT_FALSE(needs_refresh(c, kNow)) << "nothing to refresh with";
}

TEST(OAuthRefreshTest, TheRequestIsFormEncodedOrJsonPerProvider) {
  OAuthEndpoint form{"http://127.0.0.1:1/token", "client id", TokenBodyFormat::Form};
  auto r = refresh_request(form, "a+b/c=d");
  EXPECT_EQ(r.content_type, "application/x-www-form-urlencoded");
  EXPECT_EQ(r.body, "grant_type=refresh_token&refresh_token=a%2Bb%2Fc%3Dd&client_id=client%20id");
  OAuthEndpoint json_endpoint{"http://127.0.0.1:1/token", "cid", TokenBodyFormat::Json};
  r = refresh_request(json_endpoint, "rt");
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(r.body),
            (nlohmann::json{{"grant_type", "refresh_token"}, {"client_id", "cid"}, {"refresh_token", "rt"}}));
}

TEST(OAuthRefreshTest, AnswersGiveNewTokensOrSayWhetherTheGrantIsGone) {
  auto ok = parse_refresh_response(200, R"({"access_token":"new-a","refresh_token":"new-r","expires_in":3600})", kNow, "old-r");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->access, "new-a");
  EXPECT_EQ(ok->refresh, "new-r");
  EXPECT_EQ(ok->expires_ms, kNow + 3'600'000);
  auto kept = parse_refresh_response(200, R"({"access_token":"new-a","expires_in":60})", kNow, "old-r");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->refresh, "old-r") << "no new refresh token: the old one stays";

  auto gone = parse_refresh_response(400, R"({"error":"invalid_grant","error_description":"revoked"})", kNow, "old-r");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, "OAUTH_INVALID_GRANT");
  auto reused = parse_refresh_response(401, R"({"error":{"code":"refresh_token_reused"}})", kNow, "old-r");
  ASSERT_FALSE(reused);
  EXPECT_EQ(reused.error().code, "OAUTH_INVALID_GRANT");
  auto down = parse_refresh_response(503, "<html>busy</html>", kNow, "old-r");
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().code, "OAUTH_REFRESH_FAILED");
  auto partial = parse_refresh_response(200, R"({"access_token":"x"})", kNow, "old-r");
  ASSERT_FALSE(partial);
  EXPECT_EQ(partial.error().code, "OAUTH_REFRESH_FAILED");
  auto injected = parse_refresh_response(200, "{\"access_token\":\"a\\r\\nX: y\",\"expires_in\":60}", kNow, "r");
  ASSERT_FALSE(injected) << "a token with a line break would inject headers";
  for (const auto* e : {&gone, &reused, &down, &partial}) {
    EXPECT_EQ(e->error().message.find("old-r"), std::string::npos) << "no token in messages";
  }
}

TEST(OAuthRefreshTest, ConfiguredEndpointOverridesApplyOverTheBuiltInOnes) {
  EXPECT_FALSE(oauth_endpoint("mock", "", "", "")) << "no built-in endpoint, none configured";
  auto custom = oauth_endpoint("mock", "http://127.0.0.1:9/oauth/token", "", "");
  ASSERT_TRUE(custom);
  EXPECT_EQ(custom->token_url, "http://127.0.0.1:9/oauth/token");
  EXPECT_EQ(custom->format, TokenBodyFormat::Form);
  EXPECT_EQ(custom->client_id, "");
  EXPECT_EQ(refresh_request(*custom, "rt").body, "grant_type=refresh_token&refresh_token=rt") << "no empty client_id";
  auto anthropic = oauth_endpoint("anthropic", "http://127.0.0.1:9/t", "", "");
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->token_url, "http://127.0.0.1:9/t");
  EXPECT_EQ(anthropic->client_id, builtin_oauth_endpoint("anthropic")->client_id) << "the built-in client id is kept";
  EXPECT_EQ(anthropic->format, TokenBodyFormat::Json);
  auto as_form = oauth_endpoint("anthropic", "", "mine", "form");
  ASSERT_TRUE(as_form);
  EXPECT_EQ(as_form->token_url, builtin_oauth_endpoint("anthropic")->token_url);
  EXPECT_EQ(as_form->client_id, "mine");
  EXPECT_EQ(as_form->format, TokenBodyFormat::Form);
  EXPECT_EQ(oauth_endpoint("xai", "", "", "json")->format, TokenBodyFormat::Json);
}

TEST(OAuthRefreshTest, RefreshableProfilesStayUsableAndTakeNewTokensInPlace) {
  nlohmann::json doc = {{"version", 1},
                        {"profiles",
                         {{"o", {{"type", "oauth"}, {"provider", "p"}, {"access", "a1"}, {"refresh", "r1"}, {"expires", kNow - 1},
                                 {"email", "me@example.com"}, {"custom", 7}}},
                          {"bare", {{"type", "oauth"}, {"provider", "p"}, {"access", "a"}, {"expires", kNow - 1}}},
                          {"k", {{"type", "api_key"}, {"provider", "p"}, {"key", "k1"}}}}},
                        {"usageStats", {{"o", {{"lastUsed", kNow - 5}, {"errorCount", 1}}}}}};
  auto parsed = AuthProfiles::from_json(doc);
  ASSERT_TRUE(parsed);
  AuthProfiles p = *parsed;
  EXPECT_TRUE(p.usable("o", kNow)) << "an expired access token with a refresh token is refreshed, not skipped";
  EXPECT_FALSE(p.usable("bare", kNow)) << "without a refresh token it is expired";
  EXPECT_EQ(p.order("p", kNow), (std::vector<std::string>{"o", "k", "bare"}));

  ASSERT_TRUE(p.set_oauth_tokens("o", "a2", "r2", kNow + 3'600'000));
  const Credential* c = p.find("o");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->secret, "a2");
  EXPECT_EQ(c->refresh, "r2");
  EXPECT_EQ(c->expires_ms, kNow + 3'600'000);
  const nlohmann::json out = p.to_json();
  EXPECT_EQ(out["profiles"]["o"]["email"], "me@example.com");
  EXPECT_EQ(out["profiles"]["o"]["custom"], 7) << "unknown members are kept";
  EXPECT_EQ(out["usageStats"]["o"]["lastUsed"], kNow - 5) << "a refresh keeps the usage stats";
  ASSERT_TRUE(p.set_oauth_tokens("o", "a3", "", kNow + 1));
  EXPECT_EQ(p.find("o")->refresh, "r2") << "no new refresh token: the old one stays";
  EXPECT_FALSE(p.set_oauth_tokens("k", "x", "y", 1)) << "not an oauth profile";
  EXPECT_FALSE(p.set_oauth_tokens("missing", "x", "y", 1));
}

TEST(OAuthRefreshTest, TheFailoverChainMarksRefreshableProfilesAndTakesRefreshedTokens) {
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-oauth-chain-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "auth-profiles.json";
  std::ofstream(path) << nlohmann::json{
      {"version", 1},
      {"profiles",
       {{"p:o", {{"type", "oauth"}, {"provider", "p"}, {"access", "access-1"}, {"refresh", "refresh-1"}, {"expires", kNow - 1}}},
        {"p:bare", {{"type", "oauth"}, {"provider", "p"}, {"access", "access-b"}, {"expires", kNow + 3'600'000}}},
        {"p:k", {{"type", "api_key"}, {"provider", "p"}, {"key", "key-k"}}}}}}
                             .dump();
  llm::ModelSpec m1;
  m1.provider = "p";
  m1.id = "m1";
  llm::ModelSpec m2 = m1;
  m2.id = "m2";
  agent::ModelFailover chain({m1, m2}, std::make_shared<AuthProfileFile>(path), kNow);
  int oauth_candidates = 0;
  for (const auto& c : chain.chain()) {
    if (c.profile_id == "p:o") {
      ++oauth_candidates;
      EXPECT_TRUE(c.oauth);
      EXPECT_EQ(c.expires_ms, kNow - 1);
      EXPECT_FALSE(c.probe) << "an expired but refreshable token is a usable candidate";
    }
    if (c.profile_id == "p:bare" || c.profile_id == "p:k") {
      EXPECT_FALSE(c.oauth) << c.profile_id << ": nothing to refresh with";
    }
  }
  EXPECT_EQ(oauth_candidates, 2) << "one per model";
  EXPECT_NE(chain.current().profile_id, "p:k") << "oauth profiles first (PV-3)";
  chain.refreshed("p:o", "access-2", kNow + 3'600'000);
  for (const auto& c : chain.chain()) {
    if (c.profile_id != "p:o") continue;
    EXPECT_EQ(c.model.api_key, "access-2") << "every model using the profile sends the new token";
    EXPECT_EQ(c.expires_ms, kNow + 3'600'000);
  }
  std::filesystem::remove_all(dir);
}

TEST(OAuthRefreshLockTest, OneHolderAtATimeAndTheFileNamedByProviderAndProfile) {
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-oauth-lock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto path = OAuthRefreshLock::path_for(dir / "locks" / "oauth", "openai-codex", "openai-codex:me@example.com");
  EXPECT_EQ(path.parent_path(), dir / "locks" / "oauth");
  EXPECT_EQ(path.filename().string().rfind("openai-codex-", 0), 0u) << path;
  EXPECT_EQ(path.filename().string().size(), std::string("openai-codex-").size() + 16 + 5) << path;
  EXPECT_NE(path, OAuthRefreshLock::path_for(dir, "openai-codex", "openai-codex:other@example.com"));
  EXPECT_EQ(OAuthRefreshLock::path_for(dir, "a/b c", "x").filename().string().rfind("a_b_c-", 0), 0u);

  {
    auto first = OAuthRefreshLock::try_acquire(path);
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_TRUE(std::holds_alternative<OAuthRefreshLock>(*first)) << "created with its directories";
    // flock(2) locks belong to the open file: a second open, even in this process, is refused.
    auto second = OAuthRefreshLock::try_acquire(path);
    ASSERT_TRUE(second);
    EXPECT_TRUE(std::holds_alternative<OAuthRefreshLock::Busy>(*second));
  }  // the first one released
  auto third = OAuthRefreshLock::try_acquire(path);
  ASSERT_TRUE(third);
  EXPECT_TRUE(std::holds_alternative<OAuthRefreshLock>(*third));
  // A lock directory that cannot exist is an error naming the file.
  auto bad = OAuthRefreshLock::try_acquire("/proc/self/no-such-dir/x.lock");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/proc/self/no-such-dir/x.lock"), std::string::npos) << bad.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace oauth_refresh_test
}  // namespace pincer
