// The tool policy's decision (TL-2) for a run, kept per origin while the config stays the same:
// every turn of a chat asks the same question (issue 17: the pipeline over every registered tool
// was ≈ 5 % of a turn's instructions). Loop affinity: as AgentService (one thread, no lock).
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/policy/policy_pipeline.h"

namespace pincer::agent {

class ToolDecisionCache {
 public:
  /// tools::policy::decide(registry, *config, origin), from the cache when the same `config`
  /// document (by identity: a reload makes a new one) and an equal origin were decided before.
  /// `registry` must be the same registry on every call (the agent service's built-in one).
  /// Errors: as decide() (an error is not cached).
  Result<tools::policy::PolicyDecision> decide(const tools::ToolRegistry& registry,
                                               const std::shared_ptr<const nlohmann::json>& config,
                                               const tools::policy::PolicyOrigin& origin);

 private:
  std::shared_ptr<const nlohmann::json> config_;  // held: its address is not reused while cached
  std::map<std::string, tools::policy::PolicyDecision> by_origin_;
};

}  // namespace pincer::agent
