// Finding, parsing, checking and scanning the skills an agent can use (SPEC SK-1, SK-4).
//
// Locations, highest precedence first (a skill name found in several: the highest wins, the
// others are recorded as shadowed):
//   workspace  <workspace>/skills/<name>/SKILL.md
//   user       <state dir>/skills/<name>/SKILL.md      (~/.pincer/skills; $PINCER_HOME/skills)
//   bundled    <state dir>/bundled-skills/<name>/SKILL.md (Pincer's own, bundled_skills.h)
//   extra      each of skills.load.extraDirs (`~/` expanded), in order
// Each location holds one folder per skill; hidden folders are ignored.
//
// Eligibility (OpenClaw's rules, config keys as OpenClaw's `skills.*`):
//   - skills.entries.<skillKey>.enabled = false              → "disabled in skills.entries.<key>.enabled"
//   - bundled skill not in a non-empty skills.allowBundled    → "not in skills.allowBundled"
//   - agents.list[<agent>].skills given and without the name → "not in agents.list[].skills of agent <id>"
//   - metadata.openclaw.os without this OS                    → "needs OS darwin (this is linux)"
//   - unless metadata.openclaw.always: every `bins` on PATH, one of `anyBins`, every `env` set in
//     the process or by skills.entries.<key>.env / .apiKey (for primaryEnv), every `config` path
//     truthy in the config → "missing binary: op", "missing one of: a, b", "missing env: X",
//     "config not set: a.b"
//   - a safety finding (scanner.h)                            → blocked: "blocked by the safety scan: …"
// A SKILL.md that does not parse is a LoadProblem (file, line, message); the others still load.
//
// Blocking filesystem reads; thread-safe (no shared state).
#pragma once

#include <filesystem>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "skills/front_matter.h"
#include "skills/scanner.h"

namespace pincer::skills {

enum class SkillSource { Workspace, User, Bundled, Extra };
/// "workspace", "user", "bundled", "extra".
const char* to_string(SkillSource source);
/// OpenClaw's names: "openclaw-workspace", "openclaw-managed", "openclaw-bundled", "openclaw-extra".
const char* openclaw_source(SkillSource source);

/// What a skill lacks (the unmet part of its Requirements).
struct Missing {
  std::vector<std::string> bins, any_bins, env, config, os;
  bool empty() const { return bins.empty() && any_bins.empty() && env.empty() && config.empty() && os.empty(); }
};

/// One loaded skill.
struct SkillEntry {
  SkillManifest manifest;
  std::filesystem::path dir;   ///< the skill's folder (absolute)
  std::filesystem::path file;  ///< dir / "SKILL.md"
  SkillSource source = SkillSource::Workspace;
  bool disabled = false;                 ///< skills.entries.<key>.enabled = false
  bool blocked_by_allowlist = false;     ///< skills.allowBundled
  bool blocked_by_agent_filter = false;  ///< agents.list[].skills
  bool blocked = false;                  ///< a safety finding (SK-4)
  std::vector<Finding> findings;
  Missing missing;
  bool eligible = false;             ///< offered to the model
  std::vector<std::string> reasons;  ///< why not eligible (empty when eligible)
  std::vector<std::filesystem::path> shadowed;  ///< lower-precedence SKILL.md files with the same name
};

/// A SKILL.md that could not be loaded.
struct LoadProblem {
  std::filesystem::path file;
  int line = 0;  ///< 1-based; 0 = the whole file
  std::string message;
  SkillSource source = SkillSource::Workspace;
  std::string describe() const;  ///< "<file>:<line>: <message>"
};

/// Where skills are looked for, in precedence order.
struct SkillLocation {
  SkillSource source;
  std::filesystem::path dir;
};

/// What the loader reads.
struct LoadOptions {
  std::filesystem::path workspace;  ///< the agent's workspace ("" = no workspace location)
  std::filesystem::path state_dir;  ///< "" = no user/bundled location
  /// The effective config document, shared rather than copied (a run's snapshot check happens
  /// every turn); null = an empty config.
  std::shared_ptr<const nlohmann::json> config;
  /// *config, or an empty object when there is none.
  const nlohmann::json& config_doc() const;
  std::string agent_id;             ///< for agents.list[].skills; "" = no agent filter
  config::EnvLookup env;            ///< the process environment (PATH, env requirements); null = none
  std::string platform;             ///< node's process.platform name; "" = this machine's ("linux")
  bool materialize_bundled = true;  ///< write Pincer's bundled skills under the state dir first
};

struct SkillsReport {
  std::vector<SkillEntry> skills;  ///< one per name (the winning location), sorted by name
  std::vector<LoadProblem> problems;
  std::vector<SkillLocation> locations;
  std::optional<std::vector<std::string>> agent_filter;  ///< agents.list[].skills when given
};

/// The locations of `options`, highest precedence first.
std::vector<SkillLocation> skill_locations(const LoadOptions& options);

/// Loads, checks and scans every skill (see the header comment).
SkillsReport load_skills(const LoadOptions& options);

/// The eligibility part alone, for tests: fills `missing` for `manifest` on `platform` with the
/// given PATH, env, entry settings and config. Pure except for the PATH probes (access(2)).
Missing check_requirements(const SkillManifest& manifest, const std::string& platform, const config::EnvLookup& env,
                           const nlohmann::json& entry, const nlohmann::json& config);

/// skills.entries.<key> (an object, or {} when absent).
nlohmann::json skill_entry_config(const nlohmann::json& config, const std::string& key);

/// agents.list[id=agent_id].skills, when the agent has that key (an array of names).
std::optional<std::vector<std::string>> agent_skill_filter(const nlohmann::json& config, const std::string& agent_id);

/// `pincer skills list --json` / skills.status-style JSON of one entry (OpenClaw's field names
/// plus Pincer's `location`, `reasons`, `blocked`, `findings`, `shadowed`).
nlohmann::json entry_json(const SkillEntry& entry);

/// This machine's OS in node's process.platform terms ("linux", "darwin", …).
std::string this_platform();

}  // namespace pincer::skills
