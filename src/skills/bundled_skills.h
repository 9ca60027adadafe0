// Pincer's own skills (SPEC SK-1 "bundled" location). They are compiled into the binary (the
// `pincer` binary is static and ships alone) and written out under the state directory on first
// use — <state dir>/bundled-skills/<name>/SKILL.md, files read-only (0444) — so the model reads
// them with the `read` tool like any other skill. A file whose bytes differ (an older Pincer's) is
// replaced; other files in that folder are left alone.
//
// Blocking filesystem writes; thread-safe (a process-wide mutex serialises materialisation).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::skills {

struct BundledSkill {
  std::string_view name;  ///< folder name = front matter name
  std::string_view text;  ///< the whole SKILL.md
};

/// Every bundled skill, by name.
const std::vector<BundledSkill>& bundled_skills();

/// <state dir>/bundled-skills.
std::filesystem::path bundled_skills_dir(const std::filesystem::path& state_dir);

/// Writes any missing or outdated bundled SKILL.md (mode 0444). Error "IO_ERROR" names the file.
Status materialize_bundled_skills(const std::filesystem::path& state_dir);

}  // namespace pincer::skills
