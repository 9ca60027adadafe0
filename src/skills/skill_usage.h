// Per-skill usage records and the candidate → trusted rule of agent-written skills (SPEC SK-4).
//
// <state dir>/skills-usage.json (written atomically, mode 0600), keyed by the SKILL.md path:
//   {"version": 1, "skills": {"/abs/skills/x/SKILL.md": {"name": "x", "origin": "agent"|"",
//     "status": "candidate"|"trusted"|"", "uses": 3, "successes": 2, "failures": 1,
//     "sinceChange": 2, "createdAt": ms, "changedAt": ms, "lastUsedAt": ms}}}
// A skill written by skill_manage is recorded with origin "agent" and status "candidate" (again
// "candidate", with sinceChange 0, after a patch). A run that read a skill's SKILL.md is a *use*;
// it is a success when the run ended without an error or abort. A candidate whose successes since
// its last change reach skills.trust.successfulUses (default 3) becomes "trusted". Skills that are
// not agent-written get usage counts too (status "").
//
// The state dir is not writable by the agent's file tools (they are confined to the workspace),
// so the model cannot promote its own skill. Blocking file I/O; thread-safe (a process mutex
// serialises read-modify-write).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::skills {

struct SkillUsage {
  std::string file;  ///< the key: SKILL.md path
  std::string name;
  std::string origin;  ///< "agent" or ""
  std::string status;  ///< "candidate", "trusted" or ""
  std::int64_t uses = 0, successes = 0, failures = 0;
  std::int64_t since_change = 0;  ///< successes since created or last patched
  std::int64_t created_at = 0, changed_at = 0, last_used_at = 0;  ///< ms since the epoch; 0 = never
};

/// <state dir>/skills-usage.json
std::filesystem::path usage_file(const std::filesystem::path& state_dir);

/// skills.trust.successfulUses (1..1000; default 3).
int trust_threshold(const nlohmann::json& config);

/// Every record, sorted by name then file. A missing file is an empty list; an unreadable or
/// corrupt one an error ("IO_ERROR" / "USAGE_CORRUPT" naming the file).
Result<std::vector<SkillUsage>> read_usage(const std::filesystem::path& state_dir);

/// skill_manage created (`patched` = false) or patched a skill: origin agent, status candidate.
Status record_agent_write(const std::filesystem::path& state_dir, const std::string& name,
                          const std::filesystem::path& file, bool patched, std::int64_t now_ms);

/// A run that read these skills ended: success or not. Promotes candidates (see above).
struct UsedSkill {
  std::string name;
  std::filesystem::path file;
};
Status record_outcome(const std::filesystem::path& state_dir, const std::vector<UsedSkill>& used, bool success,
                      int trust_after, std::int64_t now_ms);

}  // namespace pincer::skills
