// `pincer sandbox explain [--agent ID] [--session KEY] [--json]`: what the tool sandbox (TL-5)
// does for one agent and session, read from pincer.json (no gateway needed): the mode and whether
// it applies to the session, the backend and whether it can start here (a real probe), what is
// visible inside and what the file tools may do. Exit 0; 1 when a sandbox applies but cannot
// start; 2 on an invalid configuration or an unknown agent.
#include <iostream>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "core/config.h"
#include "core/paths.h"
#include "store/session_keys.h"
#include "tools/sandbox/sandbox.h"

namespace pincer::app {
namespace {

using nlohmann::json;
namespace sb = tools::sandbox;

int explain(const std::string& agent_flag, const std::string& session_flag, bool as_json) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) return fail(2, loaded.error().message);
  auto agents = agent::resolve_agents(loaded->effective, state, env);
  if (!agents) return fail(2, agents.error().message);
  if (!session_flag.empty()) {
    if (auto problem = store::session_key_problem(session_flag)) return fail(2, "--session: " + *problem);
  }
  // The key and agent a run of `pincer agent --agent A --session S` uses (AgentService's rule),
  // so that explain never describes another session than the run gets.
  const std::string session = agents->session_key(session_flag.empty() ? "main" : session_flag, agent_flag);
  const std::string agent_id = store::agent_id_from_session_key(session);
  const agent::AgentSettings* spec = agents->find(agent_id);
  if (spec == nullptr) {
    std::string known;
    for (const auto& a : agents->agents) known += (known.empty() ? "" : ", ") + a.id;
    return fail(2, "unknown agent \"" + agent_id + "\" (agents: " + known + ")");
  }
  auto settings = sb::settings_for_agent(loaded->effective, spec->id);
  if (!settings) return fail(2, settings.error().message);
  const bool active = sb::applies(*settings, spec->id, session);

  json out = {{"agent", spec->id},
              {"session", session},
              {"mode", sb::to_string(settings->mode)},
              {"sandboxed", active},
              {"backend", settings->backend},
              {"workspace", spec->workspace.string()},
              {"workspaceAccess", sb::to_string(settings->workspace_access)},
              {"network", settings->network ? "on" : "off"}};
  json binds = json::array();
  for (const auto& b : settings->binds) binds.push_back(b.source + ":" + b.target + (b.read_only ? ":ro" : ":rw"));
  out["binds"] = binds;
  std::string why;
  if (settings->mode == sb::Mode::kOff) why = "mode is off: tools run on the host";
  else if (!active) why = "mode is non-main and this is the agent's main session: tools run on the host";
  else why = "tools of this session run in the sandbox";
  out["reason"] = why;

  bool unavailable = false;
  if (settings->mode != sb::Mode::kOff) {
    auto bin = sb::backend_binary(*settings);
    out["binary"] = bin ? json(bin->string()) : json(nullptr);
    if (auto st = sb::check_backend(*settings); st) {
      out["available"] = true;
    } else {
      out["available"] = false;
      out["error"] = st.error().message;
      unavailable = active;
    }
  }
  json file_tools = json::object();
  for (const char* t : {"read", "write", "edit", "apply_patch"}) {
    const std::string refusal = active ? sb::file_tool_refusal(*settings, t) : "";
    file_tools[t] = refusal.empty() ? "allowed" : "refused";
  }
  out["fileTools"] = file_tools;

  if (as_json) {
    print_json(out);
    return unavailable ? 1 : 0;
  }
  std::cout << "agent " << spec->id << ", session " << session << "\n";
  std::cout << "sandbox mode: " << out["mode"].get<std::string>() << " — " << why << "\n";
  if (settings->mode != sb::Mode::kOff) {
    std::cout << "backend: bwrap (" << (out["binary"].is_string() ? out["binary"].get<std::string>() : "not found")
              << "): " << (out["available"].get<bool>() ? "available" : out["error"].get<std::string>()) << "\n";
  }
  if (active) {
    std::cout << "visible inside: the workspace " << spec->workspace.string() << " ("
              << out["workspaceAccess"].get<std::string>()
              << "), read-only /usr /bin /lib and a few /etc files, private /proc /dev /tmp";
    for (const auto& b : binds) std::cout << ", " << b.get<std::string>();
    std::cout << "\nnetwork: " << out["network"].get<std::string>() << "\n";
    std::cout << "file tools:";
    for (const auto& [t, v] : file_tools.items()) std::cout << " " << t << " " << v.get<std::string>() << ";";
    std::cout << "\n";
  }
  return unavailable ? 1 : 0;
}

}  // namespace

void register_sandbox_commands(CLI::App& app, Action& action) {
  auto* sandbox = app.add_subcommand("sandbox", "The tool sandbox (bubblewrap)");
  sandbox->require_subcommand(1);
  auto* ex = sandbox->add_subcommand("explain", "Show what the sandbox does for an agent and session");
  auto agent = std::make_shared<std::string>();
  auto session = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  ex->add_option("--agent", *agent, "Agent id (default: the default agent)");
  ex->add_option("--session", *session, "Session key, as `pincer agent --session` takes it (default: main)")
      ->check(session_key_check());
  ex->add_flag("--json", *as_json, "Print JSON");
  on_parsed(ex, action, [agent, session, as_json] { return explain(*agent, *session, *as_json); });
}

}  // namespace pincer::app
