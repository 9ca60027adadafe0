// Tests of the configuration layer (core/config.h, core/config_schema.h): strict validation
// messages, defaults, redaction, JSON Schema export, the schema's own documentation, load(), and
// that docs/configuration.md matches the schema. $include and env substitution are in
// config_include_env_test.cpp; shared helpers in config_test_support.h.
#include "core/config.h"

#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_support.h"
#include "core/config_schema.h"

namespace pincer::config::config_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;
using config_test_support::kNoEnv;
using config_test_support::TempDir;

// The message of a validation failure ("" when the document is valid).
std::string violations_of(const json& doc) {
  Status st = validate(doc);
  return st.ok() ? "" : st.error().message;
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
            "gateway.prot: unknown key, did you mean `port`? (expected one of "
            "port|bind|customBindHost|drainTimeoutMs|auth|trustedProxies|controlUi|reload|http)");
  EXPECT_EQ(violations_of(json::parse(R"({"gatway": {}})")),
            "gatway: unknown key, did you mean `gateway`? (expected one of $schema|env|gateway|models|agents|tools|memory|approvals|commands|logging|session|messages|cron|hooks|skills|mcp|diagnostics|bindings|channels|plugins|meta)");
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
            "agents.defaults.model.primray: unknown key, did you mean `primary`? (expected one of primary|fallbacks)");
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
            "gateway.prot: unknown key, did you mean `port`? (expected one of "
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
}  // namespace pincer::config::config_test
