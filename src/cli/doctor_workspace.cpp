// `pincer doctor`'s workspace check (CX-2): bootstrap files (AGENTS.md, SOUL.md, …) in an agent's
// workspace that are not regular files — a FIFO, a directory, a device, a symlink loop or a
// dangling symlink — said as what they are, in the words the model gets in its system prompt
// (agent/workspace.cpp load_bootstrap). A workspace that is not a directory is the config
// finding's (cli/config_workspace_checks.h). Read only: nothing is opened (a FIFO never blocks).
#include <set>

#include "agent/agents_config.h"
#include "agent/workspace.h"
#include "cli/doctor.h"
#include "core/file_kind.h"

namespace pincer::cli {

std::vector<Finding> check_workspaces(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                      const config::EnvLookup& env) {
  auto agents = agent::resolve_agents(effective, state_dir, env);
  if (!agents) return {};  // the config finding says why
  std::vector<Finding> out;
  std::set<std::filesystem::path> seen;  // agents may share a workspace
  for (const auto& a : agents->agents) {
    if (!seen.insert(a.workspace).second || file_kind(a.workspace) != FileKind::Directory) continue;
    for (std::string_view name : agent::kBootstrapFileNames) {
      const auto path = a.workspace / std::string(name);
      auto odd = not_a_regular_file(path);
      if (!odd) continue;
      out.push_back({"workspace", "warn",
                     path.string() + " " + *odd + ": agent \"" + a.id + "\" does not load it into its system prompt",
                     "replace it with a regular file, or remove it (" + std::string(name) +
                         " is then made again from its template when the agent expects it)"});
    }
  }
  return out;
}

}  // namespace pincer::cli
