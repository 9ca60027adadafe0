// The model-reference part of the config checks (cli/config_checks.h): what every turn's model
// resolver (agent/model_registry.h) would refuse, said once when the config is checked.
//
// Blocking (reads the agents' auth-profiles.json when a provider is unknown); any thread.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/agents_config.h"
#include "cli/config_checks.h"
#include "core/config.h"

namespace pincer::cli {

/// Model references every turn would refuse (ModelRegistry::resolve, the run's own resolver):
/// a primary model whose provider is neither under models.providers nor a CLI backend is an error
/// naming the path and the agents using it (a warning when `options.model_refs_are_errors` is
/// false); an auth profile naming that provider changes nothing (it gives credentials, not models:
/// the line says so). So is a bare model id (no "provider/") that no configured provider lists,
/// or that several list (runs resolve a bare id only when exactly one provider lists it). Such a
/// fallback is always a warning (runs skip it). A model its configured provider
/// does not list, or a provider block that lists no models, is a warning (docs/cli.md: the
/// provider may serve more than the config lists; each run says the same).
void check_model_references(const nlohmann::json& effective, const agent::AgentsConfig& agents, const config::EnvLookup& env,
                            const ConfigCheckOptions& options, ConfigProblems& out);

}  // namespace pincer::cli
