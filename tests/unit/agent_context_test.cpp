// Tests of the agent context layer: the models/agents/tools config schema, agent resolution
// (agent/agents_config.h), the model registry (agent/model_registry.h), workspace creation and
// bootstrap loading (agent/workspace.h, CX-2/CX-3), the system prompt (agent/system_prompt.h,
// CX-4) and the tool-result cap (agent/tool_result_cap.h, CX-8).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "agent/system_prompt.h"
#include "agent/text_cut.h"
#include "agent/tool_result_cap.h"
#include "agent/workspace.h"
#include "core/config.h"
#include "test_helpers.h"

namespace pincer::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("pincer-agent-test-" + std::to_string(::getpid()) + "-" +
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

  std::string read(const std::string& relative) const {
    std::ifstream in(path_ / relative, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  fs::path path_;
};

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

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if (!text::is_continuation(s[i + k])) return false;
    }
    i += n;
  }
  return true;
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
      {R"({"models": {"provider": {}}})", "models.provider: unknown key (expected one of providers)"},
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
       "agents.list[0].toolz: unknown key (expected one of id|name|default|tools|binds|workspace|model|memory|contextEngine|sandbox|heartbeat|skills|subagents)"},
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

// ---- workspace creation --------------------------------------------------------------------------

TEST(Workspace, EnsureCreatesEveryFileOnceAndNeverOverwrites) {
  TempDir tmp;
  const fs::path ws = tmp.path() / "a" / "workspace";
  auto first = ensure_workspace(ws);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->brand_new);
  EXPECT_THAT(first->created, ElementsAre("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md",
                                          "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"));
  for (std::string_view name : kBootstrapFileNames) {
    EXPECT_EQ(tmp.read("a/workspace/" + std::string(name)), bootstrap_template(name)) << name;
    EXPECT_FALSE(bootstrap_template(name).empty()) << name;
    EXPECT_LT(bootstrap_template(name).size(), 1200u) << name << " template should stay short (LESSONS 1)";
  }

  // Idempotent: nothing created, edits kept.
  tmp.write("a/workspace/SOUL.md", "my soul");
  tmp.write("a/workspace/USER.md", "");
  auto second = ensure_workspace(ws);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->brand_new);
  EXPECT_TRUE(second->created.empty());
  EXPECT_EQ(tmp.read("a/workspace/SOUL.md"), "my soul");
  EXPECT_EQ(tmp.read("a/workspace/USER.md"), "");

  // The agent deletes BOOTSTRAP.md when done: it does not come back. Other files do.
  fs::remove(ws / "BOOTSTRAP.md");
  fs::remove(ws / "TOOLS.md");
  auto third = ensure_workspace(ws);
  ASSERT_TRUE(third.ok());
  EXPECT_THAT(third->created, ElementsAre("TOOLS.md"));
  EXPECT_FALSE(fs::exists(ws / "BOOTSTRAP.md"));
}

TEST(Workspace, ExistingWorkspaceGetsNoBootstrapAndLowercaseMemoryCounts) {
  TempDir tmp;
  tmp.write("AGENTS.md", "mine");
  tmp.write("memory.md", "notes");
  auto init = ensure_workspace(tmp.path());
  ASSERT_TRUE(init.ok());
  EXPECT_FALSE(init->brand_new);
  EXPECT_THAT(init->created, ElementsAre("SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"));
  EXPECT_EQ(tmp.read("AGENTS.md"), "mine");
  EXPECT_FALSE(fs::exists(tmp.path() / "MEMORY.md"));
}

TEST(Workspace, EnsureFailsClearlyOnAFile) {
  TempDir tmp;
  tmp.write("file", "x");
  auto init = ensure_workspace(tmp.path() / "file");
  ASSERT_FALSE(init.ok());
  EXPECT_EQ(init.error().code, "IO_ERROR");
  EXPECT_THAT(init.error().message, StartsWith((tmp.path() / "file").string() + ": "));
}

// ---- bootstrap loading ---------------------------------------------------------------------------

// `n` distinct-ish chars without trailing whitespace: "000,001,002,…".
std::string numbered(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%03zu,", i % 1000);
    s += buf;
  }
  s.resize(n);
  return s;
}

TEST(Bootstrap, TruncationKeepsHead70AndTail20WithAMarker) {
  const std::string content = numbered(300);
  bool cut = false;
  std::string out = truncate_bootstrap_content(content + "\n\n  \n", "AGENTS.md", 100, &cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(out, content.substr(0, 70) + "\n" +
                     "\n[... AGENTS.md truncated: kept the first 70 and last 20 of 300 chars; read AGENTS.md for the "
                     "rest ...]\n" +
                     "\n" + content.substr(280));

  // Exactly at the cap, or shorter after trimming trailing whitespace: unchanged (but trimmed).
  EXPECT_EQ(truncate_bootstrap_content(numbered(100) + "\n\n", "X.md", 100, &cut), numbered(100));
  EXPECT_FALSE(cut);

  // Odd caps round down: floor(33 × 0.7) = 23, floor(33 × 0.2) = 6.
  out = truncate_bootstrap_content(content, "S.md", 33, &cut);
  EXPECT_THAT(out, StartsWith(content.substr(0, 23) + "\n\n[... S.md truncated: kept the first 23 and last 6 of 300"));
  EXPECT_THAT(out, EndsWith("...]\n\n" + content.substr(294)));

  // Never splits a UTF-8 character: 2-byte "é" × 100 with a cap of 51 → head 35 → 34 bytes.
  std::string e;
  for (int i = 0; i < 100; ++i) e += "é";
  out = truncate_bootstrap_content(e, "U.md", 51, &cut);
  EXPECT_TRUE(valid_utf8(out));
  EXPECT_THAT(out, HasSubstr("kept the first 34 and last 10 of 200 chars"));
}

TEST(Bootstrap, LoadsFilesInOrderWithMissingNotesAndSkips) {
  TempDir tmp;
  tmp.write("SOUL.md", "soul\n\n");
  tmp.write("AGENTS.md", "agents");
  tmp.write("TOOLS.md", "  \n\t\n");  // whitespace only: skipped
  tmp.write("MEMORY.md", "remember");
  // IDENTITY, USER, HEARTBEAT missing (expected → notes); BOOTSTRAP missing (optional → absent).
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  std::vector<std::string> names;
  for (const auto& f : load.files) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"));
  EXPECT_EQ(load.files[0].content, "agents");
  EXPECT_EQ(load.files[1].content, "soul");
  EXPECT_EQ(load.files[1].original_chars, 4u);
  EXPECT_TRUE(load.files[2].missing);
  EXPECT_EQ(load.files[2].content, "[MISSING] Expected at: " + (tmp.path() / "IDENTITY.md").string());
  EXPECT_EQ(load.files[5].content, "remember");
  EXPECT_FALSE(load.truncated());
  EXPECT_EQ(load.truncation_signature(), "");
  std::size_t total = 0;
  for (const auto& f : load.files) total += f.content.size();
  EXPECT_EQ(load.total_chars, total);
}

TEST(Bootstrap, LowercaseMemoryFileIsRead) {
  TempDir tmp;
  tmp.write("memory.md", "lower");
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  ASSERT_FALSE(load.files.empty());
  EXPECT_EQ(load.files.back().name, "MEMORY.md");
  EXPECT_EQ(load.files.back().content, "lower");
  EXPECT_EQ(load.files.back().path, tmp.path() / "memory.md");
}

TEST(Bootstrap, Sets) {
  TempDir tmp;
  ASSERT_TRUE(ensure_workspace(tmp.path()).ok());
  auto names_of = [](const BootstrapLoad& load) {
    std::vector<std::string> names;
    for (const auto& f : load.files) names.push_back(f.name);
    return names;
  };
  EXPECT_THAT(names_of(load_bootstrap(tmp.path(), 20000, 150000, BootstrapSet::kHeartbeat)), ElementsAre("HEARTBEAT.md"));
  EXPECT_THAT(names_of(load_bootstrap(tmp.path(), 20000, 150000, BootstrapSet::kMinimal)),
              ElementsAre("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"));
  EXPECT_EQ(load_bootstrap(tmp.path(), 20000, 150000).files.size(), 8u);
}

TEST(Bootstrap, PerFileCapAndSignature) {
  TempDir tmp;
  for (std::string_view n : {"SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"}) tmp.write(std::string(n), "x");
  tmp.write("AGENTS.md", numbered(45000));
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  const BootstrapFile& agents = load.files.at(0);
  EXPECT_TRUE(agents.truncated);
  EXPECT_EQ(agents.original_chars, 45000u);
  EXPECT_THAT(agents.content, StartsWith(numbered(14000) + "\n\n[... AGENTS.md truncated: kept the first 14000 and "
                                                           "last 4000 of 45000 chars"));
  EXPECT_THAT(agents.content, EndsWith(numbered(45000).substr(41000)));
  EXPECT_TRUE(load.truncated());
  EXPECT_EQ(load.truncation_signature(), "AGENTS.md:45000>" + std::to_string(agents.content.size()));
}

TEST(Bootstrap, TotalBudgetClampsThenStopsBelow64Chars) {
  TempDir tmp;
  tmp.write("AGENTS.md", std::string(900, 'A'));
  tmp.write("SOUL.md", std::string(300, 'S'));
  tmp.write("TOOLS.md", "tools");
  tmp.write("IDENTITY.md", "identity");
  tmp.write("MEMORY.md", "memory");
  BootstrapLoad load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_EQ(load.files.size(), 2u);
  EXPECT_EQ(load.files[0].content, std::string(900, 'A'));
  EXPECT_FALSE(load.files[0].truncated);
  // SOUL.md: cap = min(5000, 100 remaining) → 70 + marker + 20 > 100 → clamped to 100 with "…".
  const std::string& soul = load.files[1].content;
  EXPECT_EQ(soul.size(), 100u);
  EXPECT_EQ(soul, std::string(70, 'S') + "\n\n[... SOUL.md truncated: k…");
  EXPECT_TRUE(load.files[1].truncated);
  EXPECT_EQ(load.total_chars, 1000u);
  // Nothing left: existing files are reported, missing ones (USER, HEARTBEAT) are not.
  EXPECT_THAT(load.omitted, ElementsAre("TOOLS.md", "IDENTITY.md", "MEMORY.md"));
  EXPECT_EQ(load.truncation_signature(), "SOUL.md:300>100|TOOLS.md:omitted|IDENTITY.md:omitted|MEMORY.md:omitted");

  // Remaining budget under 64 chars stops before the next file.
  tmp.write("AGENTS.md", std::string(940, 'A'));
  load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_EQ(load.files.size(), 1u);
  EXPECT_THAT(load.omitted, ElementsAre("SOUL.md", "TOOLS.md", "IDENTITY.md", "MEMORY.md"));
}

TEST(Bootstrap, MissingNotesAreChargedAndClamped) {
  TempDir tmp;
  tmp.write("AGENTS.md", std::string(950, 'A'));
  BootstrapLoad load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_GE(load.files.size(), 2u);
  EXPECT_TRUE(load.files[1].missing);
  EXPECT_EQ(load.files[1].content.size(), 50u);
  EXPECT_THAT(load.files[1].content, StartsWith("[MISSING] Expected at: "));
  EXPECT_THAT(load.files[1].content, EndsWith("…"));
  EXPECT_EQ(load.files.size(), 2u);
  EXPECT_TRUE(load.omitted.empty());
}

TEST(Bootstrap, TruncationWarningModes) {
  BootstrapLoad cut;
  cut.files.push_back(BootstrapFile{"AGENTS.md", "/w/AGENTS.md", std::string(120, 'x'), false, 500, true});
  cut.files.push_back(BootstrapFile{"SOUL.md", "/w/SOUL.md", "soul", false, 4, false});
  cut.omitted = {"MEMORY.md"};
  const std::string expected =
      "Note: some workspace files were shortened to fit the context budget: AGENTS.md (injected 120 of 500 chars); "
      "MEMORY.md (not loaded). Read them with the file tools if you need the full text.";
  BootstrapLoad clean;
  clean.files.push_back(BootstrapFile{"SOUL.md", "/w/SOUL.md", "soul", false, 4, false});

  TruncationWarnings once(TruncationWarningMode::kOnce);
  EXPECT_EQ(once.warning_for(cut, "s1"), expected);
  EXPECT_EQ(once.warning_for(cut, "s1"), "");
  EXPECT_EQ(once.warning_for(cut, "s2"), expected);  // another session
  EXPECT_EQ(once.warning_for(clean, "s1"), "");
  BootstrapLoad other = cut;
  other.files[0].original_chars = 600;  // a different cut: warn again
  EXPECT_EQ(once.warning_for(other, "s1"), ReplaceAll(expected, "of 500", "of 600"));

  TruncationWarnings always(TruncationWarningMode::kAlways);
  EXPECT_EQ(always.warning_for(cut), expected);
  EXPECT_EQ(always.warning_for(cut), expected);
  EXPECT_EQ(always.warning_for(clean), "");

  TruncationWarnings off(TruncationWarningMode::kOff);
  EXPECT_EQ(off.warning_for(cut), "");

  // Bounded memory: with room for 2 pairs, the oldest is forgotten and warned about again.
  TruncationWarnings small(TruncationWarningMode::kOnce, 2);
  EXPECT_NE(small.warning_for(cut, "a"), "");
  EXPECT_NE(small.warning_for(cut, "b"), "");
  EXPECT_NE(small.warning_for(cut, "c"), "");
  EXPECT_EQ(small.warning_for(cut, "c"), "");
  EXPECT_NE(small.warning_for(cut, "a"), "");

  EXPECT_EQ(parse_truncation_warning_mode("once"), TruncationWarningMode::kOnce);
  EXPECT_EQ(parse_truncation_warning_mode("always"), TruncationWarningMode::kAlways);
  EXPECT_EQ(parse_truncation_warning_mode("off"), TruncationWarningMode::kOff);
  EXPECT_EQ(parse_truncation_warning_mode("never"), std::nullopt);
}

// ---- system prompt -------------------------------------------------------------------------------

SystemPromptInput sample_prompt_input() {
  SystemPromptInput in;
  in.agent_id = "main";
  in.agent_name = "Pinchy";
  in.tools = {{"write", "Create or overwrite a file. Parent folders are created."},
              {"exec", "Run a shell command in the workspace.\nMore details here."},
              {"read", "Read a text file. Supports offset and limit."},
              {"zz_custom", "Does a custom thing. More about it."}};
  in.workspace = "/home/u/.pincer/workspace";
  in.context_files = {BootstrapFile{"AGENTS.md", "/w/AGENTS.md", "Be careful.", false, 11, false},
                      BootstrapFile{"SOUL.md", "/w/SOUL.md", "Be kind.", false, 8, false}};
  in.os = "Linux x86_64";
  in.model = "mock/mock-model";
  in.thinking = "low";
  return in;
}

TEST(SystemPrompt, SectionsInOrder) {
  const std::string prompt = build_system_prompt(sample_prompt_input());
  EXPECT_THAT(prompt, StartsWith("You are Pinchy, a personal assistant running in Pincer"));
  const std::vector<std::string> in_order = {
      "## Tools\n",
      "\n- exec: Run shell commands\n- read: Read files\n- write: Create or overwrite files\n- zz_custom: Does a custom thing.\n",
      "## Workspace\nYour working directory is /home/u/.pincer/workspace\n",
      "## Safety\n",
      "## Project context\n",
      "### AGENTS.md\nBe careful.\n\n### SOUL.md\nBe kind.",
      "## Runtime\nagent=main | os=Linux x86_64 | model=mock/mock-model | thinking=low\n"};
  std::size_t pos = 0;
  for (const auto& piece : in_order) {
    std::size_t found = prompt.find(piece, pos);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << piece << "\n---\n" << prompt;
    pos = found + piece.size();
  }
  EXPECT_THAT(prompt, EndsWith("thinking=low\n"));
  EXPECT_THAT(prompt, Not(HasSubstr("More details here")));
}

TEST(SystemPrompt, ByteStableAndIndependentOfToolOrder) {
  SystemPromptInput a = sample_prompt_input();
  SystemPromptInput b = sample_prompt_input();
  std::reverse(b.tools.begin(), b.tools.end());
  const std::string first = build_system_prompt(a);
  EXPECT_EQ(build_system_prompt(a), first);
  EXPECT_EQ(build_system_prompt(b), first);
  std::rotate(b.tools.begin(), b.tools.begin() + 1, b.tools.end());
  EXPECT_EQ(build_system_prompt(b), first);

  // Nothing time-like sneaks in.
  EXPECT_THAT(first, Not(HasSubstr("Current time")));
  EXPECT_THAT(first, Not(HasSubstr("2026")));

  // Inputs that do matter change it.
  SystemPromptInput c = sample_prompt_input();
  c.context_files[1].content = "Be kinder.";
  EXPECT_NE(build_system_prompt(c), first);
  SystemPromptInput d = sample_prompt_input();
  d.tools.pop_back();
  EXPECT_NE(build_system_prompt(d), first);
}

TEST(SystemPrompt, MinimalInput) {
  SystemPromptInput in;
  in.agent_id = "x";
  in.thinking = "";
  const std::string prompt = build_system_prompt(in);
  EXPECT_THAT(prompt, StartsWith("You are a personal assistant running in Pincer"));
  EXPECT_THAT(prompt, Not(HasSubstr("## Tools")));
  EXPECT_THAT(prompt, Not(HasSubstr("## Workspace")));
  EXPECT_THAT(prompt, Not(HasSubstr("## Project context")));
  EXPECT_THAT(prompt, HasSubstr("## Safety\n"));
  EXPECT_THAT(prompt, EndsWith("## Runtime\nagent=x\n"));
}

TEST(SystemPrompt, OneLineDescriptions) {
  struct Case {
    std::string in, out;
  } cases[] = {
      {"Read a file. Supports offsets.", "Read a file."},
      {"Run a command\nin the shell.", "Run a command"},
      {"  Uses v1.2 of the API. More.", "Uses v1.2 of the API."},
      {"No period at all", "No period at all"},
      {"Ends with a period.", "Ends with a period."},
      {"", ""},
      {"   \n ", ""},
      {std::string(300, 'x'), std::string(197, 'x') + "…"},
  };
  for (const auto& c : cases) EXPECT_EQ(one_line_description(c.in), c.out) << c.in;
  std::string e;
  for (int i = 0; i < 150; ++i) e += "é";
  const std::string line = one_line_description(e);
  EXPECT_TRUE(valid_utf8(line));
  EXPECT_LE(line.size(), 200u);
}

TEST(SystemPrompt, ToolsFromTheRegistryAndRuntimeOs) {
  EXPECT_FALSE(runtime_os().empty());
  EXPECT_EQ(runtime_os(), runtime_os());
  EXPECT_TRUE(prompt_tools({}).empty());
}

TEST(SystemPrompt, TurnContext) {
  EXPECT_EQ(build_turn_context({}), "");
  TurnContext t;
  t.now_ms = 1772715780000;  // 2026-03-05 13:03 UTC, a Thursday
  t.utc_offset_minutes = 60;
  t.time_zone = "Europe/Berlin";
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Thursday 2026-03-05 14:03 (Europe/Berlin, UTC+01:00)\n\n");
  t.time_zone = "";
  t.utc_offset_minutes = -330;
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Thursday 2026-03-05 07:33 (UTC-05:30)\n\n");
  t.now_ms = -1800000;  // 1969-12-31 23:30 UTC
  t.utc_offset_minutes = 0;
  t.bootstrap_warning = "Note: cut.";
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Wednesday 1969-12-31 23:30 (UTC+00:00)\nNote: cut.\n\n");
  TurnContext w;
  w.bootstrap_warning = "Note: cut.";
  EXPECT_EQ(build_turn_context(w), "[Turn context]\nNote: cut.\n\n");
}

// ---- tool-result cap (CX-8) ---------------------------------------------------------------------

TEST(ToolResultCap, CapFormula) {
  struct Case {
    std::int64_t context_tokens;
    std::size_t cap;
  } cases[] = {
      {0, 16000},       {-5, 16000},       {1000, 2000},      // 300 × 4 = 1200 → floor 2000
      {2000, 2400},     {10000, 12000},    {13333, 15996},    // floor(3999.9) × 4
      {13334, 16000},   {128000, 16000},   {1000000, 16000},
  };
  for (const auto& c : cases) EXPECT_EQ(tool_result_cap_chars(c.context_tokens), c.cap) << c.context_tokens;
}

std::string lines(std::size_t count, const std::string& last = "") {
  std::string s;
  for (std::size_t i = 0; i < count; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "line %04zu\n", i);
    s += buf;
  }
  return s + last;
}

TEST(ToolResultCap, FittingTextIsUnchanged) {
  const std::string text = lines(100);
  CappedText c = cap_text(text, 16000);
  EXPECT_EQ(c.text, text);
  EXPECT_FALSE(c.truncated);
  EXPECT_EQ(c.original_chars, text.size());
  EXPECT_EQ(cap_text(std::string(2000, 'x'), 10).text, std::string(2000, 'x'));  // 2 000 always fit
}

TEST(ToolResultCap, HeadOnlyCutSnapsToANewline) {
  const std::string text = lines(5000);  // 50 000 chars, nothing important at the end
  CappedText c = cap_text(text, 16000);
  EXPECT_TRUE(c.truncated);
  EXPECT_EQ(c.original_chars, 50000u);
  EXPECT_LE(c.text.size(), 16000u);
  const std::size_t note = c.text.find("\n\n[Output truncated: kept ");
  ASSERT_NE(note, std::string::npos);
  EXPECT_EQ(c.text.substr(0, note), text.substr(0, note));
  EXPECT_EQ(text[note], '\n');  // the head ends at a line break
  EXPECT_GT(note, 15000u);
  EXPECT_EQ(c.text.substr(note), "\n\n[Output truncated: kept " + std::to_string(note) +
                                      " of 50000 chars. Re-run with a narrower command or read the rest in smaller "
                                      "parts if you need more.]");
}

TEST(ToolResultCap, ImportantTailIsKept) {
  const std::string text = lines(5000, "Traceback (most recent call last):\n  File x\nValueError: bad value\n");
  CappedText c = cap_text(text, 16000);
  EXPECT_TRUE(c.truncated);
  EXPECT_LE(c.text.size(), 16000u);
  EXPECT_THAT(c.text, StartsWith("line 0000\nline 0001\n"));
  EXPECT_THAT(c.text, HasSubstr(" chars omitted; showing the start and the end ...]\n\n"));
  EXPECT_THAT(c.text, HasSubstr("ValueError: bad value\n\n\n[Output truncated: kept "));
  // Tail = min(30 % of the budget, 4 000) and starts at a line start.
  const std::size_t marker_end = c.text.find("...]\n\n") + 6;
  const std::size_t note = c.text.find("\n\n[Output truncated");
  const std::string tail = c.text.substr(marker_end, note - marker_end);
  EXPECT_LE(tail.size(), 4000u);
  EXPECT_GT(tail.size(), 3000u);
  EXPECT_THAT(tail, StartsWith("line "));
  EXPECT_THAT(text, EndsWith(tail));
}

TEST(ToolResultCap, SmallCapsKeepAtLeast2000CharsAndNoTail) {
  const std::string text = lines(1000, "fatal error\n");
  CappedText c = cap_text(text, 100);
  EXPECT_TRUE(c.truncated);
  EXPECT_THAT(c.text, Not(HasSubstr("omitted")));  // budget 2 000 is too small for head + tail
  const std::size_t note = c.text.find("\n\n[Output truncated");
  EXPECT_GT(note, 1600u);
  EXPECT_LE(note, 2000u);
  EXPECT_EQ(cap_tool_result(text, 1000).text, c.text);
}

TEST(ToolResultCap, NeverSplitsCharactersAndRespectsTheBound) {
  std::mt19937 rng(42);
  const std::vector<std::string> pieces = {"a", "é", "€", "😀", "\n", " ", "error", "}"};
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const std::size_t target = 1000 + rng() % 40000;
    while (text.size() < target) text += pieces[rng() % pieces.size()];
    const std::size_t cap = 500 + rng() % 20000;
    CappedText c = cap_text(text, cap);
    const std::size_t effective = std::max<std::size_t>(cap, 2000);
    EXPECT_EQ(c.truncated, text.size() > effective);
    EXPECT_TRUE(valid_utf8(c.text)) << round;
    EXPECT_LE(c.text.size(), std::max<std::size_t>(effective, 2000 + 200)) << round;
  }
}

TEST(ToolResultCap, ImportantTailDetection) {
  struct Case {
    std::string text;
    bool important;
  } cases[] = {
      {"all good\nDone", true},
      {"Process exited with exit code 1", true},
      {"ERROR: disk full", true},
      {"panic: runtime error", true},
      {"see stack trace above", true},
      {"{\"a\": 1}\n  ", true},
      {"Total: 3 files", true},
      {"plain output\nmore output", false},
      {"terrors and donations", false},  // not whole words
      {"errors: 0", false},
      {"error early" + std::string(3000, '.'), false},  // outside the last 2 000 chars
  };
  for (const auto& c : cases) EXPECT_EQ(has_important_tail(c.text), c.important) << c.text.substr(0, 40);
}

}  // namespace
}  // namespace pincer::agent
