// Configured models (see model_registry.h).
#include "agent/model_registry.h"

#include "agent/agents_config.h"
#include "agent/cli_backend_config.h"

#include <algorithm>
#include <cctype>

namespace pincer::agent {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNamesInError = 10;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string string_or(const json& obj, const char* key, std::string fallback = "") {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

std::pair<std::string, std::string> split_model_ref(std::string_view ref) {
  const auto slash = ref.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == ref.size()) return {"", std::string(ref)};
  return {std::string(ref.substr(0, slash)), std::string(ref.substr(slash + 1))};
}

ModelRegistry ModelRegistry::from_config(const json& effective) {
  ModelRegistry registry;
  registry.cli_backends_ = cli_backend_ids(effective);
  if (!effective.is_object() || !effective.contains("models")) return registry;
  const json& models = effective["models"];
  if (!models.is_object() || !models.contains("providers") || !models["providers"].is_object()) return registry;

  for (const auto& item : models["providers"].items()) {
    const std::string& provider_id = item.key();
    const json& provider = item.value();
    if (!provider.is_object()) continue;
    llm::ModelSpec base;
    base.provider = provider_id;
    base.api = string_or(provider, "api", "openai-completions");
    base.base_url = string_or(provider, "baseUrl");
    base.api_key = string_or(provider, "apiKey");
    if (auto h = provider.find("headers"); h != provider.end() && h->is_object()) {
      for (const auto& [name, value] : h->items()) {
        if (value.is_string()) base.headers[name] = value.get<std::string>();
      }
    }
    if (auto o = provider.find("oauth"); o != provider.end() && o->is_object()) {  // docs/providers.md
      base.oauth_token_url = string_or(*o, "tokenUrl");
      base.oauth_client_id = string_or(*o, "clientId");
      base.oauth_body_format = string_or(*o, "bodyFormat");
    }
    auto list = provider.find("models");
    if (list == provider.end() || !list->is_array()) continue;
    for (const json& m : *list) {
      if (!m.is_object()) continue;
      ModelEntry entry;
      entry.spec = base;
      entry.spec.id = string_or(m, "id");
      if (entry.spec.id.empty()) continue;
      const bool duplicate = std::any_of(registry.entries_.begin(), registry.entries_.end(), [&](const ModelEntry& e) {
        return e.spec.provider == provider_id && e.spec.id == entry.spec.id;
      });
      if (duplicate) continue;
      entry.name = string_or(m, "name", entry.spec.id);
      if (entry.name.empty()) entry.name = entry.spec.id;
      entry.spec.context_window = m.value("contextWindow", entry.spec.context_window);
      entry.spec.max_tokens = m.value("maxTokens", entry.spec.max_tokens);
      entry.spec.reasoning = m.value("reasoning", entry.spec.reasoning);
      if (auto in = m.find("input"); in != m.end() && in->is_array()) {
        entry.spec.input.clear();
        for (const auto& kind : *in) {
          if (kind.is_string()) entry.spec.input.push_back(kind.get<std::string>());
        }
      }
      registry.entries_.push_back(std::move(entry));
    }
  }
  return registry;
}

const ModelEntry* ModelRegistry::find(std::string_view ref) const {
  auto [provider, model] = split_model_ref(ref);
  if (provider.empty()) {
    // A bare model id: accept it when exactly one provider serves it.
    const ModelEntry* only = nullptr;
    for (const auto& e : entries_) {
      if (!iequals(e.spec.id, model)) continue;
      if (only != nullptr) return nullptr;
      only = &e;
    }
    return only;
  }
  for (const auto& e : entries_) {
    if (e.spec.provider == provider && e.spec.id == model) return &e;
  }
  for (const auto& e : entries_) {
    if (iequals(e.spec.provider, provider) && iequals(e.spec.id, model)) return &e;
  }
  return nullptr;
}

Result<llm::ModelSpec> ModelRegistry::resolve(std::string_view ref) const {
  if (ref.empty()) {
    return Error{"MODEL_NOT_CONFIGURED",
                 "no model configured: set agents.defaults.model.primary to provider/model and add the "
                 "provider under models.providers"};
  }
  if (const ModelEntry* e = find(ref)) return e->spec;
  if (auto [provider, model] = split_model_ref(ref); !provider.empty()) {  // a CLI backend (cli_backend_config.h)
    const std::string id = normalize_cli_backend_id(provider);
    if (std::find(cli_backends_.begin(), cli_backends_.end(), id) != cli_backends_.end()) {
      llm::ModelSpec spec;
      spec.provider = id;
      spec.id = model;
      spec.api = kCliBackendApi;
      spec.input = {"text", "image"};  // images go to the CLI as files (imageArg, agent_run_cli.cpp)
      return spec;
    }
  }
  std::string message = "unknown model \"" + std::string(ref) + "\" (";
  if (entries_.empty()) {
    message += "no models are configured under models.providers)";
  } else {
    message += "configured: ";
    for (std::size_t i = 0; i < entries_.size() && i < kMaxNamesInError; ++i) {
      message += (i == 0 ? "" : ", ") + entries_[i].ref();
    }
    if (entries_.size() > kMaxNamesInError) message += ", …";
    message += ")";
  }
  return Error{"MODEL_NOT_FOUND", std::move(message)};
}

json ModelRegistry::list() const {
  std::vector<const ModelEntry*> sorted;
  sorted.reserve(entries_.size());
  for (const auto& e : entries_) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ModelEntry* a, const ModelEntry* b) {
    if (a->spec.provider != b->spec.provider) return a->spec.provider < b->spec.provider;
    if (a->name != b->name) return a->name < b->name;
    return a->spec.id < b->spec.id;
  });
  json rows = json::array();
  for (const ModelEntry* e : sorted) {
    rows.push_back({{"id", e->spec.id},
                    {"name", e->name},
                    {"provider", e->spec.provider},
                    {"contextWindow", e->spec.context_window},
                    {"reasoning", e->spec.reasoning},
                    {"input", e->spec.input}});
  }
  return rows;
}

bool ModelRegistry::has_provider(std::string_view provider) const {
  for (const auto& e : entries_) {
    if (iequals(e.spec.provider, provider)) return true;
  }
  const std::string id = normalize_cli_backend_id(std::string(provider));
  return std::find(cli_backends_.begin(), cli_backends_.end(), id) != cli_backends_.end();
}

std::vector<std::string> model_reference_warnings(const json& effective) {
  std::vector<std::string> out;
  auto agents = resolve_agents(effective, {});
  if (!agents) return out;  // the config's own error says more
  const ModelRegistry registry = ModelRegistry::from_config(effective);
  for (const auto& a : agents->agents) {
    std::vector<std::string> refs;
    if (!a.model.primary.empty()) refs.push_back(a.model.primary);
    refs.insert(refs.end(), a.model.fallbacks.begin(), a.model.fallbacks.end());
    for (const auto& ref : refs) {
      if (auto r = registry.resolve(ref); !r) {
        out.push_back("agent \"" + a.id + "\": model \"" + ref + "\" (" +
                      (ref == a.model.primary ? "primary" : "fallback") + "): " + r.error().message);
      }
    }
  }
  return out;
}

namespace {

/// Where the model value `model` (a string or {primary, fallbacks}) under `base` writes each
/// reference parse_model_choice reads from it: the primary's path ("" when it writes none) and, when
/// it has a fallbacks list, each kept fallback's path with its index in the file (parse_model_choice
/// leaves out entries that are not strings or are blank, so the indexes may differ).
struct WrittenModel {
  std::string primary;
  bool has_fallbacks = false;
  std::vector<std::string> fallbacks;
};
WrittenModel written_model(const json& model, const std::string& base) {
  WrittenModel out;
  bool has_fallbacks = false;
  const ModelChoice choice = parse_model_choice(model, &has_fallbacks);
  if (!choice.primary.empty()) out.primary = model.is_string() ? base : base + ".primary";
  out.has_fallbacks = has_fallbacks;
  if (!has_fallbacks) return out;
  const json& list = model["fallbacks"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_string() && !parse_model_choice(list[i]).primary.empty()) {
      out.fallbacks.push_back(base + ".fallbacks[" + std::to_string(i) + "]");
    }
  }
  return out;
}

}  // namespace

std::vector<ModelRefProblem> model_reference_problems(const json& effective) {
  std::vector<ModelRefProblem> out;
  auto agents = resolve_agents(effective, {});
  if (!agents) return out;
  const ModelRegistry registry = ModelRegistry::from_config(effective);
  const json* list = nullptr;
  json defaults_model;
  if (effective.is_object() && effective.contains("agents") && effective["agents"].is_object()) {
    const json& section = effective["agents"];
    if (auto it = section.find("list"); it != section.end() && it->is_array()) list = &*it;
    if (auto d = section.find("defaults"); d != section.end() && d->is_object() && d->contains("model")) {
      defaults_model = (*d)["model"];
    }
  }
  const WrittenModel defaults = written_model(defaults_model, "agents.defaults.model");
  for (const auto& a : agents->agents) {
    // Where each of the agent's references is written: its own entry of agents.list for what that
    // entry sets (a primary, a fallbacks list), else agents.defaults.model, which it inherits.
    WrittenModel own;
    for (std::size_t i = 0; list != nullptr && i < list->size(); ++i) {
      const json& entry = (*list)[i];
      if (entry.is_object() && entry.value("id", "") == a.id && entry.contains("model") && !entry["model"].is_null()) {
        own = written_model(entry["model"], "agents.list[" + std::to_string(i) + "].model");
      }
    }
    const WrittenModel& fallbacks_from = own.has_fallbacks ? own : defaults;
    std::vector<std::pair<std::string, std::string>> refs;  // path, ref
    if (!a.model.primary.empty()) refs.emplace_back(own.primary.empty() ? defaults.primary : own.primary, a.model.primary);
    for (std::size_t i = 0; i < a.model.fallbacks.size(); ++i) {
      refs.emplace_back(i < fallbacks_from.fallbacks.size() ? fallbacks_from.fallbacks[i] : "", a.model.fallbacks[i]);
    }
    for (const auto& path_and_ref : refs) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const std::string& path = path_and_ref.first;
      const std::string& ref = path_and_ref.second;
      auto r = registry.resolve(ref);
      if (r) continue;
      // Written once, used by several agents (the defaults): one problem, naming each of them.
      auto same = std::find_if(out.begin(), out.end(), [&](const ModelRefProblem& p) { return p.path == path; });
      if (same != out.end()) {
        same->agent_ids.push_back(a.id);
        continue;
      }
      ModelRefProblem p;
      p.agent_id = a.id;
      p.agent_ids = {a.id};
      p.path = path;
      p.ref = ref;
      p.provider = split_model_ref(ref).first;
      p.unknown_provider = !p.provider.empty() && !registry.has_provider(p.provider);
      p.message = r.error().message;
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace pincer::agent
