// The skills snapshot of a session (SPEC SK-2, SK-3): at a session's first turn the eligible skills
// are listed in the system prompt — name, description and the SKILL.md path, nothing more; the model
// reads a SKILL.md with `read` when a task matches (progressive disclosure). Later turns of the
// session reuse the same snapshot (same prompt bytes: provider prompt caches keep hitting) until a
// skill changes: a fingerprint of the SKILL.md files (path, size, mtime) in every location, the
// `skills` config, the agent's filter and the candidate/trusted states is compared on each turn,
// and only a different fingerprint rebuilds the snapshot.
//
// Also keeps the process-wide list of skill folders outside workspaces (user, bundled, extra
// locations) that the `read` tool may read (and only read): see readable_skill_roots().
//
// Threading: any thread (a process mutex guards the cache); blocking file reads.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "skills/skill_loader.h"

namespace pincer::skills {

/// One listed skill of a snapshot.
struct SnapshotSkill {
  std::string name;
  std::filesystem::path file;  ///< absolute SKILL.md path
  std::string status;          ///< "candidate", "trusted" or ""
  std::string key;             ///< its skills.entries key (metadata skillKey, else the name)
  std::string primary_env;     ///< the variable skills.entries.<key>.apiKey fills ("" = none)
};

struct Snapshot {
  std::string prompt;                ///< the system prompt's skills section ("" = no eligible skill)
  std::vector<SnapshotSkill> skills; ///< the listed (eligible, model-visible) skills, by name
  std::string fingerprint;
};

struct SnapshotRequest {
  std::string session_key;  ///< the cache key
  LoadOptions load;         ///< workspace, state dir, config, agent, env
};

/// The session's snapshot: the cached one while the fingerprint is unchanged, else a new one.
std::shared_ptr<const Snapshot> session_snapshot(const SnapshotRequest& request);

/// Forgets every cached snapshot (tests).
void clear_snapshots();

/// The prompt section for `skills` (eligible and model-invocable ones only; `status` by SKILL.md
/// path marks candidates). Pure; "" when none is listed. At most 200 skills; each description is
/// cut at 400 bytes.
std::string format_skills_prompt(const std::vector<SkillEntry>& skills,
                                 const std::vector<SnapshotSkill>& statuses = {});

/// The fingerprint of what a snapshot depends on (see the header comment).
std::string skills_fingerprint(const LoadOptions& options);

/// Skill folders outside any workspace (user, bundled, extra) that the `read` tool may read:
/// every location directory seen by a snapshot of this process. Thread-safe copy.
std::vector<std::filesystem::path> readable_skill_roots();

/// Adds location directories to readable_skill_roots() (done by session_snapshot; tests).
void add_readable_skill_roots(const std::vector<SkillLocation>& locations);

}  // namespace pincer::skills
