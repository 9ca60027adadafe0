// Tests of `pincer import openclaw` below the CLI (cli/openclaw_import.h): config::resolve_file and
// env_references (the loader pieces it reuses), the pure mapping map_config(), and run_import()
// on temporary directories (dry run, refusal, --force, rollback, bad sources). The real binary
// against a gateway is tested in tests/integration/openclaw_import_test.cpp.
#include "cli/openclaw_import.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.h"
#include "store/instance_lock.h"
#include "test_helpers.h"

namespace pincer::cli::openclaw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kFixture = fs::path(PINCER_SOURCE_DIR) / "tests" / "fixtures" / "openclaw-home";

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("pincer-import-test-" + std::to_string(::getpid()) + "-" +
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
  fs::path write(const std::string& relative, const std::string& text) const {
    fs::path p = path_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  fs::path path_;
};

using pincer::test_helpers::slurp;

using pincer::test_helpers::env_of;

// ---- config::resolve_file / env_references ------------------------------------------------------

TEST(ConfigResolveFile, IncludesWithoutSchemaValidationAndKeepsEnvReferences) {
  TempDir dir;
  dir.write("part.json5", "{ port: 1234, // comment\n }");
  const auto file = dir.write("app.json", "{ gateway: { $include: './part.json5', token: '${TOKEN}' },\n"
                                          "  channels: { x: 'a $${LIT} b' } }");
  auto kept = config::resolve_file(file, env_of({}), config::EnvRefs::kKeep);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(*kept, json::parse(R"({"gateway":{"port":1234,"token":"${TOKEN}"},"channels":{"x":"a $${LIT} b"}})"));

  auto substituted = config::resolve_file(file, env_of({{"TOKEN", "t0k"}}));
  ASSERT_TRUE(substituted) << substituted.error().message;
  EXPECT_EQ((*substituted)["gateway"]["token"], "t0k");
  EXPECT_EQ((*substituted)["channels"]["x"], "a ${LIT} b");  // unknown key: not validated

  auto missing_env = config::resolve_file(file, env_of({}));
  ASSERT_FALSE(missing_env);
  EXPECT_THAT(missing_env.error().message, HasSubstr("missing env var \"TOKEN\" referenced at config path gateway.token"));
}

TEST(ConfigResolveFile, ErrorsNameTheFileAndPlace) {
  TempDir dir;
  auto none = config::resolve_file(dir.path() / "nope.json", env_of({}));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, "CONFIG_INVALID");
  EXPECT_EQ(none.error().message, (dir.path() / "nope.json").string() + ": file not found");

  const auto bad = dir.write("bad.json", "{\n  a: 1,\n  b: ]\n}");
  auto syntax = config::resolve_file(bad, env_of({}), config::EnvRefs::kKeep);
  ASSERT_FALSE(syntax);
  EXPECT_THAT(syntax.error().message, ::testing::StartsWith(bad.string() + ":3:6: "));

  const auto escape = dir.write("sub/esc.json", "{ $include: '../../x.json' }");
  auto outside = config::resolve_file(escape, env_of({}), config::EnvRefs::kKeep);
  ASSERT_FALSE(outside);
  EXPECT_THAT(outside.error().message, HasSubstr("is outside the config directory"));
}

TEST(ConfigEnvReferences, ListsUnescapedReferencesWithTheirPaths) {
  const json doc = json::parse(R"({"b": ["x ${ONE} y", "$${NOT}", "${lower}"], "a": {"k": "${TWO}${THREE}"}})");
  auto refs = config::env_references(doc);
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].name, "TWO");
  EXPECT_EQ(refs[0].path, "a.k");
  EXPECT_EQ(refs[1].name, "THREE");
  EXPECT_EQ(refs[2].name, "ONE");
  EXPECT_EQ(refs[2].path, "b[0]");
}

// ---- map_config ---------------------------------------------------------------------------------

const MapContext kCtx{"/home/u/.openclaw", "/home/u"};

bool has_skip(const ConfigMapping& m, const std::string& path, const std::string& reason_part = "") {
  return std::any_of(m.skipped.begin(), m.skipped.end(), [&](const Skipped& s) {
    return s.path == path && s.reason.find(reason_part) != std::string::npos;
  });
}

const MappedKey* find_mapped(const ConfigMapping& m, const std::string& from) {
  for (const auto& k : m.mapped) {
    if (k.from == from) return &k;
  }
  return nullptr;
}

std::string skipped_text(const ConfigMapping& m) {
  std::string out;
  for (const auto& s : m.skipped) out += s.path + ": " + s.reason + "\n";
  return out;
}

TEST(OpenClawMap, TheFixtureConfig) {
  auto doc = config::resolve_file(kFixture / "openclaw.json", env_of({}), config::EnvRefs::kKeep);
  ASSERT_TRUE(doc) << doc.error().message;
  ConfigMapping m = map_config(*doc, MapContext{kFixture, "/home/u"});
  EXPECT_EQ(m.config, json::parse(R"({
    "gateway": {"port": 18789, "bind": "loopback", "auth": {"mode": "token", "token": "${OPENCLAW_TEST_GATEWAY_TOKEN}"}},
    "models": {"providers": {"mock": {"baseUrl": "${OPENCLAW_TEST_MOCK_URL}", "apiKey": "test-key",
      "api": "openai-completions", "models": [{"id": "mock-model", "name": "Mock model", "reasoning": false,
      "input": ["text"], "contextWindow": 128000, "maxTokens": 4096}]}}},
    "agents": {"defaults": {"model": {"primary": "mock/mock-model"}, "timeoutSeconds": 300, "heartbeat": {"every": "30m"}},
               "list": [{"id": "main", "default": true, "name": "Molty"}]},
    "tools": {"profile": "coding", "deny": ["browser"]},
    "logging": {"level": "info", "consoleStyle": "plain"}
  })")) << m.config.dump(2);
  EXPECT_TRUE(config::validate(m.config));
  EXPECT_NE(find_mapped(m, "agents.defaults.heartbeat.every"), nullptr) << "the heartbeat is imported (AT-1)";
  for (const char* path : {"channels", "meta", "gateway.mode", "gateway.tailscale",
                           "agents.list[0].identity", "models.providers.mock.models[0].cost"}) {
    EXPECT_TRUE(has_skip(m, path)) << path << "\n" << skipped_text(m);
  }
  EXPECT_TRUE(has_skip(m, "channels", "not imported"));
  ASSERT_EQ(m.workspaces.size(), 1u);
  EXPECT_EQ(m.workspaces[0].agent_id, "main");
  EXPECT_EQ(m.workspaces[0].source, kFixture / "workspace");
  EXPECT_TRUE(m.workspaces[0].copy);
  EXPECT_EQ(m.workspaces[0].dest, "workspace");
  EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
}

TEST(OpenClawMap, GatewayBindAuthAndSecrets) {
  ConfigMapping m = map_config(json::parse(R"({"gateway": {"bind": "auto", "customBindHost": "10.0.0.2",
      "auth": {"password": "$OC_PASS", "allowTailscale": true, "rateLimit": {"maxAttempts": 3}},
      "trustedProxies": ["10.0.0.1"], "controlUi": {"allowedOrigins": ["https://x"], "basePath": "/oc"},
      "remote": {"url": "wss://x"}, "reload": {"mode": "hot", "debounceMs": 500, "x": 1}}})"),
                               kCtx);
  EXPECT_EQ(m.config["gateway"], json::parse(R"({"bind": "loopback", "customBindHost": "10.0.0.2",
      "auth": {"mode": "password", "password": "${OC_PASS}", "rateLimit": {"maxAttempts": 3}},
      "trustedProxies": ["10.0.0.1"], "controlUi": {"allowedOrigins": ["https://x"]},
      "reload": {"mode": "hot", "debounceMs": 500}})"));
  EXPECT_TRUE(has_skip(m, "gateway.reload.x"));
  EXPECT_THAT(find_mapped(m, "gateway.bind")->note, HasSubstr("\"auto\""));
  EXPECT_THAT(find_mapped(m, "gateway.auth.password")->note, HasSubstr("$NAME shorthand"));
  EXPECT_TRUE(has_skip(m, "gateway.auth.allowTailscale", "Tailscale"));
  EXPECT_TRUE(has_skip(m, "gateway.controlUi.basePath"));
  EXPECT_TRUE(has_skip(m, "gateway.remote", "--url"));
  EXPECT_TRUE(m.warnings.empty());

  ConfigMapping tail = map_config(json::parse(R"({"gateway": {"bind": "tailnet", "auth": {"mode": "token"}}})"), kCtx);
  EXPECT_FALSE(tail.config["gateway"].contains("bind"));
  EXPECT_TRUE(has_skip(tail, "gateway.bind", "Tailscale"));
  ASSERT_EQ(tail.warnings.size(), 1u);
  EXPECT_THAT(tail.warnings[0], HasSubstr("gateway.auth.token is not set"));
}

TEST(OpenClawMap, SecretRefsBecomeEnvReferences) {
  ConfigMapping m = map_config(json::parse(R"({"gateway": {"auth": {"token": {"source": "env", "provider": "default", "id": "GW_TOKEN"},
      "password": {"source": "file", "provider": "vault", "id": "/gw/password"}}},
      "models": {"providers": {"p": {"baseUrl": "http://h", "apiKey": "secretref-env:P_KEY",
        "headers": {"X-A": "plain", "X-B": {"source": "exec", "provider": "x", "id": "y"}}}}}})"),
                               kCtx);
  EXPECT_EQ(m.config["gateway"]["auth"]["token"], "${GW_TOKEN}");
  EXPECT_FALSE(m.config["gateway"]["auth"].contains("password"));
  EXPECT_FALSE(m.config["gateway"]["auth"].contains("mode"));  // the password was not imported
  EXPECT_TRUE(has_skip(m, "gateway.auth.password", "secret source \"file\""));
  EXPECT_EQ(m.config["models"]["providers"]["p"]["apiKey"], "${P_KEY}");
  EXPECT_EQ(m.config["models"]["providers"]["p"]["headers"], json::parse(R"({"X-A": "plain"})"));
  EXPECT_TRUE(has_skip(m, "models.providers.p.headers.X-B", "\"exec\""));
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, ProvidersAndModels) {
  ConfigMapping m = map_config(json::parse(R"({"models": {"mode": "merge", "proxy": "http://proxy:8080", "providers": {
      "google": {"baseUrl": "https://g", "api": "bedrock-converse-stream", "models": []},
      "nourl": {"api": "anthropic-messages", "models": []},
      "lab": {"baseUrl": "http://127.0.0.1:8080/v1", "auth": "oauth", "authHeader": true, "models": [
        {"id": "a", "api": "openai-completions", "compat": {"supportsStore": false}},
        {"id": "b", "api": "openai-responses"},
        {"name": "no id"},
        {"id": "c", "input": ["text", "image"], "reasoning": true}]}}},
    "agents": {"defaults": {"model": {"primary": "lab/a", "fallbacks": ["lab/b", "anthropic/claude"]}}}})"),
                               kCtx);
  EXPECT_EQ(m.config["models"], json::parse(R"({"providers": {"lab": {"baseUrl": "http://127.0.0.1:8080/v1",
      "models": [{"id": "a"}, {"id": "c", "input": ["text", "image"], "reasoning": true}]}}})"));
  EXPECT_TRUE(has_skip(m, "models.providers.google", "api \"bedrock-converse-stream\" is not supported"));
  EXPECT_TRUE(has_skip(m, "models.providers.nourl", "no baseUrl"));
  EXPECT_TRUE(has_skip(m, "models.providers.lab.models[1]", "differs from its provider's"));
  EXPECT_TRUE(has_skip(m, "models.providers.lab.models[2]", "non-empty string id"));
  EXPECT_TRUE(has_skip(m, "models.providers.lab.models[0].compat"));
  EXPECT_TRUE(has_skip(m, "models.providers.lab.auth"));
  EXPECT_TRUE(has_skip(m, "models.mode"));
  EXPECT_TRUE(has_skip(m, "models.proxy", "HTTPS_PROXY"));
  // lab/b was skipped and anthropic/claude is OpenClaw-built-in: both flagged.
  std::string warnings;
  for (const auto& w : m.warnings) warnings += w + "\n";
  EXPECT_THAT(warnings, HasSubstr("agents.defaults.model.fallbacks[0]: \"lab/b\" is not listed"));
  EXPECT_THAT(warnings, HasSubstr("agents.defaults.model.fallbacks[1]: \"anthropic/claude\" is not listed"));
  EXPECT_THAT(warnings, HasSubstr("models.providers.lab.auth is \"oauth\""));
  EXPECT_THAT(warnings, ::testing::Not(HasSubstr("\"lab/a\"")));
}

TEST(OpenClawMap, AgentsListIdsAndPerAgentKeys) {
  ConfigMapping m = map_config(json::parse(R"({"agents": {
      "defaults": {"thinkingDefault": "adaptive", "maxConcurrent": 2, "sandbox": {"mode": "all"},
                   "subagents": {"maxConcurrent": 3, "maxSpawnDepth": 2}},
      "list": [{"id": "Work Bot", "model": "lab/x", "tools": {"deny": ["exec"]}},
               {"id": "main", "default": true, "agentDir": "/x"},
               {"id": "work-bot", "name": "dup"},
               {"name": "no id"}]}})"),
                               kCtx);
  // sandbox and subagents have OpenClaw's shape in Pincer: copied, checked by the schema.
  EXPECT_EQ(m.config["agents"], json::parse(R"({"defaults": {"maxConcurrent": 2, "sandbox": {"mode": "all"},
      "subagents": {"maxConcurrent": 3, "maxSpawnDepth": 2}},
      "list": [{"id": "work-bot", "model": "lab/x"}, {"id": "main", "default": true}]})"));
  EXPECT_THAT(find_mapped(m, "agents.list[0].id")->note, HasSubstr("normalised from \"Work Bot\""));
  EXPECT_TRUE(has_skip(m, "agents.defaults.thinkingDefault", "adaptive"));
  EXPECT_TRUE(has_skip(m, "agents.list[0].tools", "per-agent \"tools\""));
  EXPECT_TRUE(has_skip(m, "agents.list[1].agentDir"));
  EXPECT_TRUE(has_skip(m, "agents.list[2]", "duplicate agent id \"work-bot\""));
  EXPECT_TRUE(has_skip(m, "agents.list[3]", "string id"));
  // The default agent is "main" (default: true), so it gets workspace/, work-bot workspace-work-bot/.
  ASSERT_EQ(m.workspaces.size(), 2u);
  EXPECT_EQ(m.workspaces[0].agent_id, "work-bot");
  EXPECT_EQ(m.workspaces[0].source, fs::path("/home/u/.openclaw/workspace-work-bot"));
  EXPECT_EQ(m.workspaces[0].dest, "workspace-work-bot");
  EXPECT_EQ(m.workspaces[1].source, fs::path("/home/u/.openclaw/workspace"));
  EXPECT_EQ(m.workspaces[1].dest, "workspace");
}

TEST(OpenClawMap, AgentsKeyedByIdAreReadAsTheList) {
  // OpenClaw 2026.9's `agents.entries` (written by `openclaw models set --agent`), without a list.
  ConfigMapping m = map_config(json::parse(R"({"agents": {
      "entries": {"ops": {"model": "lab/x"}, "main": {"default": true, "name": "Main"}}}})"),
                               kCtx);
  EXPECT_EQ(m.config["agents"]["list"], json::parse(R"([{"id": "main", "default": true, "name": "Main"},
      {"id": "ops", "model": "lab/x"}])"));
  ASSERT_EQ(m.workspaces.size(), 2u);
  EXPECT_EQ(m.workspaces[0].agent_id, "main");
  EXPECT_EQ(m.workspaces[0].dest, "workspace");
  EXPECT_EQ(m.workspaces[1].dest, "workspace-ops");
  bool noted = false;
  for (const auto& w : m.warnings) noted |= w.find("agents.entries") != std::string::npos;
  EXPECT_TRUE(noted);
  // With a list as well, OpenClaw uses the list: the entries are reported as not imported.
  ConfigMapping both = map_config(json::parse(R"({"agents": {"list": [{"id": "main"}], "entries": {"ops": {}}}})"), kCtx);
  EXPECT_EQ(both.config["agents"]["list"].size(), 1u);
  EXPECT_TRUE(has_skip(both, "agents.entries"));
}

TEST(OpenClawMap, HeartbeatSettingsAreImported) {
  ConfigMapping m = map_config(json::parse(R"({"agents": {
      "defaults": {"heartbeat": {"every": "1h", "target": "owner", "activeHours": {"start": "08:00", "end": "22:00"},
                                 "ackMaxChars": 50, "lightContext": true}},
      "list": [{"id": "ops", "heartbeat": {"every": "15m", "target": "telegram", "to": "123"}}]}})"),
                               kCtx);
  EXPECT_EQ(m.config["agents"]["defaults"]["heartbeat"],
            json::parse(R"({"every": "1h", "activeHours": {"start": "08:00", "end": "22:00"}, "ackMaxChars": 50})"));
  EXPECT_EQ(m.config["agents"]["list"][0]["heartbeat"], json::parse(R"({"every": "15m", "target": "telegram", "to": "123"})"));
  EXPECT_TRUE(has_skip(m, "agents.defaults.heartbeat.target", "owner"));
  EXPECT_TRUE(has_skip(m, "agents.defaults.heartbeat.lightContext", "not supported"));
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, WorkspacesCopiedSharedOrUsedInPlace) {
  ConfigMapping m = map_config(json::parse(R"({"agents": {
      "defaults": {"workspace": "~/.openclaw/ws-main"},
      "list": [{"id": "main"}, {"id": "twin", "workspace": "ws-main"}, {"id": "proj", "workspace": "~/code/proj"}]}})"),
                               kCtx);
  ASSERT_EQ(m.workspaces.size(), 3u);
  // main: agents.defaults.workspace, inside the OpenClaw dir → copied to Pincer's default place.
  EXPECT_EQ(m.workspaces[0].from, "agents.defaults.workspace");
  EXPECT_EQ(m.workspaces[0].source, fs::path("/home/u/.openclaw/ws-main"));
  EXPECT_TRUE(m.workspaces[0].copy);
  EXPECT_EQ(m.workspaces[0].dest, "workspace");
  // twin: the same directory (relative to the OpenClaw dir) → shares main's copy.
  EXPECT_FALSE(m.workspaces[1].copy);
  EXPECT_EQ(m.workspaces[1].dest, "workspace");
  // proj: the user's own directory → used in place.
  EXPECT_FALSE(m.workspaces[2].copy);
  EXPECT_EQ(m.workspaces[2].dest, "");
  EXPECT_EQ(m.config["agents"], json::parse(R"({"list": [{"id": "main"}, {"id": "twin", "workspace": "workspace"},
      {"id": "proj", "workspace": "/home/u/code/proj"}]})"));
  EXPECT_THAT(find_mapped(m, "agents.list[2].workspace")->note, HasSubstr("used in place"));
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, ToolsLoggingAndTopLevelReasons) {
  ConfigMapping m = map_config(json::parse(R"({"tools": {"profile": "full", "alsoAllow": ["x"], "allow": ["group:fs"],
      "exec": {"timeoutSec": 60, "host": "sandbox"}, "web": {}},
      "logging": {"level": "silent", "consoleStyle": "json", "file": "/tmp/oc.log", "consoleLevel": "warn"},
      "plugins": {"load": {"paths": ["x"]}, "entries": {"memory-core": {"config": {"dreaming": {"enabled": true}}},
                                                       "voice-call": {"enabled": true}}},
      "skills": {"allowBundled": ["summarize"], "noSuchKey": 1},
      "cron": {}, "env": {"vars": {"A": "1"}}, "something": 1})"),
                               kCtx);
  EXPECT_EQ(m.config["tools"], json::parse(R"({"profile": "full", "alsoAllow": ["x"], "allow": ["group:fs"],
      "exec": {"timeoutSec": 60}})"));
  EXPECT_EQ(m.config["logging"], json::parse(R"({"level": "off", "consoleStyle": "json"})"));
  EXPECT_EQ(map_config(json::parse(R"({"logging": {"level": "fatal"}})"), kCtx).config["logging"]["level"], "error");
  EXPECT_TRUE(has_skip(m, "tools.exec.host"));
  EXPECT_TRUE(has_skip(m, "tools.web"));
  EXPECT_TRUE(has_skip(m, "logging.file", "gateway.log"));
  EXPECT_TRUE(has_skip(m, "logging.consoleLevel"));
  EXPECT_TRUE(has_skip(m, "plugins.load", "plugins cannot run"));
  EXPECT_TRUE(has_skip(m, "plugins.entries.voice-call", "active-memory and memory-core are built in"));
  EXPECT_EQ(m.config["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["enabled"], true);
  // A section in OpenClaw's shape: copied, and what Pincer's schema does not know is named.
  EXPECT_EQ(m.config["skills"], json::parse(R"({"allowBundled": ["summarize"]})"));
  EXPECT_TRUE(has_skip(m, "skills.noSuchKey", "not valid in Pincer"));
  EXPECT_TRUE(config::validate(m.config));
  EXPECT_TRUE(has_skip(m, "cron", "cron/jobs.json is copied"));
  EXPECT_TRUE(has_skip(m, "env", "export them"));
  EXPECT_TRUE(has_skip(m, "something", "no Pincer equivalent"));
}

TEST(OpenClawMap, HooksAreImportedExceptWhatCannotRunInPincer) {
  ConfigMapping m = map_config(json::parse(R"({"hooks": {"enabled": true, "token": "$HOOK_TOKEN", "path": "/ingest",
      "allowedAgentIds": ["main"], "presets": ["gmail"], "transformsDir": "t",
      "gmail": {"account": "me@example.com", "allowUnsafeExternalContent": false},
      "mappings": [{"match": {"path": "x"}, "transform": {"module": "x.js"}},
                   {"match": {"path": "gh"}, "messageTemplate": "PR {{title}}"}],
      "internal": {"enabled": true}}})"),
                               kCtx);
  EXPECT_EQ(m.config["hooks"], json::parse(R"({"enabled": true, "token": "${HOOK_TOKEN}", "path": "/ingest",
      "allowedAgentIds": ["main"], "presets": ["gmail"], "gmail": {"allowUnsafeExternalContent": false},
      "mappings": [{"match": {"path": "gh"}, "messageTemplate": "PR {{title}}"}]})"));
  EXPECT_TRUE(has_skip(m, "hooks.mappings[0]", "JavaScript transform"));
  EXPECT_TRUE(has_skip(m, "hooks.transformsDir"));
  EXPECT_TRUE(has_skip(m, "hooks.internal", "HOOK.md"));
  EXPECT_TRUE(has_skip(m, "hooks.gmail", "Gmail watcher"));
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, McpServersAreImported) {
  ConfigMapping m = map_config(json::parse(R"({"mcp": {"servers": {
      "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"N": 1}, "cwd": "/tmp"},
      "remote": {"url": "https://example.com/mcp", "transport": "streamable-http", "headers": {"Authorization": "Bearer x"},
                 "connectionTimeoutMs": 5000, "lazy": true}}}})"),
                               kCtx);
  EXPECT_EQ(m.config["mcp"]["servers"]["files"]["command"], "npx");
  EXPECT_EQ(m.config["mcp"]["servers"]["files"]["env"]["N"], 1);
  EXPECT_EQ(m.config["mcp"]["servers"]["remote"]["headers"]["Authorization"], "Bearer x");
  EXPECT_EQ(m.config["mcp"]["servers"]["remote"]["connectionTimeoutMs"], 5000);
  EXPECT_FALSE(m.config["mcp"]["servers"]["remote"].contains("lazy")) << "a key Pincer lacks is removed";
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, TheOpenAiHttpEndpointsAreImported) {
  ConfigMapping m = map_config(json::parse(R"({"gateway": {"http": {"endpoints": {
      "chatCompletions": {"enabled": true, "images": {"allowUrl": false}},
      "responses": {"enabled": false, "maxBodyBytes": 1000},
      "embeddings": {"enabled": true}}}}})"),
                               kCtx);
  EXPECT_EQ(m.config["gateway"]["http"]["endpoints"]["chatCompletions"]["enabled"], true);
  EXPECT_EQ(m.config["gateway"]["http"]["endpoints"]["responses"]["enabled"], false);
  EXPECT_FALSE(m.config["gateway"]["http"]["endpoints"]["chatCompletions"].contains("images"));
  EXPECT_TRUE(has_skip(m, "gateway.http.endpoints.chatCompletions.images", "no Pincer equivalent"));
  EXPECT_TRUE(has_skip(m, "gateway.http.endpoints.embeddings", "/v1/chat/completions and /v1/responses only"));
  EXPECT_TRUE(config::validate(m.config));
}

TEST(OpenClawMap, ValuesPincerRejectsAreRemovedWithTheSchemaMessage) {
  ConfigMapping m = map_config(json::parse(R"({"gateway": {"port": 70000, "customBindHost": "not-an-ip",
      "auth": {"rateLimit": {"maxAttempts": 3, "burst": 9}, "trustedProxy": {"allowUsers": ["a"]}}},
      "models": {"providers": {"p": {"baseUrl": "http://h", "models": [{"id": "m", "contextWindow": 0}]}}},
      "tools": {"profile": "everything"}})"),
                               kCtx);
  EXPECT_TRUE(config::validate(m.config)) << m.config.dump();
  EXPECT_EQ(m.config, json::parse(R"({"gateway": {"auth": {"rateLimit": {"maxAttempts": 3}}},
      "models": {"providers": {"p": {"baseUrl": "http://h", "models": [{"id": "m"}]}}}, "tools": {}})"));
  EXPECT_TRUE(has_skip(m, "gateway.port", "not valid in Pincer: expected integer 1..65535, got 70000"));
  EXPECT_TRUE(has_skip(m, "gateway.customBindHost", "not valid in Pincer"));
  EXPECT_TRUE(has_skip(m, "gateway.auth.rateLimit.burst", "unknown key"));
  EXPECT_TRUE(has_skip(m, "gateway.auth.trustedProxy", "userHeader: missing required key"));
  EXPECT_TRUE(has_skip(m, "models.providers.p.models[0].contextWindow", "not valid in Pincer"));
  EXPECT_TRUE(has_skip(m, "tools.profile", "not valid in Pincer"));
  EXPECT_EQ(find_mapped(m, "gateway.port"), nullptr);
}

TEST(OpenClawMap, NotAnObject) {
  ConfigMapping m = map_config(json::array(), kCtx);
  EXPECT_EQ(m.config, json::object());
  EXPECT_TRUE(has_skip(m, "(root)", "must be an object"));
  ASSERT_EQ(m.workspaces.size(), 1u);
  EXPECT_EQ(m.workspaces[0].agent_id, "main");
}

// ---- run_import ---------------------------------------------------------------------------------

// A copy of the fixture home (so that tests may change it) and an empty Pincer home next to it.
struct ImportFixture : ::testing::Test {
  TempDir dir;
  fs::path source = dir.path() / "openclaw";
  fs::path target = dir.path() / "pincer";
  void SetUp() override { fs::copy(kFixture, source, fs::copy_options::recursive); }
  ImportOptions options(bool dry_run = false, bool force = false) const {
    ImportOptions o;
    o.source = source;
    o.target = target;
    o.dry_run = dry_run;
    o.force = force;
    o.env = env_of({{"HOME", dir.path().string()}, {"OPENCLAW_TEST_GATEWAY_TOKEN", "t"}});
    o.now_ms = 1'772'720'521'123;
    return o;
  }
  static std::vector<std::string> listing(const fs::path& root) {
    std::vector<std::string> out;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root)) out.push_back(e.path().lexically_relative(root).string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(ImportFixture, DryRunReportsEverythingAndWritesNothing) {
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(out.report.written);
  ASSERT_EQ(out.report.copied.size(), 4u);
  EXPECT_EQ(out.report.copied[0].kind, "workspace");
  EXPECT_EQ(out.report.copied[0].files, 2u);
  EXPECT_EQ(out.report.copied[1].kind, "sessions");
  EXPECT_EQ(out.report.copied[1].count, 1u);
  EXPECT_EQ(out.report.copied[1].files, 2u);
  EXPECT_EQ(out.report.copied[1].bytes, fs::file_size(source / "agents/main/sessions/sessions.json") +
                                            fs::file_size(source / "agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl"));
  EXPECT_EQ(out.report.copied[2].kind, "devices");
  EXPECT_EQ(out.report.copied[2].count, 1u);
  EXPECT_EQ(out.report.copied[3].kind, "cron");
  EXPECT_EQ(out.report.copied[3].count, 1u);
  EXPECT_THAT(out.report.copied[3].note, HasSubstr("schedules them at its next start"));
  // The JSON layout is counted as the SQLite one is (the fixture: 1 session, its transcript with
  // 2 messages, 1 cron job, no auth profiles).
  EXPECT_EQ(out.report.counts["sessions"], 1u);
  EXPECT_EQ(out.report.counts["transcripts"], 1u);
  EXPECT_EQ(out.report.counts["messages"], 2u);
  EXPECT_EQ(out.report.counts["cron jobs"], 1u);
  EXPECT_EQ(out.report.counts["auth profiles"], 0u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would skip channels: not imported: set up channels again"));
  EXPECT_THAT(text, HasSubstr("would skip devices/pending.json"));
  EXPECT_THAT(text, HasSubstr("1 archived transcript(s)"));
  EXPECT_THAT(text, HasSubstr("Dry run: nothing was written"));
  // OPENCLAW_TEST_MOCK_URL is not set in this environment: warned, not an error.
  EXPECT_THAT(text, HasSubstr("models.providers.mock.baseUrl uses ${OPENCLAW_TEST_MOCK_URL}, which is not set"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("OPENCLAW_TEST_GATEWAY_TOKEN}, which")));
  const json j = to_json(out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["dryRun"], true);
  EXPECT_EQ(j["config"]["sourceExists"], true);
  EXPECT_THAT(j.dump(), ::testing::Not(HasSubstr("test-key")));  // no config values, no secrets
}

TEST_F(ImportFixture, ImportsThenRefusesThenForceMovesAside) {
  auto first = run_import(options());
  ASSERT_EQ(first.exit_code, kExitOk) << (first.error ? first.error->message : "");
  EXPECT_TRUE(first.report.written);
  const auto transcript = fs::path("agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl");
  EXPECT_EQ(slurp(target / transcript), slurp(source / transcript));
  EXPECT_EQ(slurp(target / "agents/main/sessions/sessions.json"), slurp(source / "agents/main/sessions/sessions.json"));
  EXPECT_EQ(slurp(target / "devices/paired.json"), slurp(source / "devices/paired.json"));
  EXPECT_EQ(slurp(target / "cron/jobs.json"), slurp(source / "cron/jobs.json"));
  EXPECT_EQ(slurp(target / "workspace/memory/2026-03-05.md"), slurp(source / "workspace/memory/2026-03-05.md"));
  EXPECT_FALSE(fs::exists(target / "devices/pending.json"));
  EXPECT_FALSE(fs::exists(target / "agents/main/sessions/0a0b0c0d-1111-4222-8333-444455556666.jsonl.reset.2026-03-05T14-00-00.000Z"));
  for (const auto& rel : listing(target)) EXPECT_EQ(rel.find(".openclaw-import-"), std::string::npos) << rel;
  struct stat st {};
  ASSERT_EQ(::stat((target / "pincer.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((target / "workspace/memory").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // The written file loads as the gateway loads it.
  auto loaded = config::load(target / "pincer.json",
                             env_of({{"OPENCLAW_TEST_GATEWAY_TOKEN", "t"}, {"OPENCLAW_TEST_MOCK_URL", "http://127.0.0.1:9/v1"}}));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->effective["gateway"]["auth"]["token"], "t");

  const std::string written = slurp(target / "pincer.json");
  auto again = run_import(options());
  EXPECT_EQ(again.exit_code, kExitFailed);
  ASSERT_TRUE(again.error);
  EXPECT_EQ(again.error->code, "TARGET_EXISTS");
  EXPECT_THAT(again.error->message, HasSubstr((target / "pincer.json").string()));
  EXPECT_THAT(again.error->message, HasSubstr("--force"));
  EXPECT_EQ(again.report.conflicts.size(), 5u);
  EXPECT_EQ(slurp(target / "pincer.json"), written);

  fs::remove(target / "workspace" / "AGENTS.md");  // a change the forced import must not lose
  auto forced = run_import(options(false, /*force=*/true));
  ASSERT_EQ(forced.exit_code, kExitOk) << (forced.error ? forced.error->message : "");
  ASSERT_EQ(forced.report.backups.size(), 5u);
  const fs::path moved = target / "workspace.pre-import-2026-03-05T14-22-01.123Z";
  EXPECT_EQ(forced.report.backups[0].backup, moved);
  EXPECT_TRUE(fs::is_directory(moved));
  EXPECT_FALSE(fs::exists(moved / "AGENTS.md"));
  EXPECT_TRUE(fs::exists(target / "workspace" / "AGENTS.md"));
  EXPECT_EQ(slurp(target / "pincer.json.pre-import-2026-03-05T14-22-01.123Z"), written);
}

TEST_F(ImportFixture, FailedCommitLeavesNothingHalfImported) {
  fs::create_directories(target);
  std::ofstream(target / "agents") << "a file where a directory must go";
  auto out = run_import(options());
  EXPECT_EQ(out.exit_code, kExitFailed);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "IO_ERROR");
  EXPECT_THAT(out.error->message, HasSubstr((target / "agents").string()));
  // The workspace had been moved into place before the failure: it was moved back out.
  EXPECT_EQ(listing(target), (std::vector<std::string>{"agents", "gateway.lock"}));
}

TEST_F(ImportFixture, RefusesWhileAGatewayOwnsTheTarget) {
  fs::create_directories(target);
  auto held = store::InstanceLock::acquire(target / "gateway.lock");
  ASSERT_TRUE(held);
  auto out = run_import(options());
  EXPECT_EQ(out.exit_code, kExitFailed);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "GATEWAY_ALREADY_RUNNING");
  EXPECT_EQ(listing(target), (std::vector<std::string>{"gateway.lock"}));
  EXPECT_EQ(run_import(options(/*dry_run=*/true)).exit_code, kExitOk);  // a dry run only reads
}

TEST_F(ImportFixture, EmptyTargetDirectoriesDoNotCount) {
  fs::create_directories(target / ".openclaw-import-Xy12ab/workspace");  // left by a killed import
  fs::create_directories(target / "workspace");
  fs::create_directories(target / "agents/main/sessions");
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_TRUE(fs::exists(target / "workspace/AGENTS.md"));
  EXPECT_TRUE(out.report.backups.empty());
  EXPECT_FALSE(fs::exists(target / ".openclaw-import-Xy12ab"));
  EXPECT_THAT(to_text(out), HasSubstr("left behind by an interrupted import"));
}

TEST_F(ImportFixture, WorkspaceLinksAndOtherDirectories) {
  fs::create_symlink("AGENTS.md", source / "workspace" / "inside-link");
  fs::create_symlink("/etc/passwd", source / "workspace" / "outside-link");
  fs::create_directories(source / "credentials");
  fs::create_directories(source / "workspace-old");
  std::ofstream(source / ".env") << "OPENCLAW_TEST_MOCK_URL=http://x\n";
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_TRUE(fs::is_symlink(target / "workspace" / "inside-link"));
  EXPECT_EQ(fs::read_symlink(target / "workspace" / "inside-link"), "AGENTS.md");
  EXPECT_FALSE(fs::exists(fs::symlink_status(target / "workspace" / "outside-link")));
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("skipped  workspace/outside-link: symbolic link to /etc/passwd points outside"));
  EXPECT_THAT(text, HasSubstr("skipped  credentials/: channel logins"));
  EXPECT_THAT(text, HasSubstr("skipped  workspace-old/: no agent in openclaw.json uses this workspace"));
  EXPECT_THAT(text, HasSubstr("skipped  .env: Pincer does not read .env files"));
  EXPECT_THAT(text, HasSubstr("(OpenClaw may have read it from its .env"));
}

TEST_F(ImportFixture, OpenClawsOwnCronJobsAreLeftOutOfTheJsonLayoutsJobs) {
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << R"({"version": 1, "jobs": [
    {"id": "hb", "name": "heartbeat", "declarationKey": "heartbeat:main", "schedule": {"kind": "every", "everyMs": 1800000},
     "sessionTarget": "main", "wakeMode": "now", "payload": {"kind": "systemEvent", "text": "HEARTBEAT"}},
    {"id": "mine", "name": "water", "enabled": true, "schedule": {"kind": "cron", "expr": "0 9 * * *"},
     "sessionTarget": "isolated", "wakeMode": "now", "payload": {"kind": "agentTurn", "message": "water"}}]})";
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const json jobs = json::parse(slurp(target / "cron/jobs.json"));
  EXPECT_EQ(jobs["version"], 1);
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["id"], "mine");
  EXPECT_THAT(to_text(out), HasSubstr("skipped  cron/jobs.json job_id=hb: \"heartbeat\" is managed by OpenClaw"));
  for (const auto& c : out.report.copied) {
    if (c.kind == "cron") {
      EXPECT_EQ(c.count, 1u);
    }
  }
}

TEST_F(ImportFixture, CorruptStateFilesAreSkippedWithTheirPlace) {
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << "{\n  \"version\": 1,\n  jobs: [\n";
  std::ofstream(source / "agents/main/sessions/sessions.json", std::ios::trunc) << "{\"agent:main:main\": 5}";
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would skip cron/jobs.json: invalid, not imported: " + (source / "cron/jobs.json").string() + ":4:1"));
  EXPECT_THAT(text, HasSubstr("would skip agents/main/sessions: invalid, not imported"));
  for (const auto& c : out.report.copied) EXPECT_NE(c.kind, "cron");
  for (const auto& c : out.report.copied) EXPECT_NE(c.kind, "sessions");
}

TEST_F(ImportFixture, DryRunSaysWhatItWouldDoAndNamesWhereAFileIsMalformed) {
  std::ofstream(source / "agents/main/sessions/sessions.json", std::ios::trunc) << "{\n  \"agent:main:main\": {},, }\n";
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would copy cron jobs"));
  EXPECT_THAT(text, Not(HasSubstr("copied ")));
  EXPECT_THAT(text, Not(HasSubstr("  mapped ")));
  EXPECT_THAT(text, HasSubstr("would skip agents/main/sessions: invalid, not imported: " +
                              (source / "agents/main/sessions/sessions.json").string() +
                              ":2:25: unexpected ',' (expected a quoted key)"));
  EXPECT_THAT(text, Not(HasSubstr("syntax error while parsing")));
  EXPECT_THAT(text, Not(HasSubstr("string literal")));
}

TEST_F(ImportFixture, JsonLayoutTranscriptFlawsAreNamedAndCountsReadBack) {
  const auto rel = fs::path("agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl");
  std::ofstream(source / rel, std::ios::app) << "{not json\n";
  // Two jobs with one id: the gateway's cron store would refuse the whole file.
  const std::string jobs = slurp(source / "cron/jobs.json");
  json doc = json::parse(jobs);
  doc["jobs"].push_back(doc["jobs"][0]);
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << doc.dump(2);
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_EQ(slurp(target / rel), slurp(source / rel)) << "copied as it is, flaws included";
  EXPECT_EQ(out.report.counts["messages"], 2u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr(rel.string() + ":6: invalid JSON"));
  EXPECT_THAT(text, HasSubstr("Pincer skips that line"));
  EXPECT_THAT(text, HasSubstr("skipped  cron/jobs.json: invalid, not imported"));
  EXPECT_FALSE(fs::exists(target / "cron/jobs.json"));
  EXPECT_EQ(out.report.counts["cron jobs"], 0u);
}

TEST_F(ImportFixture, BadSources) {
  auto o = options();
  o.source = dir.path() / "missing";
  auto missing = run_import(o);
  EXPECT_EQ(missing.exit_code, kExitBadSource);
  EXPECT_EQ(missing.error->message, (dir.path() / "missing").string() + ": no such directory (name the OpenClaw state dir with --from)");

  fs::create_directories(dir.path() / "empty");  // a directory, but no OpenClaw state in it
  o.source = dir.path() / "empty";
  auto empty = run_import(o);
  EXPECT_EQ(empty.exit_code, kExitBadSource);
  EXPECT_THAT(empty.error->message, HasSubstr("not an OpenClaw state dir"));

  o = options();
  o.target = source / "pincer";  // inside the source: staging would write into it
  auto overlap = run_import(o);
  EXPECT_EQ(overlap.exit_code, kExitBadSource);
  EXPECT_THAT(overlap.error->message, HasSubstr("overlap"));

  std::ofstream(source / "openclaw.json", std::ios::trunc) << "{\n  gateway: {\n    port: 18789,,\n  },\n}\n";
  auto invalid = run_import(options());
  EXPECT_EQ(invalid.exit_code, kExitBadSource);
  EXPECT_EQ(invalid.error->code, "CONFIG_INVALID");
  EXPECT_THAT(invalid.error->message, ::testing::StartsWith((source / "openclaw.json").string() + ":3:17: "));
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(ImportFixture, WithoutOpenClawJsonOnlyStateIsImported) {
  fs::remove(source / "openclaw.json");
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_FALSE(fs::exists(target / "pincer.json"));
  EXPECT_TRUE(fs::exists(target / "workspace/AGENTS.md"));
  EXPECT_TRUE(fs::exists(target / "agents/main/sessions/sessions.json"));
  EXPECT_THAT(out.report.warnings[0], HasSubstr("no openclaw.json"));
}

TEST_F(ImportFixture, AuthProfilesComeOverWithTheirCooldownsAndBrokenOnesAreReported) {
  const json profiles = {{"version", 1},
                         {"profiles", {{"openai:work", {{"type", "api_key"}, {"provider", "openai"}, {"key", "sk-work-0000"}}},
                                       {"openai:home", {{"type", "api_key"}, {"provider", "openai"}, {"key", "sk-home-1111"}}}}},
                         {"usageStats", {{"openai:work", {{"disabledUntil", 1'900'000'000'000}, {"disabledReason", "billing"}}}}}};
  dir.write("openclaw/agents/main/agent/auth-profiles.json", profiles.dump());
  dir.write("openclaw/agents/main/agent/models.json", "{}");
  json with_bad = profiles;
  with_bad["profiles"]["openai:odd"] = {{"type", "magic"}, {"provider", "openai"}};
  dir.write("openclaw/agents/main/agent/auth-profiles.json", with_bad.dump());
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const auto copied = std::find_if(out.report.copied.begin(), out.report.copied.end(),
                                   [](const CopiedItem& c) { return c.kind == "auth-profiles"; });
  ASSERT_NE(copied, out.report.copied.end());
  EXPECT_EQ(copied->agent_id, "main");
  EXPECT_EQ(copied->count, 2u);
  EXPECT_EQ(out.report.counts["auth profiles"], 2u) << "the profiles Pincer can use";
  const fs::path file = target / "agents/main/agent/auth-profiles.json";
  EXPECT_EQ(json::parse(slurp(file)), with_bad) << "the cooldowns come over too; the file is copied as it is";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("auth profiles of agent main"));
  EXPECT_THAT(text, HasSubstr("2 profiles"));
  EXPECT_THAT(text, HasSubstr("agents/main/agent/models.json"));
  EXPECT_THAT(text, HasSubstr("profile openai:odd: type must be api_key, token or oauth"));
  EXPECT_THAT(to_json(out).dump(), ::testing::Not(HasSubstr("sk-work-0000"))) << "the report shows no secret";

  TempDir other;
  fs::copy(kFixture, other.path() / "openclaw", fs::copy_options::recursive);
  other.write("openclaw/agents/main/agent/auth-profiles.json", R"({"profiles": []})");
  ImportOptions o = options();
  o.source = other.path() / "openclaw";
  o.target = other.path() / "pincer";
  auto broken = run_import(o);
  ASSERT_EQ(broken.exit_code, kExitOk) << (broken.error ? broken.error->message : "");
  EXPECT_FALSE(fs::exists(o.target / "agents/main/agent/auth-profiles.json"));
  EXPECT_THAT(to_text(broken), HasSubstr("profiles must be an object"));
}

}  // namespace
}  // namespace pincer::cli::openclaw
