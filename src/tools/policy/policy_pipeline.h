// The tool policy pipeline (SPEC TL-2): which tools one run may offer the model, decided by the
// gateway before the run starts, never by the model. Layers, in order; each can only remove
// tools (deny always beats allow), and the first layer that removes a tool is recorded:
//   1. owner-only   control-plane tools (gateway, cron, nodes, …) are removed when the sender of
//                   the run is not the owner (OpenClaw's GATEWAY_OWNER_ONLY_CORE_TOOLS).
//   2. profile      the agent's `tools.profile`, else `tools.profile` (registry.h), widened by
//                   `tools.alsoAllow` and the agent's `tools.alsoAllow`.
//   3. byProvider   `tools.byProvider["<provider>/<model>"]`, else `["<provider>"]`:
//                   {profile?, allow?, deny?} narrow the set for that model.
//   4. global       `tools.allow` (narrows when non-empty) and `tools.deny`.
//   5. agent        `agents.list[].tools.allow` / `.deny`.
//   6. group        in a group chat only: `channels.<id>.groups.<chat>.tools`, else the `*`
//                   entry's {allow, deny}. Direct messages skip this layer.
//   7. sandbox      a floor the sandbox subsystem fills (PolicyOrigin::sandbox_floor); a run
//                   that is not sandboxed has none.
//   8. subagent     runs on the subagent lane: `tools.subagents.tools` {allow, deny} (default
//                   deny: the control-plane tools).
// Entry syntax is registry.h's (names, `*` globs, `group:fs`, "bash" = "exec").
//
// Pure: no I/O, no state; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/registry.h"

namespace pincer::tools::policy {

/// Allow/deny rules of one layer (any part may be empty = no effect).
struct LayerRules {
  std::string profile;              ///< narrows to the profile's tools ("" = no effect)
  std::vector<std::string> allow;   ///< non-empty: narrows
  std::vector<std::string> deny;
  std::string source;               ///< config path shown by `tools explain`, e.g. "tools.byProvider.openai"
  bool empty() const { return profile.empty() && allow.empty() && deny.empty(); }
};

/// Who and what a run is for: everything the layers depend on besides the config.
struct PolicyOrigin {
  std::string agent_id = "main";
  std::string provider;               ///< model provider id, e.g. "openai"
  std::string model;                  ///< model id, e.g. "gpt-4.1-mini"
  std::string channel;                ///< "" = a gateway client (terminal, web chat, CLI)
  bool is_group = false;              ///< a group chat of `channel`
  std::string group_id;               ///< its chat id
  bool sender_is_owner = true;        ///< see approvals/exec_policy.h for who is the owner
  bool subagent = false;              ///< runs on the subagent lane
  std::optional<LayerRules> sandbox_floor;  ///< filled by the sandbox subsystem when sandboxed
  /// Skips layer 2 (the profile): for tools outside the registry that the owner configured one by
  /// one (MCP servers' tools, tools/dynamic_tools.h); every other layer applies.
  bool skip_profile = false;
};

/// What became of one registered tool.
struct ToolVerdict {
  std::string tool;
  bool allowed = true;
  std::string layer;   ///< "" when allowed; else owner-only|profile|byProvider|global|agent|group|sandbox|subagent
  std::string reason;  ///< e.g. `denied by tools.deny "exec"`, `not in profile "minimal"`
};

struct PolicyDecision {
  std::vector<const Tool*> tools;     ///< offered to the model, registry order
  std::vector<ToolVerdict> verdicts;  ///< every registered tool, registry order
};

/// The layer names, in order.
const std::vector<std::string>& layer_names();

/// Control-plane tools only the owner's runs get (layer 1).
const std::vector<std::string>& owner_only_tools();

/// Runs the pipeline. `config`: the effective config (defaults filled in).
/// Errors: "TOOLS_PROFILE_UNKNOWN" naming the config path of a bad profile.
Result<PolicyDecision> decide(const ToolRegistry& registry, const nlohmann::json& config, const PolicyOrigin& origin);
/// The same for tools outside the registry (the dynamic tools of a run), in the given order.
Result<PolicyDecision> decide(const std::vector<const Tool*>& tools, const nlohmann::json& config, const PolicyOrigin& origin);

/// Removes every tool of `group` (Tool::group) that `decision` still offers, recording `layer` and
/// `reason` in its verdict: a subsystem that is switched off, e.g. the memory tools with
/// `memory.backend: none` (layer "memory"). The one rule of a run and of `pincer tools explain`.
void remove_group(PolicyDecision& decision, std::string_view group, const std::string& layer, const std::string& reason);

/// One line per tool, for logs and `pincer tools explain`: "exec  allowed" /
/// "exec  removed by global: denied by tools.deny \"exec\"".
std::string explain_text(const PolicyDecision& decision);

}  // namespace pincer::tools::policy
