#include "cli/config_model_checks.h"

#include <algorithm>
#include <cctype>

#include "agent/model_registry.h"
#include "core/json5_edit.h"
#include "core/paths.h"
#include "llm/auth/auth_profile_file.h"

namespace pincer::cli {

using nlohmann::json;

namespace {

/// The key of models.providers naming `provider` (case-insensitive, as ModelRegistry), or "".
std::string config_checks_provider_key(const nlohmann::json& effective, const std::string& provider) {
  const json providers = effective.value("models", json::object()).value("providers", json::object());
  if (!providers.is_object()) return "";
  for (const auto& item : providers.items()) {
    const std::string& key = item.key();
    if (key.size() == provider.size() && std::equal(key.begin(), key.end(), provider.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return key;
    }
  }
  return "";
}

/// `agent "main"`, or `agents "main", "ops"` when several use (inherit) the reference.
std::string config_checks_agents_label(const std::vector<std::string>& ids) {
  std::string out = ids.size() == 1 ? "agent " : "agents ";
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? ", \"" : "\"") + ids[i] + "\"";
  return out;
}

}  // namespace

void check_model_references(const nlohmann::json& effective, const agent::AgentsConfig& agents, const config::EnvLookup& env,
                            const ConfigCheckOptions& options, ConfigProblems& out) {
  std::vector<std::string> profile_providers;  // read once, only when a provider is unknown
  bool profiles_read = false;
  const agent::ModelRegistry registry = agent::ModelRegistry::from_config(effective);
  for (const auto& p : agent::model_reference_problems(effective)) {
    // Who uses the reference, and as what: said with every problem, so that `config unset`'s
    // refusal (which repeats these lines) names the agent and the model that keep a provider.
    const bool config_checks_is_fallback = p.path.find(".fallbacks[") != std::string::npos;
    const std::string used_by = std::string(config_checks_is_fallback ? " (a fallback model of " : " (the primary model of ") +
                                config_checks_agents_label(p.agent_ids) + ")";
    if (p.provider.empty()) {
      // A bare model id: runs resolve it when exactly one configured provider lists that id
      // (ModelRegistry::find); none or several fail every turn (MODEL_NOT_FOUND) — an error for a
      // primary model, as for a provider that is not configured; a fallback is skipped.
      std::vector<std::string> owners;
      for (const auto& e : registry.entries()) {
        if (e.spec.id.size() == p.ref.size() &&
            std::equal(e.spec.id.begin(), e.spec.id.end(), p.ref.begin(), [](char a, char b) {
              return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
          owners.push_back(e.ref());
        }
      }
      std::string problem = p.path + ": \"" + p.ref + "\"" + used_by + " names no provider";
      if (owners.empty()) {
        problem += ", and no configured provider lists a model \"" + p.ref + "\": " + p.message +
                   "; write it as provider/model, with that provider under models.providers";
      } else {
        std::string names;
        for (std::size_t i = 0; i < owners.size(); ++i) names += (i ? ", \"" : "\"") + owners[i] + "\"";
        problem += ", and several configured providers list it, so runs cannot choose: write one of " + names;
      }
      if (config_checks_is_fallback) {
        out.warnings.push_back(problem + "; runs skip this fallback");
      } else if (options.model_refs_are_errors) {
        out.errors.push_back(problem + "; every turn fails with MODEL_NOT_FOUND");
      } else {
        out.warnings.push_back(problem + "; every turn fails with MODEL_NOT_FOUND");
      }
      continue;
    }
    if (!p.unknown_provider) {
      // Every run of this agent would fail with this message (ModelRegistry::resolve).
      out.warnings.push_back(p.path + ": \"" + p.ref + "\" (" + config_checks_agents_label(p.agent_ids) + "): " + p.message);
      continue;
    }
    // The block is there but lists no models: say that, not "not configured".
    if (const std::string key = config_checks_provider_key(effective, p.provider); !key.empty()) {
      out.warnings.push_back(p.path + ": \"" + p.ref + "\" names the provider \"" + p.provider +
                             "\", whose " + json5::format_path({"models", "providers", key, "models"}) + " lists no models (add \"" +
                             p.ref.substr(std::min(p.ref.size(), p.provider.size() + 1)) + "\" there)");
      continue;
    }
    if (!profiles_read) {
      profiles_read = true;
      for (const auto& a : agents.agents) {
        llm::auth::AuthProfileFile file(llm::auth::auth_profiles_path(paths::state_dir(env), a.id));
        std::error_code ec;
        if (!std::filesystem::exists(file.path(), ec)) continue;
        if (auto doc = file.load()) {
          for (const auto& c : doc->credentials()) profile_providers.push_back(c.provider);
        }
      }
    }
    const bool in_profiles = std::any_of(profile_providers.begin(), profile_providers.end(), [&](const std::string& x) {
      return x.size() == p.provider.size() && std::equal(x.begin(), x.end(), p.provider.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
             });
    });
    std::string problem = p.path + ": \"" + p.ref + "\" names the provider \"" + p.provider +
                          "\", which is not configured (add it under " +
                          json5::format_path({"models", "providers", p.provider}) + " with its models, or use a configured provider)" +
                          used_by;
    // An auth profile gives a provider credentials, not models: runs resolve models from
    // models.providers only, so it changes nothing here (it is said, as the user may think so).
    if (in_profiles) problem += "; an auth profile names that provider, but runs resolve models from models.providers only";
    // A fallback no run can use is skipped (agent::make_model_failover): the primary and the other
    // fallbacks still answer, as OpenClaw fails over past a "model_not_found" candidate — a warning
    // everywhere (validate, gateway start and reload, config set, doctor, import).
    if (config_checks_is_fallback) {
      out.warnings.push_back(problem + "; runs skip this fallback");
    } else if (options.model_refs_are_errors) {
      out.errors.push_back(problem);
    } else {
      out.warnings.push_back(problem);
    }
  }
  // A provider block whose models list is empty: runs resolve a model only from its provider's
  // list, so no agent can use this provider (OpenClaw accepts `models: []`, its built-in catalogue
  // filling in; Pincer has none) — a warning naming the path, unless a model reference above said
  // it. (A block without the key is left alone: it may be written before its models.)
  const json providers = effective.value("models", json::object()).value("providers", json::object());
  if (!providers.is_object()) return;
  for (const auto& [key, block] : providers.items()) {
    if (!block.is_object()) continue;
    const auto models = block.find("models");
    if (models == block.end() || !models->is_array() || !models->empty()) continue;
    const std::string at = json5::format_path({"models", "providers", key, "models"});
    const bool said = std::any_of(out.warnings.begin(), out.warnings.end(),
                                  [&](const std::string& w) { return w.find(", whose " + at + " lists no models") != std::string::npos; });
    if (said) continue;
    out.warnings.push_back(at + ": empty: no agent can use a model of the provider \"" + key +
                           "\" (runs resolve models from this list only; add its models, e.g. [ { id: \"<model id>\" } ])");
  }
}


}  // namespace pincer::cli
