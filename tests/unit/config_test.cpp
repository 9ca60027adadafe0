// Tests of the configuration layer (core/config.h, core/config_schema.h): $include, env
// substitution, strict validation messages, defaults, redaction, JSON Schema export, load(), and
// that docs/configuration.md matches the schema.
#include "core/config.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config_schema.h"
#include "test_helpers.h"

namespace pincer::config {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("pincer-config-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  // Writes `text` to `relative` (creating folders) and returns the full path.
  fs::path write(const std::string& relative, const std::string& text) const {
    fs::path p = path_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  fs::path path_;
};

using pincer::test_helpers::env_of;

const EnvLookup kNoEnv = env_of({});

// The message of a validation failure ("" when the document is valid).
std::string violations_of(const json& doc) {
  Status st = validate(doc);
  return st.ok() ? "" : st.error().message;
}

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

// ---- validation ---------------------------------------------------------------------------------

TEST(ConfigValidate, ValidDocumentsPass) {
  EXPECT_EQ(violations_of(json::object()), "");
  EXPECT_EQ(violations_of(json::parse(R"({
      "$schema": "./schema.json",
      "gateway": {"port": 8080.0, "bind": "custom", "customBindHost": "192.168.1.10",
                  "auth": {"mode": "trusted-proxy",
                           "trustedProxy": {"userHeader": "x-user", "allowUsers": ["ann"]}},
                  "trustedProxies": ["127.0.0.1"]},
      "logging": {"level": "off", "consoleStyle": "json", "file": "/tmp/x.log"},
      "meta": {"anything": [1, {"goes": null}]}})")), "");
}

TEST(ConfigValidate, UnknownKey) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"prot": 1}})")),
            "gateway.prot: unknown key (expected one of "
            "port|bind|customBindHost|drainTimeoutMs|auth|trustedProxies|controlUi|reload|http)");
  EXPECT_EQ(violations_of(json::parse(R"({"gatway": {}})")),
            "gatway: unknown key (expected one of $schema|env|gateway|models|agents|tools|memory|approvals|commands|logging|session|messages|cron|hooks|skills|mcp|diagnostics|bindings|channels|plugins|meta)");
}

TEST(ConfigValidate, KeysThatAreNotIdentifiersAreQuotedInPaths) {
  EXPECT_THAT(violations_of(json::parse(R"({"gateway": {"a b": 1}})")),
              StartsWith(R"(gateway["a b"]: unknown key)"));
}

TEST(ConfigValidate, SchemaKeyOnlyAtTheRootAndOnlyAString) {
  EXPECT_THAT(violations_of(json::parse(R"({"logging": {"$schema": "x"}})")),
              StartsWith("logging.$schema: unknown key"));
  EXPECT_EQ(violations_of(json::parse(R"({"$schema": 1})")), "$schema: expected string, got 1");
}

TEST(ConfigValidate, WrongTypeAndRange) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"port": "abc"}})")),
            R"(gateway.port: expected integer 1..65535, got "abc")");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"port": 0}})")),
            "gateway.port: expected integer 1..65535, got 0");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"port": 65536}})")),
            "gateway.port: expected integer 1..65535, got 65536");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"port": 80.5}})")),
            "gateway.port: expected integer 1..65535, got 80.5");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"auth": {"rateLimit": {"lockoutMs": -1}}}})")),
            "gateway.auth.rateLimit.lockoutMs: expected integer 0..2147483647, got -1");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"auth": {"rateLimit": {"exemptLoopback": "yes"}}}})")),
            R"(gateway.auth.rateLimit.exemptLoopback: expected boolean, got "yes")");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": 5})")), "gateway: expected object, got 5");
  EXPECT_EQ(violations_of(json::parse(R"({"logging": {"file": null}})")),
            "logging.file: expected string, got null");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"trustedProxies": "10.0.0.1"}})")),
            R"(gateway.trustedProxies: expected array of string, got "10.0.0.1")");
  EXPECT_EQ(violations_of(json::parse("[]")), "(root): expected object, got array");
}

TEST(ConfigValidate, NonFiniteNumbersAreNotIntegers) {
  json doc = {{"gateway", {{"port", std::numeric_limits<double>::infinity()}}}};
  EXPECT_EQ(violations_of(doc), "gateway.port: expected integer 1..65535, got Infinity");
}

TEST(ConfigValidate, EnumMessageIsExact) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"auth": {"mode": "tokn"}}})")),
            R"(gateway.auth.mode: expected one of none|token|password|trusted-proxy, got "tokn")");
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"bind": 1}})")),
            "gateway.bind: expected one of loopback|lan|custom, got 1");
}

TEST(ConfigValidate, ArrayElementsUseIndexPaths) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"trustedProxies": ["a", "b", 7]}})")),
            "gateway.trustedProxies[2]: expected string, got 7");
}

// A union (`model`: "provider/model" or {primary, fallbacks}) reports the errors of the
// alternative matching the value's JSON type, or the list of alternatives when none matches.
TEST(ConfigValidate, UnionReportsTheAlternativeOfTheValuesType) {
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"defaults": {"model": "a/b"}}})")), "");
  EXPECT_EQ(violations_of(json::parse(
                R"({"agents": {"defaults": {"model": {"primary": "a/b", "fallbacks": ["c/d"]}}}})")),
            "");
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"defaults": {"model": 5}}})")),
            "agents.defaults.model: expected string or object, got 5");
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"defaults": {"model": ["a/b"]}}})")),
            "agents.defaults.model: expected string or object, got array");
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"defaults": {"model": {"primary": 5}}}})")),
            "agents.defaults.model.primary: expected string, got 5");
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"defaults": {"model": {"primray": "a/b"}}}})")),
            "agents.defaults.model.primray: unknown key (expected one of primary|fallbacks)");
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"list": [{"id": "x", "model": {"fallbacks": [1]}}]}})")),
            "agents.list[0].model.fallbacks[0]: expected string, got 1");
}

TEST(ConfigValidate, PatternIsMatchedAgainstTheWholeString) {
  EXPECT_EQ(violations_of(json::parse(R"({"agents": {"list": [{"id": "Main"}]}})")),
            R"(agents.list[0].id: expected string matching ^[a-z0-9][a-z0-9_-]{0,63}$, got "Main")");
  for (const char* bad : {"", "-x", "_x", "a b", "a.b", "ab\n"}) {
    EXPECT_NE(violations_of(json{{"agents", {{"list", {{{"id", bad}}}}}}}), "") << bad;
  }
  for (const char* good : {"main", "0", "work-2", "a_b", "x"}) {
    EXPECT_EQ(violations_of(json{{"agents", {{"list", {{{"id", good}}}}}}}), "") << good;
  }
  EXPECT_EQ(violations_of(json{{"agents", {{"list", {{{"id", std::string(64, 'a')}}}}}}}), "");
  EXPECT_NE(violations_of(json{{"agents", {{"list", {{{"id", std::string(65, 'a')}}}}}}}), "");
}

TEST(ConfigValidate, Ipv4Format) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"customBindHost": "localhost"}})")),
            R"(gateway.customBindHost: expected IPv4 address, got "localhost")");
  for (const char* bad : {"1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", "", "1..2.3"}) {
    EXPECT_NE(violations_of(json{{"gateway", {{"customBindHost", bad}}}}), "") << bad;
  }
  for (const char* good : {"0.0.0.0", "127.0.0.1", "255.255.255.255", "10.20.30.40"}) {
    EXPECT_EQ(violations_of(json{{"gateway", {{"customBindHost", good}}}}), "") << good;
  }
}

TEST(ConfigValidate, RequiredKeyMissing) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"auth": {"trustedProxy": {}}}})")),
            "gateway.auth.trustedProxy.userHeader: missing required key (expected string)");
}

TEST(ConfigValidate, SensitiveValuesAreNotEchoed) {
  EXPECT_EQ(violations_of(json::parse(R"({"gateway": {"auth": {"token": 123456}}})")),
            "gateway.auth.token: expected string without control characters (newline, tab, NUL …), got number");
}

TEST(ConfigValidate, LongStringsAreShortenedInMessages) {
  std::string msg = violations_of(json{{"logging", {{"level", std::string(200, 'x')}}}});
  EXPECT_THAT(msg, HasSubstr("got \"" + std::string(64, 'x') + "\"…"));
  EXPECT_LT(msg.size(), 150u);
}

TEST(ConfigValidate, ReportsAllViolationsOnePerLineInDocumentOrder) {
  // nlohmann::json keeps object keys sorted, so "document order" is that order, depth first.
  json doc = json::parse(R"({
      "gateway": {"prot": 1, "port": "abc", "bind": "wan", "auth": {"mode": "tokn"},
                  "trustedProxies": [1, "ok", false]},
      "logging": {"level": "loud"},
      "zzz": true})");
  EXPECT_EQ(violations_of(doc),
            "gateway.auth.mode: expected one of none|token|password|trusted-proxy, got \"tokn\"\n"
            "gateway.bind: expected one of loopback|lan|custom, got \"wan\"\n"
            "gateway.port: expected integer 1..65535, got \"abc\"\n"
            "gateway.prot: unknown key (expected one of "
            "port|bind|customBindHost|drainTimeoutMs|auth|trustedProxies|controlUi|reload|http)\n"
            "gateway.trustedProxies[0]: expected string, got 1\n"
            "gateway.trustedProxies[2]: expected string, got false\n"
            "logging.level: expected one of trace|debug|info|warn|error|off, got \"loud\"\n"
            "zzz: unknown key (expected one of $schema|env|gateway|models|agents|tools|memory|approvals|commands|logging|session|messages|cron|hooks|skills|mcp|diagnostics|bindings|channels|plugins|meta)");
  EXPECT_EQ(validate(doc).error().code, "CONFIG_INVALID");
}

TEST(ConfigValidate, LoadPrefixesEveryLineWithTheFile) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"({"gateway": {"port": 0, "bind": "wan"}})");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
  EXPECT_EQ(cfg.error().message,
            top.string() + ": gateway.bind: expected one of loopback|lan|custom, got \"wan\"\n" +
                top.string() + ": gateway.port: expected integer 1..65535, got 0");
}

// ---- defaults -----------------------------------------------------------------------------------

TEST(ConfigDefaults, EmptyDocumentGetsEveryDefault) {
  EXPECT_EQ(with_defaults(json::object()), json::parse(R"({
      "cron": {"enabled": true, "maxConcurrentRuns": 1, "missedRuns": "run-once",
               "webhookSsrfPolicy": {"dangerouslyAllowPrivateNetwork": false}},
      "hooks": {"enabled": false, "path": "/hooks", "maxBodyBytes": 262144, "allowRequestSessionKey": false,
                "gmail": {"allowUnsafeExternalContent": false}},
      "skills": {"trust": {"successfulUses": 3}},
      "gateway": {"port": 18789, "bind": "loopback", "drainTimeoutMs": 30000,
                  "auth": {"mode": "token",
                           "rateLimit": {"maxAttempts": 10, "windowMs": 60000,
                                         "lockoutMs": 300000, "exemptLoopback": true}},
                  "reload": {"mode": "hybrid", "debounceMs": 300},
                  "http": {"endpoints": {"chatCompletions": {"enabled": false}, "responses": {"enabled": false}}}},
      "mcp": {"eagerToolLimit": 32},
      "agents": {"defaults": {"thinkingDefault": "off", "timeoutSeconds": 600, "maxConcurrent": 4,
                              "bootstrapMaxChars": 20000, "bootstrapTotalMaxChars": 150000,
                              "bootstrapTruncationWarning": "once",
                              "startupContext": {"enabled": true, "dailyMemoryDays": 2, "maxFileBytes": 16384,
                                                 "maxFileChars": 1200, "maxTotalChars": 2800},
                              "sandbox": {"backend": "bwrap", "bwrap": {"command": "bwrap"}, "mode": "off",
                                          "network": "off", "workspaceAccess": "rw"}}},
      "memory": {"backend": "builtin", "citations": "auto",
                 "capture": {"enabled": true, "maxChars": 500}, "archive": {"enabled": true},
                 "search": {"chunking": {"overlap": 80, "tokens": 400}, "enabled": true, "provider": "none",
                            "experimental": {"sessionMemory": false},
                            "query": {"hybrid": {"candidateMultiplier": 4, "mmr": {"enabled": true, "lambda": 0.7},
                                                 "temporalDecay": {"enabled": true, "halfLifeDays": 30},
                                                 "textWeight": 0.3, "vectorWeight": 0.7},
                                      "maxResults": 6, "minScore": 0.35, "timeoutMs": 3000},
                            "remote": {"batch": {"size": 64}, "timeoutMs": 30000},
                            "sync": {"watch": true, "watchDebounceMs": 1500}}},
      "tools": {"profile": "coding", "exec": {"timeoutSec": 1800, "maxOutputChars": 100000, "security": "full",
                                              "ask": "off", "nonOwner": {"security": "allowlist", "ask": "on-miss"}},
                "agentToAgent": {"enabled": true}, "sessions": {"visibility": "all"}, "toolSearch": true},
      "session": {"agentToAgent": {"maxPingPongTurns": 5}},
      "approvals": {"mode": "manual", "askFallback": "deny", "timeoutSec": 120, "triageTimeoutSec": 20},
      "logging": {"level": "info", "file": "", "consoleStyle": "pretty"},
      "messages": {"queue": {"mode": "collect", "debounceMs": 1000, "cap": 20, "drop": "summarize"}},
      "diagnostics": {"cacheTrace": {"enabled": false, "maxFileBytes": 4194304}}})"));
}

TEST(ConfigDefaults, GivenValuesAreKept) {
  json doc = json::parse(R"({
      "gateway": {"port": 1234, "auth": {"mode": "none", "rateLimit": {"maxAttempts": 3},
                                         "trustedProxy": {"userHeader": "x-user"}}},
      "logging": {"level": "debug"},
      "meta": {"port": 1}})");
  json filled = with_defaults(doc);
  EXPECT_EQ(filled["gateway"]["port"], 1234);
  EXPECT_EQ(filled["gateway"]["bind"], "loopback");
  EXPECT_EQ(filled["gateway"]["auth"]["mode"], "none");
  EXPECT_EQ(filled["gateway"]["auth"]["rateLimit"],
            json::parse(R"({"maxAttempts": 3, "windowMs": 60000, "lockoutMs": 300000,
                            "exemptLoopback": true})"));
  EXPECT_EQ(filled["gateway"]["auth"]["trustedProxy"], json::parse(R"({"userHeader": "x-user"})"));
  EXPECT_EQ(filled["logging"]["level"], "debug");
  EXPECT_EQ(filled["logging"]["consoleStyle"], "pretty");
  EXPECT_EQ(filled["meta"], json::parse(R"({"port": 1})"));
}

TEST(ConfigDefaults, ArrayElementsAndUnionObjectsGetDefaults) {
  json doc = json::parse(R"({
      "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:8080/v1",
                                         "models": [{"id": "m1"}, {"id": "m2", "maxTokens": 9}]}}},
      "agents": {"defaults": {"model": {"primary": "local/m1"}}, "list": [{"id": "a", "model": "local/m2"}]}})");
  json filled = with_defaults(doc);
  const json& local = filled["models"]["providers"]["local"];
  EXPECT_EQ(local["api"], "openai-completions");
  EXPECT_EQ(local["models"][0], json::parse(R"({"id": "m1", "contextWindow": 128000, "maxTokens": 4096,
                                                "reasoning": false, "input": ["text"]})"));
  EXPECT_EQ(local["models"][1]["maxTokens"], 9);
  EXPECT_EQ(filled["agents"]["defaults"]["model"], json::parse(R"({"primary": "local/m1"})"));
  EXPECT_EQ(filled["agents"]["list"][0], json::parse(R"({"id": "a", "model": "local/m2"})"));
  EXPECT_EQ(violations_of(filled), "");
}

TEST(ConfigDefaults, DefaultsAreValid) {
  EXPECT_EQ(violations_of(with_defaults(json::object())), "");
}

TEST(ConfigDefaults, WrongTypesAreLeftAsTheyAre) {
  json doc = json::parse(R"({"gateway": 5, "logging": [], "agents": "x", "tools": 1, "models": null, "messages": "q", "diagnostics": 2,
                             "approvals": 2, "memory": 3, "cron": 4, "hooks": 5, "skills": 6, "session": 7, "mcp": 8})");
  EXPECT_EQ(with_defaults(doc), doc);
}

// ---- redaction ----------------------------------------------------------------------------------

TEST(ConfigRedact, SensitiveValuesAreReplaced) {
  json doc = json::parse(R"({
      "gateway": {"port": 1, "auth": {"mode": "token", "token": "abc", "password": "pw"}},
      "meta": {"token": "not-schema-sensitive"}})");
  json out = redact(doc);
  EXPECT_EQ(out["gateway"]["auth"]["token"], kRedacted);
  EXPECT_EQ(out["gateway"]["auth"]["password"], "__PINCER_REDACTED__");
  EXPECT_EQ(out["gateway"]["auth"]["mode"], "token");
  EXPECT_EQ(out["gateway"]["port"], 1);
  EXPECT_EQ(out["meta"]["token"], "not-schema-sensitive");
  EXPECT_EQ(doc["gateway"]["auth"]["token"], "abc");  // the input is untouched
}

TEST(ConfigRedact, ProviderKeysAndHeaderValuesAreReplaced) {
  json doc = json::parse(R"({"models": {"providers": {"p": {
      "baseUrl": "https://x", "apiKey": "sk-123", "headers": {"X-Key": "v"}}}}})");
  json out = redact(doc);
  const json& p = out["models"]["providers"]["p"];
  EXPECT_EQ(p["apiKey"], kRedacted);
  EXPECT_EQ(p["headers"]["X-Key"], kRedacted);
  EXPECT_EQ(p["baseUrl"], "https://x");
  EXPECT_EQ(violations_of(json::parse(R"({"models": {"providers": {"p": {"baseUrl": "http://u", "apiKey": 5}}}})")),
            "models.providers.p.apiKey: expected string, got number");
}

TEST(ConfigRedact, AbsentSecretsStayAbsent) {
  json doc = with_defaults(json::object());
  EXPECT_EQ(redact(doc), doc);
}

// ---- JSON Schema --------------------------------------------------------------------------------

TEST(ConfigJsonSchema, SpotChecks) {
  json s = json_schema();
  EXPECT_EQ(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(s["type"], "object");
  EXPECT_EQ(s["additionalProperties"], false);
  const json& gateway = s["properties"]["gateway"];
  EXPECT_EQ(gateway["additionalProperties"], false);
  const json& port = gateway["properties"]["port"];
  EXPECT_EQ(port["type"], "integer");
  EXPECT_EQ(port["default"], 18789);
  EXPECT_EQ(port["minimum"], 1);
  EXPECT_EQ(port["maximum"], 65535);
  EXPECT_FALSE(port["description"].get<std::string>().empty());
  const json& auth = gateway["properties"]["auth"];
  EXPECT_EQ(auth["properties"]["mode"]["enum"],
            json::parse(R"(["none", "token", "password", "trusted-proxy"])"));
  EXPECT_EQ(auth["properties"]["token"]["x-sensitive"], true);
  EXPECT_EQ(auth["properties"]["trustedProxy"]["required"], json::parse(R"(["userHeader"])"));
  EXPECT_EQ(gateway["properties"]["trustedProxies"]["items"]["type"], "string");
  EXPECT_EQ(gateway["properties"]["customBindHost"]["format"], "ipv4");
  EXPECT_EQ(s["properties"]["$schema"]["type"], "string");
  EXPECT_FALSE(s["properties"]["meta"].contains("type"));  // any value
}

TEST(ConfigJsonSchema, UnionsAndPatterns) {
  json s = json_schema();
  const json& agents = s["properties"]["agents"]["properties"];
  const json& model = agents["defaults"]["properties"]["model"];
  ASSERT_TRUE(model.contains("anyOf"));
  ASSERT_EQ(model["anyOf"].size(), 2u);
  EXPECT_EQ(model["anyOf"][0]["type"], "string");
  EXPECT_EQ(model["anyOf"][1]["type"], "object");
  EXPECT_EQ(model["anyOf"][1]["properties"]["fallbacks"]["items"]["type"], "string");
  EXPECT_FALSE(model.contains("type"));
  EXPECT_EQ(agents["list"]["items"]["properties"]["id"]["pattern"], "^[a-z0-9][a-z0-9_-]{0,63}$");
  EXPECT_EQ(agents["list"]["items"]["required"], json::parse(R"(["id"])"));
  const json& provider = s["properties"]["models"]["properties"]["providers"]["additionalProperties"];
  EXPECT_EQ(provider["required"], json::parse(R"(["baseUrl"])"));
  EXPECT_EQ(provider["properties"]["apiKey"]["x-sensitive"], true);
}

// Walks the schema through its public accessors: every field must say what it is for, including
// the fields of array elements, map values and union alternatives.
void expect_documented(const schema::Node& node, const std::string& path) {
  for (const auto& f : node.fields()) {
    EXPECT_FALSE(f.node.description().empty()) << path + "." + f.name << " has no description";
    expect_documented(f.node, path + "." + f.name);
  }
  if (node.kind() == schema::Kind::kArray || node.kind() == schema::Kind::kMap) {
    expect_documented(node.item(), path + "[]");
  }
  for (const auto& alt : node.alternatives()) expect_documented(alt, path);
}

TEST(ConfigSchema, EveryKeyIsDocumented) { expect_documented(schema::root(), ""); }

TEST(ConfigSchema, Expectations) {
  using namespace schema;
  EXPECT_EQ(integer().min(1).max(5).expectation(), "integer 1..5");
  EXPECT_EQ(number().max(0.5).expectation(), "number <= 0.5");
  EXPECT_EQ(map_of(array_of(boolean())).expectation(), "map of string to array of boolean");
  EXPECT_EQ(any().expectation(), "any value");
  EXPECT_EQ(union_of({string(), object({})}).expectation(), "string or object");
  EXPECT_EQ(union_of({integer().min(0), boolean()}).expectation(), "integer >= 0 or boolean");
  EXPECT_EQ(string().pattern("^[a-z]+$").expectation(), "string matching ^[a-z]+$");
  EXPECT_EQ(union_of({string()}).alternatives().size(), 1u);
  EXPECT_TRUE(string().alternatives().empty());
}

// ---- load() -------------------------------------------------------------------------------------

TEST(ConfigLoad, MissingFileGivesDefaults) {
  TempDir dir;
  auto cfg = load(dir.path() / "pincer.json", kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_FALSE(cfg->exists);
  EXPECT_EQ(cfg->hash, "");
  EXPECT_EQ(cfg->resolved, json::object());
  EXPECT_EQ(cfg->effective, with_defaults(json::object()));
  EXPECT_EQ(cfg->path, dir.path() / "pincer.json");
}

TEST(ConfigLoad, ExistingFileHasHashResolvedAndEffective) {
  TempDir dir;
  auto top = dir.write("pincer.json", "{}");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_TRUE(cfg->exists);
  // sha256("{}")
  EXPECT_EQ(cfg->hash, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  EXPECT_EQ(cfg->effective["gateway"]["port"], 18789);
}

TEST(ConfigLoad, Json5SyntaxIsAccepted) {
  TempDir dir;
  auto top = dir.write("pincer.json", R"(// Pincer
{
  gateway: {
    port: 8080,   /* HTTP + WS */
    bind: 'lan',
  },
})");
  auto cfg = load(top, kNoEnv);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->effective["gateway"]["port"], 8080);
  EXPECT_EQ(cfg->effective["gateway"]["bind"], "lan");
}

TEST(ConfigLoad, SyntaxErrorHasFileLineAndColumn) {
  TempDir dir;
  auto top = dir.write("pincer.json", "{\n  \"gateway\": {\n    \"port\": ,\n  }\n}\n");
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
  EXPECT_THAT(cfg.error().message, StartsWith(top.string() + ":3:"));
  EXPECT_THAT(cfg.error().message.substr(top.string().size()), MatchesRegex(":3:[0-9]+: .+"));
}

TEST(ConfigLoad, OversizedFileIsAnError) {
  TempDir dir;
  auto top = dir.write("pincer.json", std::string(kMaxFileBytes + 1, ' '));
  auto cfg = load(top, kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, top.string() + ": file is larger than 2 MiB");
}

TEST(ConfigLoad, DirectoryIsAnError) {
  TempDir dir;
  fs::create_directories(dir.path() / "pincer.json");
  auto cfg = load(dir.path() / "pincer.json", kNoEnv);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, (dir.path() / "pincer.json").string() + ": not a regular file");
}

TEST(ConfigLoad, RelativeTopLevelPathWorks) {
  TempDir dir;
  dir.write("pincer.json", R"({"$include": "sub/x.json"})");
  dir.write("sub/x.json", R"({"logging": {"level": "warn"}})");
  fs::path before = fs::current_path();
  fs::current_path(dir.path());
  auto cfg = load("pincer.json", kNoEnv);
  fs::current_path(before);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->effective["logging"]["level"], "warn");
}

// ---- docs/configuration.md ----------------------------------------------------------------------

TEST(ConfigDocs, ReferenceMatchesTheSchema) {
  const fs::path file = fs::path(PINCER_SOURCE_DIR) / "docs" / "configuration.md";
  const std::string expected = markdown_reference();
  const char* update = std::getenv("PINCER_UPDATE_DOCS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(file, std::ios::binary) << expected;
    SUCCEED() << "rewrote " << file;
    return;
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream actual;
  actual << in.rdbuf();
  EXPECT_TRUE(actual.str() == expected)
      << file << " is out of date with the config schema (src/core/config_schema.cpp).\n"
      << "Regenerate it with:\n"
      << "  PINCER_UPDATE_DOCS=1 ./build/tests/pincer_unit_tests --gtest_filter=ConfigDocs.*";
}

}  // namespace
}  // namespace pincer::config
