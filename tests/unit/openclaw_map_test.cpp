// `pincer import openclaw`'s config side (cli/openclaw_import.h): config::resolve_file and
// env_references (the loader pieces it reuses: includes without schema validation, env references
// kept and listed with their paths) and the pure mapping map_config() — gateway, secrets and
// SecretRefs, providers and models, agents, heartbeat, workspaces, tools, hooks, MCP servers, the
// OpenAI HTTP endpoints, and every skipped key with its reason. run_import() is tested in
// openclaw_import_test.cpp; shared helpers in openclaw_import_test_support.h.
#include "cli/openclaw_import.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.h"
#include "openclaw_import_test_support.h"
#include "test_helpers.h"

namespace pincer::cli::openclaw::openclaw_map_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using pincer::test_helpers::env_of;
using openclaw_import_test_support::kFixture;
using openclaw_import_test_support::TempDir;

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

}  // namespace
}  // namespace pincer::cli::openclaw::openclaw_map_test
