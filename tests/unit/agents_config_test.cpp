// Agent configuration (agent/agents_config.h, agent/model_registry.h): the models/agents/tools
// config schema (exact violation messages, defaults), agent resolution (default agent, workspaces,
// model and fallback inheritance, duplicate ids, model choice and thinking level) and the model
// registry (specs from config, resolution, error messages, `models list` rows, model refs). The
// workspace, bootstrap, system prompt and tool-result cap are in agent_context_test.cpp.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "core/config.h"
#include "test_helpers.h"

namespace pincer::agent::agents_config_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::ElementsAre;
using pincer::test_helpers::env_of;

std::string violations_of(const json& doc) {
  Status st = config::validate(doc);
  return st.ok() ? "" : st.error().message;
}

// The effective config of a document (validated, defaults filled in).
json effective(const std::string& text) {
  json doc = json::parse(text);
  EXPECT_EQ(violations_of(doc), "") << text;
  return config::with_defaults(doc);
}

// ---- config schema: models, agents, tools --------------------------------------------------------

struct SchemaCase {
  const char* doc;
  const char* message;  // "" = valid
};

TEST(AgentConfigSchema, ViolationMessagesAreExact) {
  const SchemaCase cases[] = {
      // models
      {R"({"models": {"providers": {"openai": {"baseUrl": "https://api.openai.com/v1", "apiKey": "k",
           "api": "openai-responses", "headers": {"X-A": "b"},
           "models": [{"id": "gpt-4.1", "name": "GPT-4.1", "contextWindow": 1047576, "maxTokens": 32768,
                       "reasoning": false, "input": ["text", "image"]}]}}}})",
       ""},
      {R"({"models": {"providers": {"local": {"models": [{"id": "m"}]}}}})",
       "models.providers.local.baseUrl: missing required key (expected http:// or https:// URL with a host)"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "api": "gemini"}}}})",
       R"(models.providers.p.api: expected one of openai-completions|openai-responses|anthropic-messages|ollama|google-generative-ai, got "gemini")"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": [{"name": "x"}]}}}})",
       "models.providers.p.models[0].id: missing required key (expected string)"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": [{"id": "m", "contextWindow": 0}]}}}})",
       "models.providers.p.models[0].contextWindow: expected integer 1..2147483647, got 0"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": [{"id": "m", "input": ["text", "audio"]}]}}}})",
       R"(models.providers.p.models[0].input[1]: expected one of text|image, got "audio")"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": [{"id": "m", "reasoning": "yes"}]}}}})",
       R"(models.providers.p.models[0].reasoning: expected boolean, got "yes")"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "headers": {"X": 1}}}}})",
       "models.providers.p.headers.X: expected string, got number"},
      {R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": {"id": "m"}}}}})",
       "models.providers.p.models: expected array of object, got object"},
      {R"({"models": {"provider": {}}})", "models.provider: unknown key, did you mean `providers`? (expected one of providers)"},
      // agents
      {R"({"agents": {"defaults": {"model": {"primary": "p/m", "fallbacks": ["q/n"]}, "workspace": "~/ws",
           "thinkingDefault": "high", "timeoutSeconds": 60, "contextTokens": 32000, "maxConcurrent": 2,
           "bootstrapMaxChars": 1000, "bootstrapTotalMaxChars": 5000, "bootstrapTruncationWarning": "always"},
           "list": [{"id": "main", "default": true, "name": "Main", "workspace": "/w", "model": "p/m"},
                    {"id": "work-2", "model": {"primary": "q/n", "fallbacks": []}}]}})",
       ""},
      {R"({"agents": {"defaults": {"thinkingDefault": "max"}}})",
       R"(agents.defaults.thinkingDefault: expected one of off|minimal|low|medium|high|xhigh, got "max")"},
      {R"({"agents": {"defaults": {"timeoutSeconds": 0}}})",
       "agents.defaults.timeoutSeconds: expected integer 1..2147483, got 0"},
      {R"({"agents": {"defaults": {"bootstrapTruncationWarning": "never"}}})",
       R"(agents.defaults.bootstrapTruncationWarning: expected one of once|always|off, got "never")"},
      {R"({"agents": {"defaults": {"model": true}}})", "agents.defaults.model: expected string or object, got true"},
      {R"({"agents": {"list": [{"name": "x"}]}})",
       "agents.list[0].id: missing required key (expected string matching ^[a-z0-9][a-z0-9_-]{0,63}$)"},
      {R"({"agents": {"list": [{"id": "My Agent"}]}})",
       R"(agents.list[0].id: expected string matching ^[a-z0-9][a-z0-9_-]{0,63}$, got "My Agent")"},
      {R"({"agents": {"list": [{"id": "a", "default": "yes"}]}})",
       R"(agents.list[0].default: expected boolean, got "yes")"},
      {R"({"agents": {"list": [{"id": "a", "toolz": {}}]}})",
       "agents.list[0].toolz: unknown key, did you mean `tools`? (expected one of id|name|default|tools|binds|workspace|model|memory|contextEngine|sandbox|heartbeat|skills|subagents)"},
      {R"({"agents": {"list": {"id": "a"}}})", "agents.list: expected array of object, got object"},
      // tools
      {R"({"tools": {"profile": "full", "allow": ["read", "group:fs"], "alsoAllow": ["exec"], "deny": ["*"],
           "exec": {"timeoutSec": 0, "maxOutputChars": 2048}}})",
       ""},
      {R"({"tools": {"profile": "admin"}})",
       R"(tools.profile: expected one of minimal|coding|messaging|full, got "admin")"},
      {R"({"tools": {"deny": "exec"}})", R"(tools.deny: expected array of string, got "exec")"},
      {R"({"tools": {"exec": {"timeoutSec": -1}}})", "tools.exec.timeoutSec: expected integer 0..2147483, got -1"},
      {R"({"tools": {"exec": {"maxOutputChars": 10}}})",
       "tools.exec.maxOutputChars: expected integer 1024..2147483647, got 10"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(violations_of(json::parse(c.doc)), c.message) << c.doc;
  }
}

TEST(AgentConfigSchema, Defaults) {
  json e = config::with_defaults(json::object());
  EXPECT_EQ(e["agents"]["defaults"], json::parse(R"({"thinkingDefault": "off", "timeoutSeconds": 600,
      "maxConcurrent": 4, "bootstrapMaxChars": 20000, "bootstrapTotalMaxChars": 150000,
      "bootstrapTruncationWarning": "once", "startupContext": {"enabled": true, "dailyMemoryDays": 2,
      "maxFileBytes": 16384, "maxFileChars": 1200, "maxTotalChars": 2800},
      "sandbox": {"backend": "bwrap", "bwrap": {"command": "bwrap"},
      "mode": "off", "network": "off", "workspaceAccess": "rw"}})"));
  EXPECT_EQ(e["tools"], json::parse(R"({"profile": "coding", "exec": {"timeoutSec": 1800, "maxOutputChars": 100000,
      "security": "full", "ask": "off", "nonOwner": {"security": "allowlist", "ask": "on-miss"}},
      "agentToAgent": {"enabled": true}, "sessions": {"visibility": "all"}, "toolSearch": true})"));
  EXPECT_FALSE(e.contains("models"));  // nothing in it has a default
  EXPECT_FALSE(e["agents"].contains("list"));
}

// ---- agents --------------------------------------------------------------------------------------

TEST(AgentsConfig, DefaultAgentId) {
  struct Case {
    const char* list;
    const char* expected;
  } cases[] = {
      {"[]", "main"},
      {R"([{"id": "a"}, {"id": "b"}])", "a"},
      {R"([{"id": "a"}, {"id": "b", "default": true}, {"id": "c", "default": true}])", "b"},
      {R"([{"id": "a", "default": false}, {"id": "main"}])", "a"},
  };
  for (const auto& c : cases) {
    auto agents = resolve_agents(effective(std::string(R"({"agents": {"list": )") + c.list + "}}"), "/state");
    ASSERT_TRUE(agents.ok()) << agents.error().message;
    EXPECT_EQ(agents->default_id, c.expected) << c.list;
    EXPECT_EQ(agents->default_agent().id, c.expected) << c.list;
    EXPECT_TRUE(agents->default_agent().is_default);
    EXPECT_EQ(std::count_if(agents->agents.begin(), agents->agents.end(), [](const auto& a) { return a.is_default; }), 1);
  }
}

TEST(AgentsConfig, EmptyConfigHasOneMainAgentWithDefaults) {
  auto agents = resolve_agents(config::with_defaults(json::object()), "/state");
  ASSERT_TRUE(agents.ok());
  ASSERT_EQ(agents->agents.size(), 1u);
  const AgentSettings& a = agents->agents[0];
  EXPECT_EQ(a.id, "main");
  EXPECT_EQ(a.name, "");
  EXPECT_TRUE(a.is_default);
  EXPECT_EQ(a.workspace, fs::path("/state/workspace"));
  EXPECT_EQ(a.agent_dir, fs::path("/state/agents/main"));
  EXPECT_EQ(a.model.primary, "");
  EXPECT_TRUE(a.model.fallbacks.empty());
  EXPECT_EQ(a.thinking_default, "off");
  EXPECT_EQ(a.timeout_seconds, 600);
  EXPECT_FALSE(a.context_tokens.has_value());
  EXPECT_EQ(agents->max_concurrent, 4);
  EXPECT_EQ(agents->bootstrap_max_chars, 20000u);
  EXPECT_EQ(agents->bootstrap_total_max_chars, 150000u);
  EXPECT_EQ(agents->bootstrap_truncation_warning, "once");
  EXPECT_EQ(agents->find("main"), &agents->agents[0]);
  EXPECT_EQ(agents->find("other"), nullptr);
}

TEST(AgentsConfig, Workspaces) {
  struct Case {
    const char* config;
    std::map<std::string, std::string> expected;  // id → workspace
  } cases[] = {
      // Default agent: defaults.workspace, else <state>/workspace; others <state>/workspace-<id>.
      {R"({"agents": {"list": [{"id": "a"}, {"id": "b"}]}})",
       {{"a", "/state/workspace"}, {"b", "/state/workspace-b"}}},
      {R"({"agents": {"defaults": {"workspace": "/srv/ws"}, "list": [{"id": "a"}, {"id": "b", "default": true}]}})",
       {{"a", "/state/workspace-a"}, {"b", "/srv/ws"}}},
      {R"({"agents": {"defaults": {"workspace": "/srv/ws"}}})", {{"main", "/srv/ws"}}},
      // Own workspace wins; "~" expands to HOME; relative paths are below the state dir.
      {R"({"agents": {"list": [{"id": "a", "workspace": "~/notes"}, {"id": "b", "workspace": "rel/../b-ws"}],
                      "defaults": {"workspace": "/ignored-for-b"}}})",
       {{"a", "/home/u/notes"}, {"b", "/state/b-ws"}}},
      {R"({"agents": {"defaults": {"workspace": "~"}}})", {{"main", "/home/u"}}},
      {R"({"agents": {"defaults": {"workspace": "  ws  "}}})", {{"main", "/state/ws"}}},
  };
  for (const auto& c : cases) {
    auto agents = resolve_agents(effective(c.config), "/state", env_of({{"HOME", "/home/u"}}));
    ASSERT_TRUE(agents.ok()) << agents.error().message;
    ASSERT_EQ(agents->agents.size(), c.expected.size()) << c.config;
    for (const auto& [id, ws] : c.expected) {
      const AgentSettings* a = agents->find(id);
      ASSERT_NE(a, nullptr) << id;
      EXPECT_EQ(a->workspace, fs::path(ws)) << c.config << " agent " << id;
      EXPECT_EQ(a->agent_dir, fs::path("/state/agents/" + id));
    }
  }
}

TEST(AgentsConfig, TildeWithoutHomeIsKeptBelowTheStateDir) {
  auto agents = resolve_agents(effective(R"({"agents": {"defaults": {"workspace": "~/x"}}})"), "/state");
  ASSERT_TRUE(agents.ok());
  EXPECT_EQ(agents->default_agent().workspace, fs::path("/state/~/x"));
}

TEST(AgentsConfig, ModelsAndFallbacksInherit) {
  auto agents = resolve_agents(effective(R"({"agents": {
      "defaults": {"model": {"primary": "p/base", "fallbacks": ["p/f1", "p/f2"]},
                   "thinkingDefault": "low", "timeoutSeconds": 30, "contextTokens": 64000},
      "list": [{"id": "plain"},
               {"id": "str", "model": "q/own"},
               {"id": "obj", "model": {"primary": "q/own"}},
               {"id": "objfb", "model": {"primary": "q/own", "fallbacks": ["q/x"]}},
               {"id": "nofb", "model": {"fallbacks": []}}]}})"),
                               "/state");
  ASSERT_TRUE(agents.ok()) << agents.error().message;
  struct Want {
    const char* id;
    const char* primary;
    std::vector<std::string> fallbacks;
  } wants[] = {
      {"plain", "p/base", {"p/f1", "p/f2"}}, {"str", "q/own", {"p/f1", "p/f2"}},
      {"obj", "q/own", {"p/f1", "p/f2"}},    {"objfb", "q/own", {"q/x"}},
      {"nofb", "p/base", {}},
  };
  for (const auto& w : wants) {
    const AgentSettings* a = agents->find(w.id);
    ASSERT_NE(a, nullptr) << w.id;
    EXPECT_EQ(a->model.primary, w.primary) << w.id;
    EXPECT_EQ(a->model.fallbacks, w.fallbacks) << w.id;
    EXPECT_EQ(a->thinking_default, "low");
    EXPECT_EQ(a->timeout_seconds, 30);
    EXPECT_EQ(a->context_tokens, 64000);
  }
  EXPECT_EQ(agents->default_id, "plain");
}

TEST(AgentsConfig, StringDefaultModel) {
  auto agents = resolve_agents(effective(R"({"agents": {"defaults": {"model": " p/m "}}})"), "/s");
  ASSERT_TRUE(agents.ok());
  EXPECT_EQ(agents->default_agent().model.primary, "p/m");
}

TEST(AgentsConfig, DuplicateIdsAreAnError) {
  auto agents = resolve_agents(effective(R"({"agents": {"list": [{"id": "a"}, {"id": "work"}, {"id": "work"}]}})"), "/s");
  ASSERT_FALSE(agents.ok());
  EXPECT_EQ(agents.error().code, "CONFIG_INVALID");
  EXPECT_EQ(agents.error().message, R"(agents.list[2].id: duplicate agent id "work" (also agents.list[1]))");
}

TEST(AgentsConfig, ParseModelChoiceAndThinkingLevel) {
  bool fb = true;
  EXPECT_EQ(parse_model_choice(json("a/b"), &fb).primary, "a/b");
  EXPECT_FALSE(fb);
  ModelChoice c = parse_model_choice(json::parse(R"({"primary": "a/b", "fallbacks": ["c/d", "", 3]})"), &fb);
  EXPECT_TRUE(fb);
  EXPECT_EQ(c.primary, "a/b");
  EXPECT_EQ(c.fallbacks, std::vector<std::string>{"c/d"});
  EXPECT_EQ(parse_model_choice(json(5)).primary, "");

  EXPECT_EQ(thinking_level("off"), llm::ThinkingLevel::Off);
  EXPECT_EQ(thinking_level("minimal"), llm::ThinkingLevel::Minimal);
  EXPECT_EQ(thinking_level("low"), llm::ThinkingLevel::Low);
  EXPECT_EQ(thinking_level("medium"), llm::ThinkingLevel::Medium);
  EXPECT_EQ(thinking_level("high"), llm::ThinkingLevel::High);
  EXPECT_EQ(thinking_level("xhigh"), llm::ThinkingLevel::XHigh);
  EXPECT_EQ(thinking_level("max"), std::nullopt);
}

// ---- model registry ------------------------------------------------------------------------------

const char* kModelsConfig = R"({"models": {"providers": {
    "mock": {"baseUrl": "http://127.0.0.1:9999/v1", "models": [{"id": "mock-model"}]},
    "openrouter": {"baseUrl": "https://openrouter.ai/api/v1", "apiKey": "sk-or", "headers": {"X-Title": "Pincer"},
                   "models": [{"id": "anthropic/claude-sonnet-4", "name": "Claude Sonnet 4", "contextWindow": 200000,
                               "maxTokens": 64000, "reasoning": true, "input": ["text", "image"]},
                              {"id": "Qwen/Qwen3", "name": "Alpha"},
                              {"id": "anthropic/claude-sonnet-4", "name": "duplicate, ignored"}]},
    "ollama": {"baseUrl": "http://127.0.0.1:11434", "api": "ollama", "models": [{"id": "llama3.2"}, {"id": "mock-model"}]}}}})";

TEST(ModelRegistry, BuildsSpecsFromConfig) {
  ModelRegistry reg = ModelRegistry::from_config(effective(kModelsConfig));
  ASSERT_EQ(reg.entries().size(), 5u);
  // Providers in key order (mock, ollama, openrouter), models in list order.
  std::vector<std::string> refs;
  for (const auto& e : reg.entries()) refs.push_back(e.ref());
  EXPECT_THAT(refs, ElementsAre("mock/mock-model", "ollama/llama3.2", "ollama/mock-model",
                                "openrouter/anthropic/claude-sonnet-4", "openrouter/Qwen/Qwen3"));

  auto spec = reg.resolve("openrouter/anthropic/claude-sonnet-4");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->provider, "openrouter");
  EXPECT_EQ(spec->id, "anthropic/claude-sonnet-4");
  EXPECT_EQ(spec->api, "openai-completions");
  EXPECT_EQ(spec->base_url, "https://openrouter.ai/api/v1");
  EXPECT_EQ(spec->api_key, "sk-or");
  EXPECT_EQ(spec->headers, (std::map<std::string, std::string>{{"X-Title", "Pincer"}}));
  EXPECT_EQ(spec->context_window, 200000);
  EXPECT_EQ(spec->max_tokens, 64000);
  EXPECT_TRUE(spec->reasoning);
  EXPECT_EQ(spec->input, (std::vector<std::string>{"text", "image"}));

  auto local = reg.resolve("ollama/llama3.2");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->api, "ollama");
  EXPECT_EQ(local->api_key, "");  // local servers need none
  EXPECT_TRUE(local->headers.empty());
  EXPECT_EQ(local->context_window, 128000);
  EXPECT_EQ(local->max_tokens, 4096);
  EXPECT_FALSE(local->reasoning);
  EXPECT_EQ(local->input, std::vector<std::string>{"text"});
}

TEST(ModelRegistry, Resolution) {
  ModelRegistry reg = ModelRegistry::from_config(effective(kModelsConfig));
  struct Case {
    const char* ref;
    const char* provider;  // "" = error expected
    const char* id;
  } cases[] = {
      {"mock/mock-model", "mock", "mock-model"},
      {"MOCK/Mock-Model", "mock", "mock-model"},          // case-insensitive fallback
      {"openrouter/qwen/qwen3", "openrouter", "Qwen/Qwen3"},
      {"llama3.2", "ollama", "llama3.2"},                 // bare id served by one provider
      {"mock-model", "", ""},                             // bare id served by two: ambiguous
      {"mock/other", "", ""},
      {"nobody/mock-model", "", ""},
      {"/mock-model", "", ""},
      {"mock/", "", ""},
  };
  for (const auto& c : cases) {
    auto spec = reg.resolve(c.ref);
    if (*c.provider == '\0') {
      ASSERT_FALSE(spec.ok()) << c.ref;
      EXPECT_EQ(spec.error().code, "MODEL_NOT_FOUND") << c.ref;
      EXPECT_EQ(reg.find(c.ref), nullptr) << c.ref;
      continue;
    }
    ASSERT_TRUE(spec.ok()) << c.ref << ": " << spec.error().message;
    EXPECT_EQ(spec->provider, c.provider) << c.ref;
    EXPECT_EQ(spec->id, c.id) << c.ref;
  }
}

TEST(ModelRegistry, ErrorMessages) {
  ModelRegistry reg = ModelRegistry::from_config(effective(kModelsConfig));
  auto unknown = reg.resolve("x/y");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            R"(unknown model "x/y" (configured: mock/mock-model, ollama/llama3.2, ollama/mock-model, )"
            R"(openrouter/anthropic/claude-sonnet-4, openrouter/Qwen/Qwen3))");

  auto none = reg.resolve("");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "MODEL_NOT_CONFIGURED");
  EXPECT_EQ(none.error().message,
            "no model configured: set agents.defaults.model.primary to provider/model and add the provider "
            "under models.providers");

  ModelRegistry empty = ModelRegistry::from_config(config::with_defaults(json::object()));
  EXPECT_TRUE(empty.empty());
  auto nothing = empty.resolve("mock/mock-model");
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.error().code, "MODEL_NOT_FOUND");
  EXPECT_EQ(nothing.error().message,
            R"(unknown model "mock/mock-model" (no models are configured under models.providers))");

  // More than ten models: the list is cut with an ellipsis.
  json many = json::parse(R"({"models": {"providers": {"p": {"baseUrl": "http://u", "models": []}}}})");
  for (int i = 0; i < 12; ++i) many["models"]["providers"]["p"]["models"].push_back({{"id", "m" + std::to_string(i)}});
  ModelRegistry big = ModelRegistry::from_config(config::with_defaults(many));
  EXPECT_EQ(big.resolve("p/zz").error().message,
            R"(unknown model "p/zz" (configured: p/m0, p/m1, p/m2, p/m3, p/m4, p/m5, p/m6, p/m7, p/m8, p/m9, …))");
}

TEST(ModelRegistry, ListRowsHaveTheModelsListShapeAndOrder) {
  ModelRegistry reg = ModelRegistry::from_config(effective(kModelsConfig));
  EXPECT_EQ(reg.list(), json::parse(R"([
      {"id": "mock-model", "name": "mock-model", "provider": "mock", "contextWindow": 128000, "reasoning": false, "input": ["text"]},
      {"id": "llama3.2", "name": "llama3.2", "provider": "ollama", "contextWindow": 128000, "reasoning": false, "input": ["text"]},
      {"id": "mock-model", "name": "mock-model", "provider": "ollama", "contextWindow": 128000, "reasoning": false, "input": ["text"]},
      {"id": "Qwen/Qwen3", "name": "Alpha", "provider": "openrouter", "contextWindow": 128000, "reasoning": false, "input": ["text"]},
      {"id": "anthropic/claude-sonnet-4", "name": "Claude Sonnet 4", "provider": "openrouter", "contextWindow": 200000,
       "reasoning": true, "input": ["text", "image"]}])"));
  EXPECT_EQ(ModelRegistry{}.list(), json::array());
}

TEST(ModelRegistry, SplitModelRef) {
  EXPECT_EQ(split_model_ref("a/b/c"), (std::pair<std::string, std::string>{"a", "b/c"}));
  EXPECT_EQ(split_model_ref("abc"), (std::pair<std::string, std::string>{"", "abc"}));
  EXPECT_EQ(split_model_ref("/abc"), (std::pair<std::string, std::string>{"", "/abc"}));
  EXPECT_EQ(split_model_ref("abc/"), (std::pair<std::string, std::string>{"", "abc/"}));
}

}  // namespace
}  // namespace pincer::agent::agents_config_test
