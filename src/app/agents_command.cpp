// `pincer agents …` (SPEC MA-1; OpenClaw's `openclaw agents list|add|delete`; docs/agents.md):
//
//   agents list [--bindings] [--json]
//   agents add <id> [--workspace DIR] [--model M] [--name N] [--bind channel[:accountId]]…
//              [--non-interactive] [--json]
//   agents delete <id> [--force] [--keep-files] [--json]
//
// Every command takes --file FILE (default $PINCER_HOME/pincer.json). Edits go through
// cli::edit_config_file (comments and formatting kept, the whole result checked as `config set`
// does, written atomically under the config lock); the config text is computed by
// agent/workspace_roster.h. A running gateway applies them from the file (agents.* reload hot).
// Exit codes (app/commands.h): 0 done; 1 I/O failure; 2 refused (bad id, exists, unknown,
// default agent, invalid result).
//
// Also installs the gateway's config editor for agents.create|update|delete (the gateway layer
// cannot link the CLI's config writer; gateway/methods/agents.h).
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/workspace_roster.h"
#include "agent/model_registry.h"
#include "agent/workspace.h"
#include "app/agent_cron_cleanup.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/config_file.h"
#include "cli/invoked_command.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json5.h"
#include "core/paths.h"
#include "gateway/methods/agents.h"

namespace pincer::app {
namespace agents_cli {  // named: the unity build joins several files into one unit

namespace fs = std::filesystem;
using nlohmann::json;

struct AgentsFlags {
  std::optional<std::string> file;
  bool json = false;
  bool bindings = false;
  std::string id;
  std::string workspace;
  std::string model;
  std::string name;
  std::vector<std::string> binds;
  bool non_interactive = false;
  bool force = false;
  bool keep_files = false;
};

constexpr const char* kEditRefused = "EDIT_REFUSED";
constexpr const char* kHotReloadNote = "A running gateway applies this from the file (agents.* reload without a restart).";

/// An edit's refusal (kept apart from the writer's own errors): exit 2.
struct Refusal {
  Error error;
};

/// A failed command: "pincer: <message>" on stderr, or with --json the object
/// {"ok": false, "error": {"code", "message"}} on stdout (stdout is the command's output, so a
/// script reads one JSON value either way); the exit code is the same (1 or 2).
int agents_fail(const AgentsFlags& f, int exit_code, const std::string& message, const std::string& code = "") {
  if (!f.json) return fail(exit_code, message);
  json err = {{"code", code.empty() ? (exit_code == 2 ? "INVALID_REQUEST" : "FAILED") : code}, {"message", message}};
  std::cout << json{{"ok", false}, {"error", std::move(err)}}.dump(2) << std::endl;
  return exit_code;
}

int edit_failed(const AgentsFlags& f, const std::string& command, const Error& written, const std::optional<Error>& refused) {
  if (written.code == kEditRefused && refused) return agents_fail(f, 2, "agents " + command + ": " + refused->message, refused->code);
  if (written.code == "CONFIG_INVALID")
    return agents_fail(f, 2, "agents " + command + ": not written, the result would be invalid:\n" + written.message, written.code);
  return agents_fail(f, 1, "agents " + command + ": not written: " + written.message, written.code);
}

int run_list(const AgentsFlags& f) {
  const auto env = config::process_env();
  const fs::path file = cli::config_path(f.file, env);
  auto loaded = config::load(file, cli::keep_env_references());
  if (!loaded) return agents_fail(f, 2, "agents list: " + loaded.error().message, loaded.error().code);
  auto agents = agent::resolve_agents(loaded->effective, paths::state_dir(env), env);
  if (!agents) return agents_fail(f, 2, "agents list: " + agents.error().message, agents.error().code);
  const json bindings = loaded->effective.value("bindings", json::array());
  const json rows = agent::admin::list_rows(*agents, bindings, f.bindings);
  if (f.json) return print_json(rows);
  std::cout << "Agents (" << rows.size() << "; default: " << agents->default_id << "):\n";
  for (const auto& row : rows) {
    std::cout << "- " << row["id"].get<std::string>();
    if (row.contains("name")) std::cout << " (" << row["name"].get<std::string>() << ")";
    if (row["isDefault"].get<bool>()) std::cout << " [default]";
    std::cout << "\n  Workspace: " << row["workspace"].get<std::string>() << "\n";
    std::cout << "  Agent dir: " << row["agentDir"].get<std::string>() << "\n";
    std::cout << "  Model: " << (row.contains("model") ? row["model"].get<std::string>() : std::string("(none configured)")) << "\n";
    const auto count = row["bindings"].get<std::size_t>();
    std::cout << "  Routing bindings: " << count << (count == 0 && row["isDefault"].get<bool>() ? " (gets every unbound message)" : "") << "\n";
    if (f.bindings) {
      for (const auto& b : row["routes"]) {
        const json& m = b.value("match", json::object());
        std::cout << "    - " << m.value("channel", std::string("?"));
        if (m.contains("accountId")) std::cout << " accountId=" << m["accountId"].dump();
        if (m.contains("peer")) std::cout << " peer=" << m["peer"].dump();
        if (m.contains("guildId")) std::cout << " guildId=" << m["guildId"].dump();
        if (m.contains("teamId")) std::cout << " teamId=" << m["teamId"].dump();
        std::cout << "\n";
      }
    }
  }
  return 0;
}

/// An explicit --file whose directory is missing is a mistyped path: refused before anything is
/// made (the workspace included), rather than creating the directories.
std::optional<std::string> missing_file_dir(const AgentsFlags& f, const fs::path& file) {
  if (!f.file) return std::nullopt;
  const fs::path dir = fs::absolute(file).parent_path();
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return std::nullopt;
  return "--file " + *f.file + ": the directory " + dir.string() + " does not exist (nothing written)";
}

int run_add(const AgentsFlags& f) {
  const auto env = config::process_env();
  const fs::path file = cli::config_path(f.file, env);
  if (auto missing = missing_file_dir(f, file)) return agents_fail(f, 2, "agents add: " + *missing, "FILE_DIR_MISSING");
  // A relative --workspace is where the user stands (as OpenClaw's), not the state directory the
  // config would resolve it against: write it absolute.
  std::string workspace = f.workspace;
  if (!workspace.empty() && workspace[0] != '/' && workspace[0] != '~') {
    std::error_code ec;
    workspace = fs::absolute(workspace, ec).lexically_normal().string();
    if (ec) return agents_fail(f, 2, "agents add: --workspace " + f.workspace + ": " + ec.message());
  }
  agent::admin::CreateRequest request{f.id, f.name, workspace, f.model, {}};
  for (const auto& spec : f.binds) {
    auto b = agent::admin::parse_bind_spec(spec);
    if (!b) return agents_fail(f, 2, "agents add: " + b.error().message, b.error().code);
    request.bindings.push_back(*b);
  }
  if (auto problem = agent::admin::agent_id_problem(f.id)) return agents_fail(f, 2, "agents add: " + *problem, "INVALID_ID");
  std::optional<Error> refused;
  agent::admin::CreatePlan plan;
  std::optional<Result<agent::WorkspaceInit>> ws;
  auto edited = cli::edit_config_file(file, [&](const cli::ConfigText& current) -> Result<std::optional<std::string>> {
    const std::string base = current.exists ? current.text : cli::config_template(18789, ids::random_token(32));
    auto planned = agent::admin::plan_create({base, paths::state_dir(env), env}, request);
    if (!planned) {
      refused = planned.error();
      return Error{kEditRefused, planned.error().message};
    }
    plan = std::move(*planned);
    // A model whose provider is not configured: `config validate` (and every run) would reject the
    // file, so nothing is written — no workspace either (a model the provider does not list stays
    // a warning, as in validate).
    if (auto added = cli::model_reference_errors_added(current, plan.text); !added.empty()) {
      std::string message = "not written, " + file.string() + " would not validate:";
      for (const auto& line : added) message += "\n  " + line;
      refused = Error{"INVALID_MODEL", message};
      return Error{kEditRefused, message};
    }
    // The workspace first: when it cannot be made, nothing is written (docs/agents.md).
    auto made = agent::ensure_workspace(plan.agent.workspace);
    if (!made) {
      refused = Error{"WORKSPACE_UNAVAILABLE", "workspace " + plan.agent.workspace.string() + ": " + made.error().message};
      return Error{kEditRefused, refused->message};
    }
    if (!made->created.empty() || !ws) ws = std::move(made);
    return std::optional<std::string>{plan.text};
  });
  if (!edited) return edit_failed(f, "add", edited.error(), refused);
  json out = {{"ok", true}, {"file", file.string()}, {"agentId", plan.agent.id}, {"workspace", plan.agent.workspace.string()},
              {"agentDir", plan.agent.agent_dir.string()}, {"bindings", plan.bindings}};
  if (!plan.agent.name.empty()) out["name"] = plan.agent.name;
  if (!plan.agent.model.primary.empty()) out["model"] = plan.agent.model.primary;
  if (ws && *ws) out["workspaceFilesCreated"] = (*ws)->created;
  if (plan.wrote_implicit_main) out["wroteImplicitDefault"] = plan.agent.id == "main" ? "" : "main";
  // An unknown model is the gateway's warning, not a refusal (as for `config set`): say it now.
  // Said on stderr, or with --json in the summary's "warnings" (only when there are any).
  std::vector<std::string> warnings;
  if (auto loaded = config::load(file, cli::keep_env_references())) {
    for (const auto& w : agent::model_reference_warnings(loaded->effective)) {
      if (w.find("agent \"" + plan.agent.id + "\"") != std::string::npos) warnings.push_back(w);
    }
    // A binding to a channel with no settings yet is kept (as OpenClaw's `agents add --bind`),
    // but routes nothing until the channel is set up: say so, once per channel.
    const json channels = loaded->resolved.value("channels", json::object());
    std::vector<std::string> warned;
    for (const auto& b : plan.bindings) {
      const std::string channel = b.value("match", json::object()).value("channel", "");
      if (channel.empty() || channels.contains(channel) || std::find(warned.begin(), warned.end(), channel) != warned.end()) continue;
      warned.push_back(channel);
      warnings.push_back("channels." + channel + " is not configured; the binding takes effect once it is");
    }
  }
  if (f.json && !warnings.empty()) out["warnings"] = warnings;
  if (f.json) {
    print_json(out);
  } else {
    if (!edited->exists) std::cout << "Created " << file.string() << " (with a new gateway token)\n";
    std::cout << "Added agent \"" << plan.agent.id << "\" to " << file.string() << "\n";
    if (plan.wrote_implicit_main) std::cout << "  (the implicit default agent is now listed first, so it stays the default)\n";
    std::cout << "  Workspace: " << plan.agent.workspace.string();
    if (ws && *ws && !(*ws)->created.empty()) {
      std::cout << " (created";
      for (const auto& name : (*ws)->created) std::cout << " " << name;
      std::cout << ")";
    }
    std::cout << "\n  Model: " << (plan.agent.model.primary.empty() ? std::string("(none configured)") : plan.agent.model.primary) << "\n";
    for (const auto& b : plan.bindings) std::cout << "  Binding: " << b["match"].dump() << "\n";
    std::cout << kHotReloadNote << "\n";
    std::cout.flush();
    for (const auto& w : warnings) std::cerr << "pincer: warning: " << w << "\n";
  }
  return 0;
}

int run_delete(const AgentsFlags& f) {
  const auto env = config::process_env();
  const fs::path file = cli::config_path(f.file, env);
  const fs::path state = paths::state_dir(env);
  if (!f.force) {
    // What cannot be deleted (an unknown id, the default agent) is said first, not after a confirmation.
    if (auto current = cli::read_config_text(file); current) {
      if (!current->exists) {
        return agents_fail(f, 2, "agents delete: " + file.string() + " does not exist: there is no agent \"" + f.id + "\" to delete",
                           "NOT_FOUND");
      }
      if (auto planned = agent::admin::plan_delete({current->text, state, env}, f.id); !planned) {
        return edit_failed(f, "delete", Error{kEditRefused, planned.error().message}, planned.error());
      }
    }
    if (::isatty(STDIN_FILENO) != 1) return agents_fail(f, 2, "agents delete: confirmation needed: re-run with --force");
    std::cerr << "Delete agent \"" << f.id << "\" (its workspace and sessions move to the trash"
              << (f.keep_files ? "; --keep-files: they stay" : "") << ")? [y/N] ";
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") return agents_fail(f, 1, "agents delete: not confirmed; nothing changed");
  }
  std::optional<Error> refused;
  agent::admin::DeletePlan plan;
  auto edited = cli::edit_config_file(file, [&](const cli::ConfigText& current) -> Result<std::optional<std::string>> {
    if (!current.exists) {
      refused = Error{"NOT_FOUND", file.string() + " does not exist: there is no agent \"" + f.id + "\" to delete"};
      return Error{kEditRefused, refused->message};
    }
    auto planned = agent::admin::plan_delete({current.text, state, env}, f.id);
    if (!planned) {
      refused = planned.error();
      return Error{kEditRefused, planned.error().message};
    }
    plan = std::move(*planned);
    return std::optional<std::string>{plan.text};
  });
  if (!edited) return edit_failed(f, "delete", edited.error(), refused);
  agent::admin::FilesOutcome files;
  if (!f.keep_files) files = agent::admin::move_agent_files_to_trash(plan, state, SystemClock{}.wall_ms());
  // Its cron jobs go too (as OpenClaw's): each run of a job of an agent that is gone would fail.
  // Only for this home's config: the jobs are the state dir's.
  std::optional<Result<json>> cron;
  if (std::error_code ec; fs::equivalent(file, paths::config_file(state), ec)) cron = remove_agent_cron_jobs(plan.agent.id, state);
  const std::string cron_left =
      cron && !*cron ? "its cron jobs were not removed: " + cron->error().message + " (" + cli::invoked_command() +
                           " cron list shows them, cron rm ID removes one)"
                     : "";
  if (f.json) {
    json removed = json::array(), failed = json::array();
    for (const auto& r : files.removed) removed.push_back(json{{"path", r.path}, {"method", r.method}, {"movedTo", r.moved_to}});
    for (const auto& r : files.failed) failed.push_back(json{{"path", r.path}, {"reason", r.reason}});
    json out = {{"ok", true}, {"agentId", plan.agent.id}, {"file", file.string()}, {"removedBindings", plan.removed_bindings.size()},
                {"bindings", plan.removed_bindings}, {"removed", removed}, {"failed", failed}, {"keptFiles", f.keep_files}};
    if (cron && *cron) out["removedCronJobs"] = **cron;
    if (!cron_left.empty()) out["cronJobsError"] = cron_left;
    if (files.workspace_retained) {
      out["workspaceRetained"] = true;
      out["workspaceRetainedReason"] = files.workspace_retained_reason;
      out["workspaceSharedWith"] = files.workspace_shared_with;
    }
    print_json(out);
  } else {
    std::cout << "Deleted agent \"" << plan.agent.id << "\" from " << file.string() << "\n";
    std::cout << "  Removed " << plan.removed_bindings.size() << " binding" << (plan.removed_bindings.size() == 1 ? "" : "s");
    for (const auto& b : plan.removed_bindings) std::cout << "\n    - " << b.value("match", json::object()).dump();
    std::cout << "\n";
    if (cron && *cron && !(*cron)->empty()) {
      const json& jobs = **cron;
      std::cout << "  Removed " << jobs.size() << " cron job" << (jobs.size() == 1 ? "" : "s");
      for (const auto& j : jobs) {
        const std::string name = j.value("name", "");
        std::cout << "\n    - " << (name.empty() ? "" : name + " ") << "(" << j.value("id", "") << ")";
      }
      std::cout << "\n";
    }
    if (f.keep_files) {
      std::cout << "  Kept its files: " << plan.agent.workspace.string() << ", " << plan.agent.agent_dir.string() << "\n";
    }
    for (const auto& r : files.removed) {
      if (r.method == "trash") std::cout << "  Moved " << r.path << " to " << r.moved_to << "\n";
    }
    if (files.workspace_retained) {
      std::cout << "  Kept the workspace " << plan.agent.workspace.string() << ": " << files.workspace_retained_reason << "\n";
    }
    for (const auto& r : files.failed) std::cout << "  Could not move " << r.path << ": " << r.reason << "\n";
    std::cout << kHotReloadNote << "\n";
  }
  if (!cron_left.empty()) std::cerr << "pincer: warning: agent \"" << plan.agent.id << "\" was deleted, but " << cron_left << "\n";
  return 0;
}

void add_file_option(CLI::App* sub, AgentsFlags& f) {
  sub->add_option("--file", f.file, "Config file (default: $PINCER_HOME/pincer.json, ~/.pincer/pincer.json)");
}

/// The gateway's agents.create|update|delete write through the CLI's config writer.
void install_gateway_config_editor() {
  gateway::set_agents_config_editor([](const fs::path& file, const gateway::AgentsConfigEdit& edit) -> Result<bool> {
    std::optional<Error> refused;
    auto edited = cli::edit_config_file(file, [&](const cli::ConfigText& current) -> Result<std::optional<std::string>> {
      auto next = edit(current.exists ? current.text : std::string("{}\n"));
      if (!next) {
        refused = next.error();
        return Error{kEditRefused, next.error().message};
      }
      return next;
    });
    if (!edited) {
      if (edited.error().code == kEditRefused && refused) return *refused;
      return edited.error();
    }
    return edited->exists;
  });
}

}  // namespace agents_cli

void register_agents_commands(CLI::App& app, Action& action) {
  agents_cli::install_gateway_config_editor();
  auto* agents = app.add_subcommand("agents", "Manage agents: list, add, delete (edits pincer.json, keeping its comments)");
  auto f = std::make_shared<agents_cli::AgentsFlags>();
  // `pincer agents` alone lists them, as `openclaw agents` does (this callback runs after a
  // subcommand's, which has set the action then).
  agents->require_subcommand(0, 1);
  agents->callback([&action, f] {
    if (!action) action = [f] { return agents_cli::run_list(*f); };
  });

  auto* list = agents->add_subcommand("list", "List the configured agents");
  list->add_flag("--bindings", f->bindings, "Include each agent's routing bindings");
  list->add_flag("--json", f->json, "Print a JSON array of {id, name?, isDefault, workspace, agentDir, model?, bindings, routes?}");
  agents_cli::add_file_option(list, *f);
  on_parsed(list, action, [f] { return agents_cli::run_list(*f); });

  auto* add = agents->add_subcommand("add", "Add an agent: its agents.list entry, workspace and bootstrap files");
  add->add_option("id", f->id, "Agent id: lowercase letters, digits, _ and - (used in session keys)")->required();
  add->add_option("--workspace", f->workspace, "Workspace directory (default: <state dir>/workspace-<id>)");
  add->add_option("--model", f->model, "Model of this agent, provider/model (default: agents.defaults.model)");
  add->add_option("--name", f->name, "Display name");
  add->add_option("--bind", f->binds, "Route a channel to this agent: channel[:accountId] (repeatable; accountId * = every account)");
  add->add_flag("--non-interactive", f->non_interactive, "Never prompt (pincer agents add never does; accepted for OpenClaw's scripts)");
  add->add_flag("--json", f->json, "Print a JSON summary");
  agents_cli::add_file_option(add, *f);
  on_parsed(add, action, [f] { return agents_cli::run_add(*f); });

  auto* del = agents->add_subcommand("delete", "Delete an agent and its bindings; its workspace and sessions move to <state dir>/trash");
  del->add_option("id", f->id, "Agent id")->required();
  del->add_flag("--force", f->force, "Do not ask for confirmation (needed when stdin is not a terminal)");
  del->add_flag("--keep-files", f->keep_files, "Leave the workspace and sessions where they are");
  del->add_flag("--json", f->json, "Print a JSON summary {ok, agentId, removedBindings, removed, failed, …}");
  agents_cli::add_file_option(del, *f);
  on_parsed(del, action, [f] { return agents_cli::run_delete(*f); });
}

}  // namespace pincer::app
