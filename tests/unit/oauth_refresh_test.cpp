// OAuth refresh, the pure part (PV-2): OpenClaw's token endpoints, when to refresh, the
// refresh_token request of RFC 6749 §6 and the answers (new tokens, invalid_grant, other failures).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/auth/oauth_refresh.h"

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

}  // namespace
}  // namespace oauth_refresh_test
}  // namespace pincer
