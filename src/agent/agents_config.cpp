// Agent resolution from config (see agents_config.h for the rules).
#include "agent/agents_config.h"

#include <algorithm>

#include "core/saturating.h"
#include "store/session_keys.h"

namespace pincer::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

// `obj[key]` as a trimmed string; "" when absent or not a string.
std::string string_at(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? trimmed(it->get_ref<const std::string&>()) : "";
}

template <class T>
T number_at(const json& obj, const char* key, T fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? saturating_json_int<T>(*it, fallback) : fallback;
}

// "~", "~/x" → $HOME; relative → below the state dir; then lexically normalised.
fs::path resolve_user_path(const std::string& raw, const fs::path& state_dir, const config::EnvLookup& env) {
  if (raw == "~" || raw.starts_with("~/")) {
    std::optional<std::string> home = env ? env("HOME") : std::nullopt;
    if (home && !home->empty()) {
      if (raw == "~") return fs::path(*home).lexically_normal();
      return (fs::path(*home) / raw.substr(2)).lexically_normal();
    }
  }
  fs::path p(raw);
  if (p.is_relative()) p = state_dir / p;
  return p.lexically_normal();
}

}  // namespace

ModelChoice parse_model_choice(const json& value, bool* has_fallbacks) {
  ModelChoice choice;
  if (has_fallbacks != nullptr) *has_fallbacks = false;
  if (value.is_string()) {
    choice.primary = trimmed(value.get_ref<const std::string&>());
  } else if (value.is_object()) {
    choice.primary = string_at(value, "primary");
    auto it = value.find("fallbacks");
    if (it != value.end() && it->is_array()) {
      if (has_fallbacks != nullptr) *has_fallbacks = true;
      for (const auto& f : *it) {
        if (!f.is_string()) continue;
        std::string ref = trimmed(f.get_ref<const std::string&>());
        if (!ref.empty()) choice.fallbacks.push_back(std::move(ref));
      }
    }
  }
  return choice;
}

std::optional<llm::ThinkingLevel> thinking_level(std::string_view word) {
  if (word == "off") return llm::ThinkingLevel::Off;
  if (word == "minimal") return llm::ThinkingLevel::Minimal;
  if (word == "low") return llm::ThinkingLevel::Low;
  if (word == "medium") return llm::ThinkingLevel::Medium;
  if (word == "high") return llm::ThinkingLevel::High;
  if (word == "xhigh") return llm::ThinkingLevel::XHigh;
  return std::nullopt;
}

std::string AgentsConfig::session_key(std::string_view request_key, std::string_view agent_id) const {
  const std::string agent = agent_id.empty() ? default_id : store::normalize_agent_id(agent_id);
  return store::to_agent_store_session_key(agent, request_key);
}

const AgentSettings* AgentsConfig::find(std::string_view id) const {
  for (const auto& a : agents) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

const AgentSettings& AgentsConfig::default_agent() const {
  const AgentSettings* a = find(default_id);
  return a != nullptr ? *a : agents.front();
}

Result<AgentsConfig> resolve_agents(const json& effective, const fs::path& state_dir, const config::EnvLookup& env) {
  const json empty = json::object();
  const json& agents = effective.is_object() && effective.contains("agents") ? effective["agents"] : empty;
  const json& defaults = agents.is_object() && agents.contains("defaults") ? agents["defaults"] : empty;
  const json list = agents.is_object() && agents.contains("list") && agents["list"].is_array() ? agents["list"]
                                                                                                : json::array();

  AgentsConfig out;
  out.max_concurrent = number_at<std::int64_t>(defaults, "maxConcurrent", out.max_concurrent);
  if (defaults.contains("subagents") && defaults["subagents"].is_object()) {
    out.subagents_max_concurrent = number_at<std::int64_t>(defaults["subagents"], "maxConcurrent", out.subagents_max_concurrent);
  }
  out.bootstrap_max_chars = number_at<std::size_t>(defaults, "bootstrapMaxChars", out.bootstrap_max_chars);
  out.bootstrap_total_max_chars =
      number_at<std::size_t>(defaults, "bootstrapTotalMaxChars", out.bootstrap_total_max_chars);
  if (std::string w = string_at(defaults, "bootstrapTruncationWarning"); !w.empty()) {
    out.bootstrap_truncation_warning = w;
  }

  const ModelChoice default_model = defaults.contains("model") ? parse_model_choice(defaults["model"]) : ModelChoice{};

  AgentSettings base;
  if (std::string t = string_at(defaults, "thinkingDefault"); !t.empty()) base.thinking_default = t;
  base.timeout_seconds = number_at<std::int64_t>(defaults, "timeoutSeconds", base.timeout_seconds);
  if (defaults.contains("contextTokens") && defaults["contextTokens"].is_number()) {
    base.context_tokens = defaults["contextTokens"].get<std::int64_t>();
  }
  base.model = default_model;
  if (std::string engine = string_at(defaults, "contextEngine"); !engine.empty()) base.context_engine = engine;
  if (defaults.contains("compaction") && defaults["compaction"].is_object()) {
    const json& c = defaults["compaction"];
    if (c.contains("enabled") && c["enabled"].is_boolean()) base.compaction.enabled = c["enabled"].get<bool>();
    base.compaction.reserve_tokens = number_at<std::int64_t>(c, "reserveTokens", base.compaction.reserve_tokens);
    base.compaction.keep_recent_tokens = number_at<std::int64_t>(c, "keepRecentTokens", base.compaction.keep_recent_tokens);
  }
  auto unknown_engine = [](const std::string& where, const std::string& id) {
    return Error{"CONFIG_INVALID", where + ".contextEngine: unknown context engine \"" + id + "\" (known: default, legacy)"};
  };
  if (!context::is_known_engine(base.context_engine)) return unknown_engine("agents.defaults", base.context_engine);

  // Entries with ids, checking duplicates (the schema cannot).
  std::vector<const json*> entries;
  std::vector<std::size_t> indexes;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& entry = list[i];
    std::string id = string_at(entry, "id");
    if (id.empty()) continue;
    for (std::size_t j = 0; j < entries.size(); ++j) {
      if (string_at(*entries[j], "id") == id) {
        return Error{"CONFIG_INVALID", "agents.list[" + std::to_string(i) + "].id: duplicate agent id \"" + id +
                                           "\" (also agents.list[" + std::to_string(indexes[j]) + "])"};
      }
    }
    entries.push_back(&entry);
    indexes.push_back(i);
  }

  // Default agent: first marked `default: true`, else the first listed, else "main".
  if (!entries.empty()) {
    out.default_id = string_at(*entries.front(), "id");
    for (const json* e : entries) {
      auto it = e->find("default");
      if (it != e->end() && it->is_boolean() && it->get<bool>()) {
        out.default_id = string_at(*e, "id");
        break;
      }
    }
  }

  const std::string defaults_workspace = string_at(defaults, "workspace");
  auto workspace_for = [&](const std::string& id, const std::string& own) {
    if (!own.empty()) return resolve_user_path(own, state_dir, env);
    if (id == out.default_id) {
      if (!defaults_workspace.empty()) return resolve_user_path(defaults_workspace, state_dir, env);
      return (state_dir / "workspace").lexically_normal();
    }
    return (state_dir / ("workspace-" + id)).lexically_normal();
  };

  if (entries.empty()) {
    AgentSettings a = base;
    a.id = std::string(kDefaultAgentId);
    a.is_default = true;
    a.workspace = workspace_for(a.id, "");
    a.agent_dir = (state_dir / "agents" / a.id).lexically_normal();
    out.agents.push_back(std::move(a));
    return out;
  }

  for (const json* e : entries) {
    AgentSettings a = base;
    a.id = string_at(*e, "id");
    a.name = string_at(*e, "name");
    a.is_default = a.id == out.default_id;
    a.workspace = workspace_for(a.id, string_at(*e, "workspace"));
    a.agent_dir = (state_dir / "agents" / a.id).lexically_normal();
    if (std::string engine = string_at(*e, "contextEngine"); !engine.empty()) {
      if (!context::is_known_engine(engine)) {
        const auto at = static_cast<std::size_t>(std::find(entries.begin(), entries.end(), e) - entries.begin());
        return unknown_engine("agents.list[" + std::to_string(indexes[at]) + "]", engine);
      }
      a.context_engine = engine;
    }
    if (e->contains("model")) {
      bool own_fallbacks = false;
      ModelChoice own = parse_model_choice((*e)["model"], &own_fallbacks);
      if (!own.primary.empty()) a.model.primary = own.primary;
      if (own_fallbacks) a.model.fallbacks = own.fallbacks;
    }
    out.agents.push_back(std::move(a));
  }
  return out;
}

}  // namespace pincer::agent
