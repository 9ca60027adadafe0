// `pincer doctor`'s skills check (SK-1, docs/skills.md): the SKILL.md files no agent can load — one
// that does not parse, a name that is a path or holds a control character — each with its file,
// line and reason, as `pincer skills check` says them. Read only: Pincer's bundled skills are not
// written here (the gateway does that).
#include <set>

#include "agent/agents_config.h"
#include "cli/doctor.h"
#include "cli/invoked_command.h"
#include "skills/skill_loader.h"

namespace pincer::cli {

std::vector<Finding> check_skills(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                  const config::EnvLookup& env) {
  auto agents = agent::resolve_agents(effective, state_dir, env);
  if (!agents) return {};  // the config finding says why
  std::vector<Finding> out;
  std::set<std::string> said;
  const auto config = std::make_shared<const nlohmann::json>(effective);
  for (const auto& a : agents->agents) {
    skills::LoadOptions o;
    o.workspace = a.workspace;
    o.state_dir = state_dir;
    o.config = config;
    o.agent_id = a.id;
    o.env = env;
    o.materialize_bundled = false;
    for (const auto& p : skills::load_skills(o).problems) {
      if (!said.insert(p.describe()).second) continue;  // a location several agents share
      out.push_back({"skills", "warn", "skill not loaded: " + p.describe(),
                     "fix that SKILL.md (" + invoked_command() + " skills check lists every skill and why)"});
    }
  }
  return out;
}

}  // namespace pincer::cli
