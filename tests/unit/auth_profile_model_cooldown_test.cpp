// Per-model cooldowns within an auth profile (PV-2, OpenClaw's usageStats.cooldownModel): a rate
// limit on one model leaves the profile usable for its other models; the file keeps OpenClaw's shape.
#include <filesystem>
#include <fstream>

#include <stdlib.h>

#include <gtest/gtest.h>

#include "agent/model_failover.h"
#include "llm/auth/auth_profile_file.h"
#include "llm/auth/auth_profiles.h"

namespace pincer {
namespace auth_profile_model_cooldown_test {
namespace {

using nlohmann::json;
using llm::FailoverReason;
using llm::auth::AuthProfiles;

constexpr int64_t kNow = 1'800'000'000'000;

json one_key_doc() {
  return {{"version", 1}, {"profiles", {{"p:a", {{"type", "api_key"}, {"provider", "p"}, {"key", "ka"}}}}}};
}

AuthProfiles parse(const json& doc) {
  auto p = AuthProfiles::from_json(doc);
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return p ? *p : AuthProfiles{};
}

TEST(AuthProfileModelCooldownTest, ARateLimitCoolsOnlyTheModelThatFailed) {
  AuthProfiles p = parse(one_key_doc());
  ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow, "m1"));
  EXPECT_FALSE(p.usable("p:a", kNow, "m1"));
  EXPECT_TRUE(p.usable("p:a", kNow, "m2")) << "another model of the same profile";
  EXPECT_FALSE(p.usable("p:a", kNow)) << "asked without a model: conservative";
  EXPECT_EQ(p.stats("p:a").cooldown_model, "m1");
  EXPECT_EQ(p.to_json()["usageStats"]["p:a"]["cooldownModel"], "m1") << "OpenClaw's member name";
  EXPECT_EQ(p.stats("p:a").unusable_until("m2"), 0);
  EXPECT_EQ(p.stats("p:a").unusable_until("m1"), kNow + 30'000);
  EXPECT_EQ(p.order("p", kNow, {}, "m2"), std::vector<std::string>{"p:a"});
  // A success on m2 leaves m1's cooldown running; one on m1 (or unknown) clears it.
  p.mark_good("p:a", kNow + 1, "m2");
  EXPECT_FALSE(p.usable("p:a", kNow + 1, "m1"));
  EXPECT_EQ(p.stats("p:a").error_count, 1);
  p.mark_good("p:a", kNow + 1, "m1");
  EXPECT_TRUE(p.usable("p:a", kNow + 1, "m1"));
  ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow, "m1"));

  // The same model again: still scoped to it.
  ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow + 1, "m1"));
  EXPECT_EQ(p.stats("p:a").cooldown_model, "m1");
  // Another model while the cooldown runs: the whole profile (OpenClaw widens it the same way).
  ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow + 2, "m2"));
  EXPECT_EQ(p.stats("p:a").cooldown_model, "");
  EXPECT_FALSE(p.usable("p:a", kNow + 2, "m3"));
  EXPECT_FALSE(p.to_json()["usageStats"]["p:a"].contains("cooldownModel"));
}

TEST(AuthProfileModelCooldownTest, OtherReasonsAndUnknownModelsCoverEveryModel) {
  {
    AuthProfiles p = parse(one_key_doc());
    ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::Auth, kNow, "m1"));
    EXPECT_EQ(p.stats("p:a").cooldown_model, "") << "auth says something about the key, not the model";
    EXPECT_FALSE(p.usable("p:a", kNow, "m2"));
  }
  {
    AuthProfiles p = parse(one_key_doc());
    ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow));
    EXPECT_FALSE(p.usable("p:a", kNow, "m2")) << "no model id: the profile's cooldown";
  }
  {
    AuthProfiles p = parse(one_key_doc());
    ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::RateLimit, kNow, "m1"));
    ASSERT_TRUE(p.mark_failure("p:a", FailoverReason::Billing, kNow, "m1"));
    EXPECT_FALSE(p.usable("p:a", kNow, "m2")) << "a billing disable blocks every model";
    p.mark_good("p:a", kNow + 1);
    EXPECT_FALSE(p.to_json()["usageStats"]["p:a"].contains("cooldownModel")) << "a success clears it";
  }
  {
    // A file written by OpenClaw: a timeout cooldown limited to one model.
    json doc = one_key_doc();
    doc["usageStats"] = {{"p:a", {{"cooldownUntil", kNow + 5000}, {"cooldownReason", "timeout"}, {"cooldownModel", "m1"}}}};
    AuthProfiles p = parse(doc);
    EXPECT_TRUE(p.usable("p:a", kNow, "m2"));
    EXPECT_FALSE(p.usable("p:a", kNow, "m1"));
    // cooldownModel with a reason that is not model-scoped is the whole profile's (as OpenClaw reads it).
    doc["usageStats"]["p:a"]["cooldownReason"] = "auth";
    EXPECT_FALSE(parse(doc).usable("p:a", kNow, "m2"));
  }
}

llm::ModelSpec model(const std::string& provider, const std::string& id) {
  llm::ModelSpec m;
  m.provider = provider;
  m.id = id;
  m.api = "openai-completions";
  return m;
}

struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    std::string t = (std::filesystem::temp_directory_path() / "pincer-auth-model-XXXXXX").string();
    dir = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

TEST(AuthProfileModelCooldownTest, TheRunFallsBackToAnotherModelOfTheSameRateLimitedProfile) {
  Scratch s;
  const auto path = s.dir / "auth-profiles.json";
  std::ofstream(path) << one_key_doc().dump();
  auto file = std::make_shared<llm::auth::AuthProfileFile>(path);
  llm::ProviderFailure rate;
  rate.reason = FailoverReason::RateLimit;
  rate.retryable = true;
  rate.message = "429";
  {
    agent::ModelFailover f({model("p", "m1"), model("p", "m2")}, file, kNow);
    ASSERT_EQ(f.current().label(), "p/m1 (profile p:a)");
    EXPECT_EQ(f.on_failure(rate, 1, 3, kNow), agent::ModelFailover::Action::Switch);
    EXPECT_EQ(f.current().label(), "p/m2 (profile p:a)") << "the profile is rate-limited for m1 only";
  }
  auto doc = file->load();
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->stats("p:a").cooldown_model, "m1");
  // The next run on m2 starts on the profile at once; one on m1 falls back to m2 and says why.
  agent::ModelFailover on_m2({model("p", "m2")}, file, kNow + 1);
  EXPECT_FALSE(on_m2.current().probe);
  agent::ModelFailover on_m1({model("p", "m1"), model("p", "m2")}, file, kNow + 1);
  EXPECT_EQ(on_m1.current().ref(), "p/m2");
}

}  // namespace
}  // namespace auth_profile_model_cooldown_test
}  // namespace pincer
