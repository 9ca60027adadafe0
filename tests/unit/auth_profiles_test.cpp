// Auth profiles (PV-2, PV-3) and the per-run failover chain (PV-5): the order, the cooldown
// arithmetic against hand-computed values, the file round trip, and each failover decision.
#include <filesystem>
#include <fstream>

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "agent/model_failover.h"
#include "cli/doctor.h"
#include "core/config.h"
#include "llm/auth/auth_profile_file.h"
#include "llm/auth/auth_profiles.h"

namespace pincer {
namespace auth_profiles_test {
namespace {

using nlohmann::json;
using llm::FailoverReason;
using llm::auth::AuthProfiles;

constexpr int64_t kNow = 1'800'000'000'000;

/// A fresh directory under /tmp, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "pincer-auth-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

json doc_with(std::initializer_list<std::pair<const char*, json>> profiles) {
  json p = json::object();
  for (const auto& [id, v] : profiles) p[id] = v;
  return {{"version", 1}, {"profiles", p}};
}
json key(const char* provider, const char* secret) { return {{"type", "api_key"}, {"provider", provider}, {"key", secret}}; }

AuthProfiles parse(const json& doc) {
  auto p = AuthProfiles::from_json(doc);
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return p ? *p : AuthProfiles{};
}

TEST(AuthProfilesTest, CooldownAndDisableStepsAreTheDocumentedOnes) {
  EXPECT_EQ(llm::auth::cooldown_ms(1), 30'000);
  EXPECT_EQ(llm::auth::cooldown_ms(2), 60'000);
  EXPECT_EQ(llm::auth::cooldown_ms(3), 300'000);
  EXPECT_EQ(llm::auth::cooldown_ms(4), 1'500'000);
  EXPECT_EQ(llm::auth::cooldown_ms(5), 3'600'000);
  EXPECT_EQ(llm::auth::cooldown_ms(40), 3'600'000);
  EXPECT_EQ(llm::auth::disable_ms(1), 5 * 3'600'000LL);
  EXPECT_EQ(llm::auth::disable_ms(2), 10 * 3'600'000LL);
  EXPECT_EQ(llm::auth::disable_ms(3), 20 * 3'600'000LL);
  EXPECT_EQ(llm::auth::disable_ms(4), 24 * 3'600'000LL);
}

TEST(AuthProfilesTest, OrderIsExplicitThenTypeThenLeastRecentlyUsedWithCoolingLast) {
  json doc = doc_with({{"openai:key1", key("openai", "k1")},
                       {"openai:key2", key("openai", "k2")},
                       {"openai:tok", {{"type", "token"}, {"provider", "openai"}, {"token", "t"}}},
                       {"openai:oauth", {{"type", "oauth"}, {"provider", "OpenAI"}, {"access", "a"}, {"refresh", "r"}}},
                       {"anthropic:x", key("anthropic", "x")}});
  doc["usageStats"] = {{"openai:key1", {{"lastUsed", kNow - 10}}}, {"openai:key2", {{"lastUsed", kNow - 1000}}}};
  AuthProfiles p = parse(doc);
  EXPECT_EQ(p.order("openai", kNow), (std::vector<std::string>{"openai:oauth", "openai:tok", "openai:key2", "openai:key1"}));
  p.set_order("openai", {"openai:key1"});
  EXPECT_EQ(p.order("openai", kNow).front(), "openai:key1");
  EXPECT_EQ(p.order("openai", kNow, "openai:tok").front(), "openai:tok") << "a session's pinned profile first";
  ASSERT_TRUE(p.mark_failure("openai:key1", FailoverReason::RateLimit, kNow));
  ASSERT_TRUE(p.mark_failure("openai:oauth", FailoverReason::Billing, kNow));
  EXPECT_EQ(p.order("openai", kNow), (std::vector<std::string>{"openai:tok", "openai:key2", "openai:key1", "openai:oauth"}))
      << "cooling profiles last, soonest available first";
  EXPECT_EQ(p.order("openai", kNow + 30'001).front(), "openai:key1") << "back in its place once the cooldown ends";
}

TEST(AuthProfilesTest, FailuresCountUpAndASuccessClearsThem) {
  AuthProfiles p = parse(doc_with({{"a", key("p", "k")}}));
  p.mark_failure("a", FailoverReason::RateLimit, kNow);
  p.mark_failure("a", FailoverReason::Overloaded, kNow + 1);
  llm::auth::UsageStats s = p.stats("a");
  EXPECT_EQ(s.error_count, 2);
  // A failure inside a running cooldown counts but keeps the window (OpenClaw's
  // keepActiveWindowOrRecompute); the next one after it is the next, longer step.
  EXPECT_EQ(s.cooldown_until, kNow + 30'000);
  EXPECT_EQ(s.cooldown_reason, "overloaded");
  EXPECT_EQ(s.failure_counts["rate_limit"], 1);
  EXPECT_FALSE(p.usable("a", kNow + 20'000));
  p.mark_failure("a", FailoverReason::RateLimit, kNow + 40'000);
  EXPECT_EQ(p.stats("a").cooldown_until, kNow + 40'000 + 5 * 60'000);
  EXPECT_FALSE(p.mark_failure("a", FailoverReason::ContextOverflow, kNow)) << "not the credential's fault";
  p.mark_failure("a", FailoverReason::AuthPermanent, kNow);
  EXPECT_EQ(p.stats("a").disabled_until, kNow + 5 * 3'600'000LL);
  // Two runs failing on the same credential at once (one refresh answered invalid_grant to both)
  // disable it once, not for twice as long.
  p.mark_failure("a", FailoverReason::AuthPermanent, kNow + 5);
  EXPECT_EQ(p.stats("a").disabled_until, kNow + 5 * 3'600'000LL);
  p.mark_good("a", kNow + 2);
  s = p.stats("a");
  EXPECT_EQ(s.error_count, 0);
  EXPECT_EQ(s.unusable_until(), 0);
  EXPECT_EQ(s.last_used, kNow + 2);
  EXPECT_EQ(p.to_json()["lastGood"]["p"], "a");
  // A quiet day resets the counters: the next failure is the first step again.
  p.mark_failure("a", FailoverReason::RateLimit, kNow + 10);
  p.mark_failure("a", FailoverReason::RateLimit, kNow + 10 + llm::auth::kFailureWindowMs + 1);
  EXPECT_EQ(p.stats("a").error_count, 1);
}

TEST(AuthProfilesTest, ExpiredTokensAreUnusableAndBadProfilesAreReported) {
  AuthProfiles p = parse(doc_with({{"t", {{"type", "token"}, {"provider", "p"}, {"token", "x"}, {"expires", kNow - 1}}},
                                   {"nokey", {{"type", "api_key"}, {"provider", "p"}}}}));
  EXPECT_FALSE(p.usable("t", kNow));
  EXPECT_EQ(p.order("p", kNow), std::vector<std::string>{"t"});
  ASSERT_EQ(p.warnings().size(), 1u);
  EXPECT_NE(p.warnings()[0].find("nokey"), std::string::npos);
  // One bad profile is skipped with a warning; the others stay usable (a new-user pass found one
  // unknown type discarding the whole file).
  AuthProfiles mixed = parse(doc_with({{"x", {{"type", "password"}, {"provider", "p"}}},
                                       {"crlf", key("p", "abc\r\nX-Injected: yes")},
                                       {"oauth", {{"type", "oauth"}, {"provider", "p"}, {"access", "a"}, {"expires", kNow - 1}}},
                                       {"ok", key("p", "k")}}));
  ASSERT_EQ(mixed.warnings().size(), 2u);
  // (in key order: crlf, then x)
  EXPECT_NE(mixed.warnings()[0].find("control character"), std::string::npos) << mixed.warnings()[0];
  EXPECT_NE(mixed.warnings()[1].find("type must be api_key, token or oauth"), std::string::npos) << mixed.warnings()[1];
  EXPECT_EQ(mixed.order("p", kNow), (std::vector<std::string>{"ok", "oauth"})) << "an expired OAuth token is not used first";
  EXPECT_FALSE(mixed.usable("oauth", kNow));
  auto bad = AuthProfiles::from_json(json{{"profiles", json::array()}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "AUTH_PROFILES_INVALID");
  // A replaced secret starts without the old one's cooldown.
  mixed.mark_failure("ok", FailoverReason::Billing, kNow);
  EXPECT_FALSE(mixed.usable("ok", kNow));
  mixed.put({"ok", "p", llm::auth::CredentialType::ApiKey, "new-secret", "", 0, ""});
  EXPECT_TRUE(mixed.usable("ok", kNow));
}

TEST(AuthProfilesTest, TheFileRoundTripsUnknownMembersAndIsWrittenPrivately) {
  ScratchDir dir;
  const auto path = dir.path() / "agents/main/agent/auth-profiles.json";
  std::filesystem::create_directories(path.parent_path());
  json doc = doc_with({{"a", key("p", "k")}});
  doc["future"] = {{"x", 1}};
  doc["profiles"]["a"]["metadata"] = {{"account", "42"}};
  std::ofstream(path) << doc.dump();
  llm::auth::AuthProfileFile file(path);
  ASSERT_TRUE(file.mark_failure("a", FailoverReason::RateLimit, kNow));
  json back = json::parse(std::ifstream(path));
  EXPECT_EQ(back["future"]["x"], 1);
  EXPECT_EQ(back["profiles"]["a"]["metadata"]["account"], "42");
  EXPECT_EQ(back["usageStats"]["a"]["cooldownUntil"], kNow + 30'000);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A success after the cooldown clears it in the file.
  ASSERT_TRUE(file.mark_good("a", kNow + 40'000));
  back = json::parse(std::ifstream(path));
  EXPECT_FALSE(back["usageStats"]["a"].contains("cooldownUntil"));
  // Another writer (the CLI) changes the file: the next load sees it.
  back["profiles"]["b"] = key("p", "k2");
  std::ofstream(path) << back.dump();
  auto loaded = file.load();
  ASSERT_TRUE(loaded);
  EXPECT_NE(loaded->find("b"), nullptr);
  // A broken file is an error naming the file, never a crash or an overwrite.
  std::ofstream(path) << "{not json";
  auto broken = file.load();
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("auth-profiles.json"), std::string::npos);
  EXPECT_FALSE(file.mark_failure("b", FailoverReason::RateLimit, kNow));
}

// --- the failover chain ----------------------------------------------------------------------

llm::ModelSpec model(const char* provider, const char* id, const char* api_key = "") {
  llm::ModelSpec m;
  m.provider = provider;
  m.id = id;
  m.api = "openai-completions";
  m.api_key = api_key;
  return m;
}

llm::ProviderFailure failure(FailoverReason reason, bool retryable = false) {
  llm::ProviderFailure f;
  f.reason = reason;
  f.retryable = retryable;
  f.message = std::string(llm::to_string(reason));
  return f;
}

std::shared_ptr<llm::auth::AuthProfileFile> file_with(const ScratchDir& dir, const json& doc) {
  const auto path = dir.path() / "auth-profiles.json";
  std::ofstream(path) << doc.dump();
  return std::make_shared<llm::auth::AuthProfileFile>(path);
}

TEST(ModelFailoverTest, ASwitchKeepsWhatHappenedBesideTheFailoverClass) {
  agent::ModelFailover f({model("p", "m1", "kp"), model("q", "m2", "kq")}, nullptr, kNow);
  const auto refused = llm::classify_transport(f.current().model, ECONNREFUSED, "connect to 127.0.0.1:1: Connection refused", false);
  EXPECT_EQ(f.on_failure(refused, 1, 3, kNow), agent::ModelFailover::Action::Retry);  // as a timeout is
  EXPECT_EQ(f.on_failure(refused, 3, 3, kNow), agent::ModelFailover::Action::Switch);
  ASSERT_EQ(f.switches().size(), 1u);
  EXPECT_EQ(f.switches()[0].reason, "network");  // not "timeout" (OpenClaw's class): nothing answered
  EXPECT_EQ(f.switches()[0].cause, "connection refused (ECONNREFUSED)");
  EXPECT_EQ(f.switches()[0].to_json()["cause"], "connection refused (ECONNREFUSED)");
}

TEST(ModelFailoverTest, RateLimitRotatesProfilesOfTheModelBeforeItsFallback) {
  ScratchDir dir;
  auto file = file_with(dir, doc_with({{"p:a", key("p", "ka")}, {"p:b", key("p", "kb")}}));
  agent::ModelFailover f({model("p", "m1"), model("q", "m2", "kq")}, file, kNow);
  ASSERT_EQ(f.chain().size(), 3u);
  EXPECT_EQ(f.current().profile_id, "p:a");
  EXPECT_EQ(f.current().model.api_key, "ka");
  using A = agent::ModelFailover::Action;
  EXPECT_EQ(f.on_failure(failure(FailoverReason::RateLimit, true), 1, 3, kNow), A::Switch);
  EXPECT_EQ(f.current().profile_id, "p:b");
  EXPECT_EQ(f.on_failure(failure(FailoverReason::RateLimit, true), 1, 3, kNow), A::Switch) << "no other key: the fallback";
  EXPECT_EQ(f.current().ref(), "q/m2");
  EXPECT_EQ(f.current().model.api_key, "kq");
  ASSERT_EQ(f.switches().size(), 2u);
  EXPECT_EQ(f.switches()[1].from_model, "p/m1");
  EXPECT_EQ(f.on_failure(failure(FailoverReason::RateLimit, true), 1, 3, kNow), A::Retry) << "nothing left: back off";
  EXPECT_EQ(f.on_failure(failure(FailoverReason::RateLimit, true), 3, 3, kNow), A::GiveUp);
  EXPECT_EQ(f.on_failure(failure(FailoverReason::Auth), 1, 3, kNow), A::GiveUp);
  auto doc = file->load();
  ASSERT_TRUE(doc);
  EXPECT_GT(doc->stats("p:a").cooldown_until, kNow);
  EXPECT_GT(doc->stats("p:b").cooldown_until, kNow);
}

TEST(ModelFailoverTest, OutagesGoToAnotherModelAndCredentialFailuresSkipTheProfileLater) {
  ScratchDir dir;
  auto file = file_with(dir, doc_with({{"p:a", key("p", "ka")}, {"p:b", key("p", "kb")}}));
  using A = agent::ModelFailover::Action;
  {
    agent::ModelFailover f({model("p", "m1"), model("p", "m2")}, file, kNow);
    EXPECT_EQ(f.on_failure(failure(FailoverReason::Overloaded, true), 1, 3, kNow), A::Retry);
    EXPECT_EQ(f.on_failure(failure(FailoverReason::Overloaded, true), 3, 3, kNow), A::Switch);
    EXPECT_EQ(f.current().ref(), "p/m2") << "the other key of an overloaded provider would not help";
    EXPECT_EQ(f.current().profile_id, "p:a");
  }
  {
    agent::ModelFailover f({model("p", "m1"), model("p", "m2")}, file, kNow);
    EXPECT_EQ(f.on_failure(failure(FailoverReason::Billing), 1, 3, kNow), A::Switch);
    EXPECT_EQ(f.current().label(), "p/m1 (profile p:b)");
    EXPECT_EQ(f.on_failure(failure(FailoverReason::ModelNotFound), 1, 3, kNow), A::Switch);
    EXPECT_EQ(f.current().label(), "p/m2 (profile p:b)") << "p:a failed for billing: skipped for m2 too";
    EXPECT_EQ(f.on_failure(failure(FailoverReason::ContextOverflow), 1, 3, kNow), A::GiveUp);
  }
}

TEST(ModelFailoverTest, CoolingProfilesAreProbedLastAndAConfigKeyStillCounts) {
  ScratchDir dir;
  json doc = doc_with({{"p:a", key("p", "ka")}});
  doc["usageStats"] = {{"p:a", {{"cooldownUntil", kNow + 5000}}}};
  auto file = file_with(dir, doc);
  agent::ModelFailover f({model("p", "m1", "config-key"), model("q", "m2")}, file, kNow);
  ASSERT_EQ(f.chain().size(), 3u);
  EXPECT_EQ(f.chain()[0].profile_id, "") << "the configured key, usable now";
  EXPECT_EQ(f.chain()[0].model.api_key, "config-key");
  EXPECT_EQ(f.chain()[1].ref(), "q/m2");
  EXPECT_TRUE(f.chain()[2].probe);
  EXPECT_TRUE(f.switches().empty());
  // Only a cooling profile and no fallback: it is still tried (a single rate-limited key).
  agent::ModelFailover alone({model("p", "m1")}, file, kNow);
  ASSERT_EQ(alone.chain().size(), 1u);
  EXPECT_EQ(alone.current().profile_id, "p:a");
  // Every profile of the run's model cooling, a fallback available: it answers, and says why.
  agent::ModelFailover fallback({model("p", "m1"), model("q", "m2")}, file, kNow);
  EXPECT_EQ(fallback.current().ref(), "q/m2");
  ASSERT_EQ(fallback.switches().size(), 1u);
  EXPECT_EQ(fallback.switches()[0].reason, "unavailable");
}

TEST(ModelFailoverTest, ARejectedRequestGoesToEachModelOnceNeverToAnotherProfileNorACooldown) {
  // A plain 400 (format): OpenClaw surfaces it instead of rotating profiles and leaves the
  // profile's health alone; the model fallback still gets its one try.
  ScratchDir dir;
  json doc = doc_with({{"p:a", key("p", "ka")}, {"p:b", key("p", "kb")}});
  doc["usageStats"] = {{"p:b", {{"cooldownUntil", kNow + 5000}}}};
  auto file = file_with(dir, doc);
  using A = agent::ModelFailover::Action;
  agent::ModelFailover f({model("p", "m1"), model("q", "m2", "kq")}, file, kNow);
  ASSERT_EQ(f.chain().size(), 3u);  // p:a, q/m2, then p:b (cooling) probed last
  EXPECT_EQ(f.current().profile_id, "p:a");
  EXPECT_EQ(f.on_failure(failure(FailoverReason::Format), 1, 3, kNow), A::Switch);
  EXPECT_EQ(f.current().ref(), "q/m2");
  EXPECT_EQ(f.on_failure(failure(FailoverReason::Format), 1, 3, kNow), A::GiveUp)
      << "p/m1 was tried already: not again with its cooling profile";
  EXPECT_EQ(f.switches().size(), 1u);
  auto after = file->load();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->stats("p:a").cooldown_until, 0) << "a rejected request does not cool the profile down";
  EXPECT_EQ(after->stats("p:a").error_count, 0);
  // Two profiles of one model, no fallback: the other profile is not tried either.
  agent::ModelFailover single({model("p", "m1")}, file_with(dir, doc_with({{"p:a", key("p", "ka")}, {"p:b", key("p", "kb")}})), kNow);
  ASSERT_EQ(single.chain().size(), 2u);
  EXPECT_EQ(single.on_failure(failure(FailoverReason::Format), 1, 3, kNow), A::GiveUp);
  // The document itself leaves the profile alone for a format failure.
  llm::auth::AuthProfiles profiles = *file->load();
  EXPECT_FALSE(profiles.mark_failure("p:a", FailoverReason::Format, kNow, "m1"));
  EXPECT_TRUE(profiles.usable("p:a", kNow + 1, "m1"));
}

TEST(DoctorAuthTest, ReportsBrokenFilesAndProvidersWithNoUsableProfileWithoutSecrets) {
  ScratchDir dir;
  std::ofstream(dir.path() / "pincer.json") << "{ agents: { list: [ { id: 'main' }, { id: 'work' } ] } }";
  const config::EnvLookup no_env = [](const std::string&) { return std::optional<std::string>(); };
  auto loaded = config::load(dir.path() / "pincer.json", no_env);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_TRUE(cli::check_auth_profiles(loaded->effective, dir.path(), no_env, kNow).empty()) << "no files: nothing to say";

  json doc = doc_with({{"p:a", key("p", "SecretKeyAlpha123")}, {"p:b", key("p", "SecretKeyBravo456")}, {"q:x", key("q", "SecretQ789")}});
  doc["usageStats"] = {{"p:a", {{"disabledUntil", kNow + 7'200'000}, {"disabledReason", "billing"}}},
                       {"p:b", {{"cooldownUntil", kNow + 60'000}, {"cooldownReason", "rate_limit"}}}};
  std::filesystem::create_directories(dir.path() / "agents/main/agent");
  std::ofstream(dir.path() / "agents/main/agent/auth-profiles.json") << doc.dump();
  std::filesystem::create_directories(dir.path() / "agents/work/agent");
  std::ofstream(dir.path() / "agents/work/agent/auth-profiles.json") << "{broken";
  auto findings = cli::check_auth_profiles(loaded->effective, dir.path(), no_env, kNow);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].status, "warn");
  EXPECT_NE(findings[0].message.find("no usable auth profile for p (cooling down: rate_limit"), std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[1].status, "fail");
  EXPECT_NE(findings[1].message.find("agent work"), std::string::npos) << findings[1].message;
  for (const auto& f : findings) EXPECT_EQ((f.message + f.fix).find("SecretKey"), std::string::npos);

  doc["usageStats"] = json::object();
  std::ofstream(dir.path() / "agents/main/agent/auth-profiles.json") << doc.dump();
  std::filesystem::remove(dir.path() / "agents/work/agent/auth-profiles.json");
  findings = cli::check_auth_profiles(loaded->effective, dir.path(), no_env, kNow);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].status, "ok");
  EXPECT_NE(findings[0].message.find("3 auth profile(s)"), std::string::npos) << findings[0].message;
}

}  // namespace
}  // namespace auth_profiles_test
}  // namespace pincer
