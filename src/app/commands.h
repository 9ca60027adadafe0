// The command-line surface, one family of subcommands per file. main.cpp builds the CLI11 app and
// calls every register_* function; the subcommand that parses sets `action`, which main runs after
// parsing (so argument errors are reported before anything starts).
//
// Exit codes (docs/cli.md): 0 success; 1 runtime failure (gateway unreachable, request failed,
// cannot start); 2 invalid arguments or configuration.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/invoked_command.h"

namespace pincer::app {

/// What the parsed command line asks for; returns the process exit code.
using Action = std::function<int()>;

/// How a hint names this binary when it tells the user a command to run (cli/invoked_command.h).
using cli::invoked_command;

/// Sets `action` to `run` when `sub` is parsed.
inline void on_parsed(CLI::App* sub, Action& action, Action run) {
  sub->callback([&action, run = std::move(run)] { action = run; });
}

void register_gateway_commands(CLI::App& app, Action& action);  // gateway run|call|install|uninstall|status
/// gateway install|uninstall|status (a systemd user unit); call after register_gateway_commands.
void register_service_commands(CLI::App& app, Action& action);
void register_config_commands(CLI::App& app, Action& action);   // config schema|get|set|unset|validate
void register_client_commands(CLI::App& app, Action& action);   // agent, status, health, sessions, models
void register_chat_command(CLI::App& app, Action& action);      // chat (alias tui)
void register_setup_commands(CLI::App& app, Action& action);    // doctor, logs
void register_pairing_commands(CLI::App& app, Action& action);  // pairing list|approve|reject
void register_onboard_command(CLI::App& app, Action& action);   // onboard
void register_devices_commands(CLI::App& app, Action& action);  // devices list|approve|reject|remove|revoke
void register_import_command(CLI::App& app, Action& action);    // import openclaw
void register_memory_commands(CLI::App& app, Action& action);   // memory status|index|search|reset
void register_sandbox_commands(CLI::App& app, Action& action);  // sandbox explain
void register_tools_commands(CLI::App& app, Action& action);    // tools explain
void register_cron_commands(CLI::App& app, Action& action);     // cron add|list|edit|rm|run|runs|enable|disable
/// agents list|add|delete (MA-1); also installs the gateway's config editor for agents.create|update|delete.
void register_agents_commands(CLI::App& app, Action& action);
void register_skills_commands(CLI::App& app, Action& action);
/// `models auth list|add|remove|order|reset` (PV-2, PV-3); after register_client_commands (it adds to `models`).
void register_models_auth_commands(CLI::App& app, Action& action);  // skills list|info|check|stats (SK-1..4)
/// The `pincer mcp` command, created by whichever of `mcp serve` / `mcp status` registers first.
CLI::App* mcp_parent_command(CLI::App& app);
/// `mcp serve` (IX-1, app/mcp_command.cpp): adds `serve` to the `mcp` command, creating it if needed.
void register_mcp_serve_command(CLI::App& app, Action& action);
/// `mcp status` (IX-2, app/mcp_status_command.cpp): the gateway's MCP servers; adds to `mcp` likewise.
void register_mcp_status_command(CLI::App& app, Action& action);
void register_acp_command(CLI::App& app, Action& action);  // acp (IX-3)

}  // namespace pincer::app
