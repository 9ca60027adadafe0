#include "core/config_schema_skills.h"

namespace pincer::config::schema {

Node skills_section() {
  return object({
      field("load", object({
                        field("extraDirs", array_of(string()).doc(
                                               "More skill folders, searched after the bundled skills (lowest "
                                               "precedence): each holds one folder per skill with a SKILL.md. "
                                               "`~/` is the home directory; a relative path is relative to the "
                                               "agent's workspace.")),
                    }).doc("Where skills are loaded from besides `<workspace>/skills`, `<state dir>/skills` "
                           "and Pincer's bundled skills.")),
      field("entries", map_of(object({
                                  field("enabled", boolean().doc("`false`: the skill is never offered.")),
                                  field("env", map_of(string().sensitive()).doc(
                                                   "Values that satisfy the skill's `requires.env` when the "
                                                   "process environment lacks them.")),
                                  field("apiKey", string().sensitive().doc(
                                                      "Satisfies the skill's `primaryEnv` variable.")),
                                  field("config", map_of(any()).doc("Free-form settings for the skill.")),
                              }))
                           .doc("Per-skill settings, keyed by the skill's `skillKey` (normally its name).")),
      field("allowBundled", array_of(string()).doc(
                                "When non-empty, only these bundled skills are offered (workspace, user and "
                                "extra skills are not affected).")),
      field("trust", object({
                         field("successfulUses", integer().min(1).max(1000).def(3).doc(
                                                     "An agent-written skill (skill_manage) stays a *candidate* "
                                                     "until this many runs that read it ended without an error; "
                                                     "then it is trusted. A patch makes it a candidate again.")),
                     }).doc("When agent-written skills are trusted (SK-4; `pincer skills stats`).")),
  }).doc("Skills: SKILL.md instructions the agent reads when a task matches (docs/skills.md).");
}

Node agent_skills_filter() {
  return array_of(string()).doc(
      "Names of the skills this agent may use; absent = every available skill, `[]` = none.");
}

}  // namespace pincer::config::schema
