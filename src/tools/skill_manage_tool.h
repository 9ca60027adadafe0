// The agent's `skill_manage` tool (SPEC SK-4): write or improve a skill after a complex task.
//   skill_manage {action: "create", name, content}        a new <workspace>/skills/<name>/SKILL.md
//   skill_manage {action: "patch", name, old_text?, new_text | content}  change one (old_text
//                 replaced once by new_text; without old_text, `content` replaces the whole file)
//   skill_manage {action: "view", name}                    the SKILL.md of a skill the agent sees
//   skill_manage {action: "list"}                          every skill: location, status, why not
//                                                          available
// Writes go through skills/skill_write.h (name, front matter, 64 KiB, the safety scan; refused
// with the finding) and start the skill as a *candidate* (skills/skill_usage.h). Group "skills".
// Threading: worker threads; blocking file I/O.
#pragma once

#include <memory>

#include "tools/tool.h"

namespace pincer::tools {

std::unique_ptr<Tool> make_skill_manage_tool();

}  // namespace pincer::tools
