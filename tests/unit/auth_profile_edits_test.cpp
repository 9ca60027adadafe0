// The operator's edits of auth profiles shared by `pincer models auth` and the gateway's
// models.auth* methods (llm/auth/auth_profile_edits): secrets cleaned and checked, OpenClaw's
// choice of profile id for a new API key, removal and order checks that leave the file as it is
// on error.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <stdlib.h>

#include <gtest/gtest.h>

#include "core/redact.h"
#include "llm/auth/auth_profile_edits.h"

namespace pincer {
namespace auth_profile_edits_test {
namespace {

using namespace llm::auth;
namespace fs = std::filesystem;

constexpr int64_t kNow = 1'800'000'000'000;

/// A fresh directory under /tmp, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string t = (fs::temp_directory_path() / "pincer-auth-edits-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AuthProfileEdits, SecretsAreCleanedAndCheckedNamingTheField) {
  EXPECT_EQ(*clean_secret(" key-0123456789\r\n", "apiKey"), "key-0123456789");
  EXPECT_EQ(*clean_secret("key-01\xE2\x80\xA8" "23456789", "apiKey"), "key-0123456789");
  EXPECT_EQ(clean_secret(" \n", "apiKey").error().message, "apiKey is empty");
  auto tab = clean_secret("a\tb", "apiKey");
  ASSERT_FALSE(tab);
  EXPECT_EQ(tab.error().code, "INVALID_INPUT");
  EXPECT_NE(tab.error().message.find("apiKey contains a control character"), std::string::npos);
  EXPECT_EQ(*normalize_provider(" OpenRouter ", "provider"), "openrouter");
  EXPECT_FALSE(normalize_provider("a/b", "provider"));
}

TEST(AuthProfileEdits, AnApiKeyGoesToTheProvidersFirstKeyProfileElseANewManualOne) {
  ScratchDir dir;
  AuthProfileFile file(dir.path() / "auth-profiles.json");
  auto first = save_api_key(file, "Mock", "FirstKey0123456789", kNow);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->provider, "mock");
  EXPECT_EQ(first->profile_id, "mock:manual");
  EXPECT_FALSE(first->replaced);
  EXPECT_EQ(redact::apply("x FirstKey0123456789 y"), "x *** y") << "registered for log redaction";

  // With key profiles already there, the first in the order takes the key.
  Credential c{"mock:work", "mock", CredentialType::ApiKey, "WorkKey0123456789", "", 0, ""};
  ASSERT_TRUE(put_credential(file, c));
  ASSERT_TRUE(set_provider_order(file, "mock", {"mock:work", "mock:manual"}, true));
  auto second = save_api_key(file, "mock", "SecondKey0123456789", kNow);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->profile_id, "mock:work");
  EXPECT_TRUE(second->replaced);
  EXPECT_EQ(file.load()->find("mock:work")->secret, "SecondKey0123456789");

  // A token in <provider>:manual is not overwritten by a key.
  Credential token{"tok:manual", "tok", CredentialType::Token, "TokenValue0123456789", "", 0, ""};
  ASSERT_TRUE(put_credential(file, token));
  auto conflict = save_api_key(file, "tok", "KeyForTok0123456789", kNow);
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code, "AUTH_PROFILE_CONFLICT");
  EXPECT_EQ(file.load()->find("tok:manual")->secret, "TokenValue0123456789");

  auto openai = save_api_key(file, "openai", "eyJhbGciOiJIUzI1NiJ9", kNow);
  ASSERT_FALSE(openai);
  EXPECT_EQ(openai.error().message, "apiKey does not look like an OpenAI API key (sk-…)");
  EXPECT_TRUE(save_api_key(file, "openai", "sk-abcdefgh12345", kNow));
}

TEST(AuthProfileEdits, RefusedEditsLeaveTheFileAsItIs) {
  ScratchDir dir;
  AuthProfileFile file(dir.path() / "auth-profiles.json");
  // Nothing to remove: no file is created.
  auto none = remove_profiles(file, {.provider = "mock", .ids = std::nullopt, .api_keys_only = false});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto unknown = remove_profiles(file, {.provider = "mock", .ids = std::vector<std::string>{"mock:x"}, .api_keys_only = false});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "no auth profile \"mock:x\" of provider mock");
  EXPECT_FALSE(fs::exists(file.path()));

  ASSERT_TRUE(put_credential(file, {"mock:a", "mock", CredentialType::ApiKey, "KeyA0123456789", "", 0, ""}));
  ASSERT_TRUE(put_credential(file, {"mock:b", "mock", CredentialType::Token, "TokB0123456789", "", 0, ""}));
  ASSERT_TRUE(put_credential(file, {"other:c", "other", CredentialType::ApiKey, "KeyC0123456789", "", 0, ""}));
  const std::string before = slurp(file.path());
  auto partial = set_provider_order(file, "mock", {"mock:b"}, true);
  ASSERT_FALSE(partial);
  EXPECT_EQ(partial.error().message, "the order must name every profile of provider mock; missing \"mock:a\"");
  EXPECT_TRUE(set_provider_order(file, "mock", {"mock:b"}, false)) << "the CLI may name a subset";
  auto twice = set_provider_order(file, "mock", {"mock:a", "mock:a"}, false);
  EXPECT_EQ(twice.error().message, "profile id \"mock:a\" is given twice");
  auto foreign = set_provider_order(file, "mock", {"other:c"}, false);
  EXPECT_EQ(foreign.error().code, "AUTH_PROFILE_UNKNOWN");
  auto wrong_provider = remove_profiles(file, {.provider = "mock", .ids = std::vector<std::string>{"other:c"}, .api_keys_only = false});
  EXPECT_FALSE(wrong_provider);
  EXPECT_NE(slurp(file.path()), before);  // the subset order above was written
  const std::string after_order = slurp(file.path());

  // Only the provider's API keys; then the rest.
  auto keys = remove_profiles(file, {.provider = "MOCK", .ids = std::nullopt, .api_keys_only = true});
  ASSERT_TRUE(keys);
  EXPECT_EQ(*keys, (std::vector<std::string>{"mock:a"}));
  auto rest = remove_profiles(file, {.provider = "mock", .ids = std::nullopt, .api_keys_only = false});
  EXPECT_EQ(*rest, (std::vector<std::string>{"mock:b"}));
  EXPECT_NE(file.load()->find("other:c"), nullptr);
  EXPECT_NE(slurp(file.path()), after_order);
}

TEST(AuthProfileEdits, ABrokenProfileCanBeRemovedByItsId) {
  ScratchDir dir;
  { std::ofstream(dir.path() / "auth-profiles.json") << R"({"version": 1, "profiles": {"bad:x": {"type": "weird", "provider": "bad"}}})"; }
  AuthProfileFile file(dir.path() / "auth-profiles.json");
  ASSERT_EQ(file.load()->warnings().size(), 1u);
  auto of_provider = remove_profiles(file, {.provider = "bad", .ids = std::vector<std::string>{"bad:x"}, .api_keys_only = false});
  EXPECT_FALSE(of_provider) << "a provider's profiles are the usable ones";
  auto removed = remove_profiles(file, {.provider = "", .ids = std::vector<std::string>{"bad:x"}, .api_keys_only = false});
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, (std::vector<std::string>{"bad:x"}));
  EXPECT_TRUE(file.load()->warnings().empty());
}

}  // namespace
}  // namespace auth_profile_edits_test
}  // namespace pincer
