// A session's pinned auth profile (PV-3): OpenClaw's `model@profile` split and the checks of the
// profile against the agent's auth profiles.
#include <gtest/gtest.h>

#include "agent/auth_profile_pin.h"

namespace pincer {
namespace auth_profile_pin_test {
namespace {

using agent::split_model_profile;
using nlohmann::json;

TEST(AuthProfilePinTest, SplitsTheProfileAfterTheLastSlashAsOpenClawDoes) {
  auto r = split_model_profile(" openai/gpt-4.1@openai:work ");
  EXPECT_EQ(r.model, "openai/gpt-4.1");
  EXPECT_EQ(r.profile, "openai:work");
  r = split_model_profile("openai/gpt-4.1");
  EXPECT_EQ(r.model, "openai/gpt-4.1");
  EXPECT_EQ(r.profile, "");
  // A date or a quantisation suffix is part of the model's name.
  EXPECT_EQ(split_model_profile("anthropic/claude@20250101").profile, "");
  r = split_model_profile("anthropic/claude@20250101@anthropic:me");
  EXPECT_EQ(r.model, "anthropic/claude@20250101");
  EXPECT_EQ(r.profile, "anthropic:me");
  EXPECT_EQ(split_model_profile("ollama/llama3@q4_k_m").profile, "");
  EXPECT_EQ(split_model_profile("ollama/llama3@8bit").profile, "");
  r = split_model_profile("ollama/llama3@q4_k_m@ollama:box");
  EXPECT_EQ(r.model, "ollama/llama3@q4_k_m");
  EXPECT_EQ(r.profile, "ollama:box");
  // An '@' in a provider segment (before the last '/') is not a profile; a bare '@' neither.
  EXPECT_EQ(split_model_profile("me@host/model").profile, "");
  EXPECT_EQ(split_model_profile("openai/gpt@").profile, "");
  EXPECT_EQ(split_model_profile("@x").profile, "");
}

TEST(AuthProfilePinTest, UnknownAndForeignProfilesAreRefusedNamingTheKnownOnes) {
  auto doc = llm::auth::AuthProfiles::from_json(
      json{{"profiles",
            {{"openai:work", {{"type", "api_key"}, {"provider", "openai"}, {"key", "k1"}}},
             {"openai:home", {{"type", "api_key"}, {"provider", "openai"}, {"key", "k2"}}},
             {"anthropic:me", {{"type", "api_key"}, {"provider", "anthropic"}, {"key", "k3"}}}}}});
  ASSERT_TRUE(doc);
  EXPECT_TRUE(agent::check_pinnable_profile(*doc, "openai:home", "OpenAI"));
  auto unknown = agent::check_pinnable_profile(*doc, "openai:nope", "openai");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "INVALID_REQUEST");
  EXPECT_NE(unknown.error().message.find("\"openai:nope\" not found"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("openai:work"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("openai:home"), std::string::npos) << unknown.error().message;
  EXPECT_EQ(unknown.error().message.find("anthropic:me"), std::string::npos) << "only the provider's";
  auto foreign = agent::check_pinnable_profile(*doc, "anthropic:me", "openai");
  ASSERT_FALSE(foreign);
  EXPECT_NE(foreign.error().message.find("is for anthropic, not openai"), std::string::npos) << foreign.error().message;
  auto none = agent::check_pinnable_profile(*doc, "x:y", "google");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("provider google has no auth profiles"), std::string::npos) << none.error().message;
}

}  // namespace
}  // namespace auth_profile_pin_test
}  // namespace pincer
