// The agents of a configuration, resolved (SPEC AG-*, MA-*; config keys `agents.defaults` and
// `agents.list[]`, docs/configuration.md). Pure function of the effective config (defaults filled
// in) and the state directory; no I/O.
//
// Rules (OpenClaw's agent-scope, research/openclaw-protocol.md §6 and §7.4):
//   * Default agent: the first `agents.list[]` entry with `default: true`, else the first entry,
//     else "main" (an empty list means one implicit agent "main").
//   * Workspace: the agent's `workspace`; else, for the default agent, `agents.defaults.workspace`
//     or `<state>/workspace`; for any other agent `<state>/workspace-<id>`.
//     Paths: "~" / "~/…" expand to $HOME; a relative path is taken relative to the state dir.
//   * Agent dir (its state: sessions, credentials): `<state>/agents/<id>`.
//   * Model: the agent's `model` (string = primary only, fallbacks inherited; object = its
//     `primary`, and its `fallbacks` when that key is present — an empty list disables them),
//     else `agents.defaults.model`. No model anywhere leaves `primary` empty; ModelRegistry
//     then reports the "no model configured" error.
//   * thinkingDefault, timeoutSeconds, contextTokens, compaction come from agents.defaults;
//     contextEngine from the agent, else agents.defaults (an unknown engine id is an error).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "context/context_engine.h"
#include "core/config.h"
#include "core/result.h"
#include "llm/messages.h"

namespace pincer::agent {

/// The implicit agent when `agents.list` is empty or names none.
inline constexpr std::string_view kDefaultAgentId = "main";

/// `model` as configured: "provider/model" refs.
struct ModelChoice {
  std::string primary;                 ///< "" = none configured
  std::vector<std::string> fallbacks;  ///< tried in order after the primary (PV-5)
};

/// One agent, fully resolved.
struct AgentSettings {
  std::string id;                       ///< e.g. "main"
  std::string name;                     ///< display name; "" when not configured
  bool is_default = false;
  std::filesystem::path workspace;      ///< absolute when the state dir is
  std::filesystem::path agent_dir;      ///< <state>/agents/<id>
  ModelChoice model;
  std::string thinking_default = "off";  ///< off|minimal|low|medium|high|xhigh
  std::int64_t timeout_seconds = 600;
  std::optional<std::int64_t> context_tokens;  ///< agents.defaults.contextTokens: caps the model's window
  /// agents.list[].contextEngine, else agents.defaults.contextEngine (CX-1); a known engine id.
  std::string context_engine = std::string(context::kDefaultEngineId);
  context::CompactionSettings compaction;  ///< agents.defaults.compaction (CX-9)
};

/// Every agent plus the agent-wide settings of agents.defaults.
struct AgentsConfig {
  std::string default_id = std::string(kDefaultAgentId);
  std::vector<AgentSettings> agents;  ///< in `agents.list` order; just "main" when it is empty
  std::int64_t max_concurrent = 4;             ///< agents.defaults.maxConcurrent: the main lane
  std::int64_t subagents_max_concurrent = 8;   ///< agents.defaults.subagents.maxConcurrent
  std::size_t bootstrap_max_chars = 20'000;
  std::size_t bootstrap_total_max_chars = 150'000;
  std::string bootstrap_truncation_warning = "once";  ///< once|always|off

  /// The agent with this id, or nullptr.
  const AgentSettings* find(std::string_view id) const;
  /// The default agent (always present).
  const AgentSettings& default_agent() const;
  /// The store key a run of `request_key` uses (store::to_agent_store_session_key): "" or "main"
  /// → `agent:<agent>:main`, a short key → `agent:<agent>:<key>`, an `agent:…` key as written
  /// (lowercased); <agent> is `agent_id` normalised, or the default agent when it is "". The one
  /// rule of AgentService (every run) and of `pincer sandbox explain`. Does not check the key
  /// (store::session_key_problem) nor that the agent exists.
  std::string session_key(std::string_view request_key, std::string_view agent_id = {}) const;
};

/// Resolves `effective` (a validated config with defaults, config::LoadedConfig::effective).
/// `env` supplies HOME for "~" expansion (may be empty: then "~" is left as written).
/// Errors (code "CONFIG_INVALID"), for what the schema cannot express:
///   `agents.list[1].id: duplicate agent id "work" (also agents.list[0])`
///   `agents.defaults.contextEngine: unknown context engine "x" (known: default, legacy)`
Result<AgentsConfig> resolve_agents(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                    const config::EnvLookup& env = {});

/// Parses a `model` value of the config ("provider/model" or {primary, fallbacks}). Anything
/// else gives an empty choice. `has_fallbacks` (optional) says whether fallbacks were given.
ModelChoice parse_model_choice(const nlohmann::json& value, bool* has_fallbacks = nullptr);

/// Thinking level of a config/directive word: off|minimal|low|medium|high|xhigh (AG-7; a level a
/// provider rejects is stepped down at run time, see thinking_levels.h). nullopt for anything else.
std::optional<llm::ThinkingLevel> thinking_level(std::string_view word);

}  // namespace pincer::agent
