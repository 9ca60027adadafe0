// Resolving a config file before validation (core/config.h): $include (replacement, deep merge in
// order, sibling keys, relative paths, depth limit, cycles, confinement to the config directory,
// missing, bad and oversized includes) and ${VAR} environment substitution (escapes, missing
// variables named with their config path, no rescanning, included content but not keys). Shared
// helpers in config_test_support.h; validation, defaults and load() are in config_test.cpp.
#include "core/config.h"

#include <cstdlib>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_support.h"
#include "test_helpers.h"

namespace pincer::config::config_include_env_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using pincer::test_helpers::env_of;
using config_test_support::kNoEnv;
using config_test_support::TempDir;

// ---- $include -----------------------------------------------------------------------------------

TEST(ConfigInclude, SingleIncludeReplacesTheObject) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"$include": "gateway.json"}})");
  dir.write("gateway.json", R"({"port": 1234, "bind": "lan"})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved, json::parse(R"({"gateway": {"port": 1234, "bind": "lan"}})"));
  EXPECT_EQ(cfg->effective["gateway"]["port"], 1234);
}

TEST(ConfigInclude, SeveralIncludesDeepMergeInOrderAndArraysConcatenate) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"$include": ["a.json", "b.json"]})");
  dir.write("a.json", R"({"gateway": {"port": 1, "bind": "lan", "trustedProxies": ["10.0.0.1"]}})");
  dir.write("b.json", R"({"gateway": {"port": 2, "trustedProxies": ["10.0.0.2"]},
                          "logging": {"level": "debug"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved, json::parse(R"({
      "gateway": {"port": 2, "bind": "lan", "trustedProxies": ["10.0.0.1", "10.0.0.2"]},
      "logging": {"level": "debug"}})"));
}

TEST(ConfigInclude, SiblingKeysAreMergedOnTop) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({
      "$include": "base.json",
      "gateway": {"port": 3000, "trustedProxies": ["10.0.0.2"]}})");
  dir.write("base.json", R"({"gateway": {"port": 1, "bind": "lan", "trustedProxies": ["10.0.0.1"]}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"], json::parse(R"({
      "port": 3000, "bind": "lan", "trustedProxies": ["10.0.0.1", "10.0.0.2"]})"));
}

TEST(ConfigInclude, SiblingKeysNeedAnIncludedObject) {
  TempDir dir;
  auto top = dir.write("pincer.json",
                       R"({"gateway": {"trustedProxies": {"$include": "list.json", "x": 1}}})");
  dir.write("list.json", R"(["10.0.0.1"])");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
  EXPECT_EQ(cfg.error().message,
            top.string() + ": gateway.trustedProxies.$include: sibling keys need the included "
                           "value to be an object, got array");
}

TEST(ConfigInclude, IncludedArrayReplacesTheObjectHoldingTheInclude) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"trustedProxies": {"$include": "list.json"}}})");
  dir.write("list.json", R"(["10.0.0.1", "10.0.0.2"])");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"]["trustedProxies"], json::parse(R"(["10.0.0.1", "10.0.0.2"])"));
}

TEST(ConfigInclude, PathsAreRelativeToTheIncludingFile) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"$include": "parts/gateway.json"}})");
  dir.write("parts/gateway.json", R"({"port": 9, "auth": {"$include": "auth.json"}})");
  dir.write("parts/auth.json", R"({"mode": "none"})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"], json::parse(R"({"port": 9, "auth": {"mode": "none"}})"));
}

TEST(ConfigInclude, SameFileTwiceIsNotACycle) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {
      "trustedProxies": {"$include": "ips.json"},
      "controlUi": {"allowedOrigins": {"$include": "ips.json"}}}})");
  dir.write("ips.json", R"(["http://10.0.0.1"])");  // a string list both keys' schemas accept
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"]["controlUi"]["allowedOrigins"], json::parse(R"(["http://10.0.0.1"])"));
}

// pincer.json includes f1.json, f1 includes f2 … up to f<levels>.json, which holds the port.
fs::path write_include_chain(const TempDir& dir, int levels) {
  auto top = dir.write("pincer.json", R"({"gateway": {"$include": "f1.json"}})");
  for (int i = 1; i < levels; ++i) {
    dir.write("f" + std::to_string(i) + ".json",
              R"({"$include": "f)" + std::to_string(i + 1) + R"(.json"})");
  }
  dir.write("f" + std::to_string(levels) + ".json", R"({"port": 4242})");
  return top;
}

TEST(ConfigInclude, TenLevelsAreAccepted) {
  TempDir dir;
  auto cfg = load(write_include_chain(dir, kMaxIncludeDepth), kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"]["port"], 4242);
}

TEST(ConfigInclude, ElevenLevelsAreTooDeep) {
  TempDir dir;
  auto cfg = load(write_include_chain(dir, kMaxIncludeDepth + 1), kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            (dir.path() / "f10.json").string() +
                ": $include: \"f11.json\" exceeds the maximum include depth (10)");
}

TEST(ConfigInclude, CycleIsAnErrorNamingTheChain) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"$include": "a.json"})");
  dir.write("a.json", R"({"$include": "b.json"})");
  dir.write("b.json", R"({"logging": {"$include": "a.json"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            (dir.path() / "b.json").string() +
                ": logging.$include: circular $include: pincer.json -> a.json -> b.json -> a.json");
}

TEST(ConfigInclude, SelfIncludeIsACycle) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"$include": "./pincer.json"})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message, HasSubstr("circular $include: pincer.json -> pincer.json"));
}

TEST(ConfigInclude, EscapingTheConfigDirectoryIsRejected) {
  TempDir dir;
  dir.write("outside.json", R"({"port": 1})");
  auto top = dir.write("home/pincer.json", R"({"gateway": {"$include": "../outside.json"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            top.string() + ": gateway.$include: \"../outside.json\" is outside the config directory " +
                fs::canonical(dir.path() / "home").string());
}

TEST(ConfigInclude, AbsolutePathOutsideIsRejectedInsideIsAccepted) {
  TempDir dir;
  auto outside = dir.write("outside.json", R"({"port": 1})");
  auto inside = dir.write("home/inside.json", R"({"port": 2})");
  auto bad = dir.write("home/bad.json", json{{"gateway", {{"$include", outside.string()}}}}.dump());
  auto good = dir.write("home/good.json", json{{"gateway", {{"$include", inside.string()}}}}.dump());
  EXPECT_THAT(load(bad, kNoEnv).error().message, HasSubstr("is outside the config directory"));
  auto cfg = load(good, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"]["port"], 2);
}

TEST(ConfigInclude, SymlinkPointingOutsideIsRejected) {
  TempDir dir;
  auto outside = dir.write("outside.json", R"({"port": 1})");
  auto top = dir.write("home/pincer.json", R"({"gateway": {"$include": "link.json"}})");
  fs::create_symlink(outside, dir.path() / "home/link.json");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message, HasSubstr("\"link.json\" is outside the config directory"));
}

TEST(ConfigInclude, MissingIncludedFileIsAnError) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"logging": {"$include": "nope.json"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, top.string() + ": logging.$include: cannot read \"nope.json\" (" +
                                     (dir.path() / "nope.json").string() + "): file not found");
}

TEST(ConfigInclude, BadIncludeValueIsAnError) {
  TempDir dir;
  auto number = dir.write("a.json", R"({"$include": 5})");
  EXPECT_EQ(load(number, kNoEnv).error().message,
            number.string() + ": $include: expected string or array of strings, got 5");
  auto item = dir.write("b.json", R"({"$include": ["x.json", true]})");
  dir.write("x.json", "{}");
  EXPECT_EQ(load(item, kNoEnv).error().message,
            item.string() + ": $include[1]: expected string, got true");
}

TEST(ConfigInclude, SyntaxErrorInIncludedFileNamesThatFile) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"$include": "gw.json"}})");
  auto included = dir.write("gw.json", "{\n  \"port\": ,\n}");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
  EXPECT_THAT(cfg.error().message, StartsWith(included.string() + ":2:"));
}

TEST(ConfigInclude, OversizedIncludedFileIsAnError) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"meta": {"$include": "big.json"}})");
  dir.write("big.json", "\"" + std::string(kMaxFileBytes, 'x') + "\"");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message, HasSubstr("cannot read \"big.json\""));
  EXPECT_THAT(cfg.error().message, HasSubstr("file is larger than 2 MiB"));
}

// ---- environment substitution -------------------------------------------------------------------

TEST(ConfigEnv, ReplacesWholeAndMidStringReferences) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({
      "gateway": {"auth": {"token": "${PINCER_TOKEN}"}},
      "meta": {"url": "https://${HOST_1}:${PORT}/x", "list": ["a${_U}b"]}})");
  auto cfg = load(top, env_of({{"PINCER_TOKEN", "s3cret"}, {"HOST_1", "example.com"},
                               {"PORT", "443"}, {"_U", "-"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["gateway"]["auth"]["token"], "s3cret");
  EXPECT_EQ(cfg->resolved["meta"]["url"], "https://example.com:443/x");
  EXPECT_EQ(cfg->resolved["meta"]["list"][0], "a-b");
}

TEST(ConfigEnv, DoubleDollarEscapesAReference) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"meta": {"a": "$${HOME_DIR}", "b": "x$${A}y${A}"}})");
  auto cfg = load(top, env_of({{"A", "1"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["meta"]["a"], "${HOME_DIR}");
  EXPECT_EQ(cfg->resolved["meta"]["b"], "x${A}y1");
}

TEST(ConfigEnv, MissingVariableNamesItAndTheConfigPath) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"auth": {"token": "${PINCER_TOKEN}"}}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
  EXPECT_EQ(cfg.error().message, top.string() + ": missing env var \"PINCER_TOKEN\" referenced "
                                                "at config path gateway.auth.token");
}

TEST(ConfigEnv, EmptyVariableIsMissingAndArrayPathsUseBrackets) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"trustedProxies": ["10.0.0.1", "${PROXY}"]}})");
  auto cfg = load(top, env_of({{"PROXY", ""}}));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, top.string() + ": missing env var \"PROXY\" referenced at "
                                                "config path gateway.trustedProxies[1]");
}

TEST(ConfigEnv, EveryMissingVariableIsNamedAtOnce) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"auth": {"token": "${TOKEN_A}"}, "trustedProxies": ["${PROXY}"]},
                                          "meta": {"x": "${TOKEN_A}-${OTHER}"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            top.string() + ": missing env var \"TOKEN_A\" referenced at config path gateway.auth.token\n" +
            top.string() + ": missing env var \"PROXY\" referenced at config path gateway.trustedProxies[0]\n" +
            top.string() + ": missing env var \"TOKEN_A\" referenced at config path meta.x\n" +
            top.string() + ": missing env var \"OTHER\" referenced at config path meta.x");
}

TEST(ConfigEnv, LowercaseAndInvalidNamesAreLeftAlone) {
  TempDir dir;
  auto top = dir.write("pincer.json",
                       R"({"meta": ["${lower}", "${Mixed}", "$PLAIN", "${1ABC}", "${A-B}", "${UNCLOSED", "$"]})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["meta"], json::parse(
      R"(["${lower}", "${Mixed}", "$PLAIN", "${1ABC}", "${A-B}", "${UNCLOSED", "$"])"));
}

TEST(ConfigEnv, SubstitutedValuesAreNotRescanned) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"meta": {"a": "${OUTER}"}})");
  auto cfg = load(top, env_of({{"OUTER", "${INNER}"}}));  // INNER is unset: no error
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["meta"]["a"], "${INNER}");
}

TEST(ConfigEnv, AppliesToIncludedContentAndNotToKeys) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"meta": {"$include": "meta.json"}})");
  dir.write("meta.json", R"({"${KEY}": "${VALUE}"})");
  auto cfg = load(top, env_of({{"KEY", "k"}, {"VALUE", "v"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->resolved["meta"], json::parse(R"({"${KEY}": "v"})"));
}

TEST(ConfigEnv, ProcessEnvReadsTheRealEnvironment) {
  ::setenv("PINCER_CONFIG_TEST_VAR", "hello", 1);
  EXPECT_EQ(process_env()("PINCER_CONFIG_TEST_VAR"), "hello");
  ::unsetenv("PINCER_CONFIG_TEST_VAR");
  EXPECT_EQ(process_env()("PINCER_CONFIG_TEST_VAR"), std::nullopt);
}

}  // namespace
}  // namespace pincer::config::config_include_env_test
