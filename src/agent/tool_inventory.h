// Which tools a run of one agent / session gets (SPEC TL-2), computed as a run computes them:
// the policy pipeline (tools/policy/policy_pipeline.h) for the origin the session key describes,
// then the memory tools removed when memory is off. One rule for `pincer tools explain` and the
// gateway's tools.effective (gateway/methods/tools.cpp).
//
// A session key `agent:<id>:<channel>:<direct|dm|group|channel>:<peer>…` is a chat with a sender
// who is not the owner (unless the query says otherwise); any other key ("main", a cron or
// subagent key) is the owner's. The model is the query's (a session's override), else the agent's
// primary model (its provider selects tools.byProvider).
//
// Pure computation over the config; thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agents_config.h"
#include "core/result.h"
#include "tools/policy/policy_pipeline.h"
#include "tools/registry.h"

namespace pincer::agent {

struct ToolsQuery {
  std::string agent_id;                  ///< "" = the session key's agent, else the default agent
  std::string session_key;               ///< "" = none (the owner's main session)
  std::optional<bool> sender_is_owner;   ///< overrides what the session key implies
  bool subagent = false;                 ///< a run on the subagent lane
  std::string model;                     ///< "provider/id" the run uses (a session's override); "" = the agent's primary
};

struct ToolsExplained {
  tools::policy::PolicyOrigin origin;
  tools::policy::PolicyDecision decision;  ///< Tool pointers into the registry given
  std::string profile;                     ///< the tool profile in force: the agent's, tools.profile, else "full"
};

/// Errors: "INVALID_SESSION_KEY" (the message says why, store::session_key_problem),
/// "UNKNOWN_AGENT" (`unknown agent "x"`), and the pipeline's ("TOOLS_PROFILE_UNKNOWN").
Result<ToolsExplained> explain_tools(const tools::ToolRegistry& registry, const nlohmann::json& config,
                                     const AgentsConfig& agents, const std::filesystem::path& state_dir,
                                     const ToolsQuery& query);

}  // namespace pincer::agent
