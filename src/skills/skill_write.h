// Writing skills for the agent (SPEC SK-4, the `skill_manage` tool): create, patch, view and list
// the workspace's skills. Writes only ever go to <workspace>/skills/<name>/SKILL.md:
//   - name: 1–64 of [a-z0-9-], starting with a letter or digit (error SKILL_NAME_INVALID);
//   - content: at most kMaxSkillBytes (SKILL_TOO_LARGE), valid UTF-8, with front matter whose
//     `name` equals the folder name and a `description` (SKILL_INVALID, naming the line);
//   - the safety scan (scanner.h) must find nothing (SKILL_BLOCKED, the findings in the message);
//   - neither `skills` nor `skills/<name>` may be a symbolic link (SKILL_PATH_INVALID).
// A written skill is recorded as an agent-written *candidate* (skill_usage.h). Nothing is written
// when a check fails.
//
// Blocking file I/O; thread-safe (worker threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"
#include "skills/scanner.h"

namespace pincer::skills {

constexpr std::size_t kMaxSkillBytes = 64 * 1024;

/// Checks a skill name; "" when valid, else why not.
std::string skill_name_problem(std::string_view name);

struct SkillWrite {
  std::filesystem::path file;  ///< the SKILL.md written
  bool created = false;        ///< false: an existing skill was changed
};

/// Creates <workspace>/skills/<name>/SKILL.md with `content` (error SKILL_EXISTS when it exists).
Result<SkillWrite> create_skill(const std::filesystem::path& workspace, const std::filesystem::path& state_dir,
                                const std::string& name, const std::string& content, std::int64_t now_ms);

/// Replaces the one occurrence of `old_text` in the skill's SKILL.md by `new_text` (errors
/// NOT_FOUND: no such workspace skill; PATCH_NO_MATCH / PATCH_AMBIGUOUS), or the whole file when
/// `old_text` is empty. The result is checked like a new skill; the record returns to candidate.
Result<SkillWrite> patch_skill(const std::filesystem::path& workspace, const std::filesystem::path& state_dir,
                               const std::string& name, const std::string& old_text, const std::string& new_text,
                               std::int64_t now_ms);

/// The checks of a new SKILL.md text for `name` without writing (the error of create_skill).
Status check_skill_content(const std::string& name, const std::string& content);

}  // namespace pincer::skills
