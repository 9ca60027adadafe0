// The configured models (SPEC PV-1): every `models.providers.<provider>.models[]` entry as an
// llm::ModelSpec, looked up by its `provider/model` name. Built once from the effective config;
// immutable afterwards, so it may be read from any thread.
//
// Names: "provider/model" splits at the first '/', so model ids may contain '/' themselves
// ("openrouter/anthropic/claude-sonnet-4" = provider "openrouter", model
// "anthropic/claude-sonnet-4"). Lookup is exact first, then ASCII case-insensitive (as OpenClaw's
// catalog lookup). A bare model id without a provider resolves when exactly one provider has it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "llm/messages.h"

namespace pincer::agent {

/// One configured model.
struct ModelEntry {
  llm::ModelSpec spec;
  std::string name;  ///< display name (`name`, else the model id)

  /// "provider/model".
  std::string ref() const { return spec.provider + "/" + spec.id; }
};

/// {"provider", "model"} of "provider/model" (split at the first '/'); {"", ref} when `ref` has
/// no '/' or either side would be empty.
std::pair<std::string, std::string> split_model_ref(std::string_view ref);

class ModelRegistry {
 public:
  ModelRegistry() = default;

  /// Every model of `effective["models"]["providers"]` (a validated config with defaults):
  /// providers in key order, models in list order; a repeated id within one provider keeps the
  /// first. The provider's `apiKey` may be absent or empty (local servers); `headers` are copied;
  /// a model's contextWindow/maxTokens/reasoning/input come from its entry (schema defaults:
  /// 128000, 4096, false, ["text"]).
  static ModelRegistry from_config(const nlohmann::json& effective);

  /// The model named `ref`.
  /// Errors:
  ///   "MODEL_NOT_CONFIGURED" when `ref` is empty: "no model configured: set
  ///     agents.defaults.model.primary to provider/model and add the provider under
  ///     models.providers"
  ///   "MODEL_NOT_FOUND": `unknown model "x/y" (configured: mock/mock-model, openai/gpt-4.1)`
  ///     — at most 10 names, then ", …"; `unknown model "x/y" (no models are configured under
  ///     models.providers)` when there are none.
  /// A ref whose provider is a CLI backend (cli_backend_config.h: claude-cli, codex-cli and the
  /// keys of agents.defaults.cliBackends) resolves to {provider: backend id, id: the model part,
  /// api: kCliBackendApi} when models.providers does not name it; any model part is accepted
  /// (the CLI decides).
  Result<llm::ModelSpec> resolve(std::string_view ref) const;

  /// The entry named `ref` (same lookup as resolve), or nullptr.
  const ModelEntry* find(std::string_view ref) const;

  /// Whether `provider` (case-insensitive) is one resolve() knows: a key of models.providers with
  /// at least one model, or a CLI backend.
  bool has_provider(std::string_view provider) const;

  /// Every model, providers in key order, models in config order.
  const std::vector<ModelEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  /// The `models` array of the `models.list` method (OpenClaw's model catalog rows):
  ///   [{"id", "name", "provider", "contextWindow", "reasoning", "input": ["text", …]}, …]
  /// sorted by provider, then name, then id (byte order).
  nlohmann::json list() const;

 private:
  std::vector<ModelEntry> entries_;
  std::vector<std::string> cli_backends_;  ///< normalised CLI backend ids (resolve)
};

/// Model names of the config that name nothing configured — each agent's primary model and its
/// fallbacks, checked against models.providers — one line each, e.g. `agent "main": model
/// "opnai/gpt-4.1" (agents.defaults.model.primary or agents.list[].model): unknown model …`.
/// An empty primary is not reported (onboarding has not run yet: the gateway says so itself).
/// The gateway warns with these at start and on reload, `pincer config validate` and `doctor` too.
std::vector<std::string> model_reference_warnings(const nlohmann::json& effective);

/// One model reference of the config that resolve() refuses (what model_reference_warnings says).
struct ModelRefProblem {
  std::string agent_id;                ///< the first agent using it
  std::vector<std::string> agent_ids;  ///< every agent using it (several inherit agents.defaults.model)
  /// where it is written in the config: "agents.defaults.model.primary", "agents.list[1].model"
  /// (a string), "agents.list[1].model.fallbacks[0]" — an agent inheriting the defaults' fallbacks
  /// (its entry sets no fallbacks list) names agents.defaults.model.fallbacks[N]
  std::string path;
  std::string ref;       ///< "nope/mock-1"
  std::string provider;  ///< its provider part; "" for a bare model id
  bool unknown_provider = false;  ///< the provider part names no configured provider nor CLI backend
  std::string message;   ///< resolve()'s error message
};
/// Every such reference, each path once (an agent inheriting the defaults repeats none: it is
/// added to that problem's agent_ids).
std::vector<ModelRefProblem> model_reference_problems(const nlohmann::json& effective);

}  // namespace pincer::agent
