// Agent management methods (SPEC MA-1; OpenClaw's gateway methods, scope operator.admin):
//
//   agents.create {name, workspace?, model?, emoji?, avatar?}
//       → {ok: true, agentId, name, workspace, model?}
//       agentId is `name` normalised (store::normalize_agent_id: "QA Writer" → "qa-writer"); the
//       workspace (default `<state>/workspace-<id>`) gets its bootstrap files, and emoji / avatar go
//       into its new IDENTITY.md.
//   agents.update {agentId, name?, workspace?, model?: string | null, emoji?, avatar?}
//       → {ok: true, agentId}      (model null removes the agent's own model)
//   agents.delete {agentId, deleteFiles?: boolean = true}
//       → {ok: true, agentId, removedBindings, removed?: [{path, method: "trash"|"missing"}],
//          failed?: [{path, reason}]}
//       deleteFiles moves the workspace (unless another agent shares it) and `<state>/agents/<id>`
//       to `<state>/trash/agents/`.
//
// The config text is computed by agent/workspace_roster.h (the rules and refusals: bad id, existing
// id, shared workspace, unknown or default agent) and written by the AgentsConfigEditor the app
// installs: cli::edit_config_file, the writer of `pincer config set` (comments kept, the whole
// result checked, atomic, under the config lock). The running gateway applies the change through
// its config watcher (agents.* reload hot). Refusals answer INVALID_REQUEST with the reason;
// without an editor (a gateway embedded without the CLI: unit tests) UNAVAILABLE.
// Like OpenClaw, which budgets only config.apply/config.patch/update.run, they are not counted
// against the control-plane write budget (GW-8): a UI creating a few agents is not throttled.
//
// Handlers run on the loop and block on the config file (small, rare admin writes).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/result.h"
#include "gateway/methods/registry.h"

namespace pincer::agent {
struct CommandContext;
}

namespace pincer::gateway {

/// What an edit makes of the config text: the new text, nullopt for no change, or a refusal.
using AgentsConfigEdit = std::function<Result<std::optional<std::string>>(const std::string& current_text)>;
/// Runs `edit` on `file` under the config lock and writes its result after the checks. Returns
/// whether the file existed, or the edit's refusal / the writer's error ("CONFIG_INVALID", …).
using AgentsConfigEditor = std::function<Result<bool>(const std::filesystem::path& file, const AgentsConfigEdit& edit)>;

/// Installs the process-wide editor (the app does, before any gateway starts). Not thread-safe
/// against concurrent calls of the methods: set it once at start.
void set_agents_config_editor(AgentsConfigEditor editor);

/// The installed editor (empty without one). config.set|patch|apply write through it too: it is
/// the config file's one writer (checks, lock, atomic write).
const AgentsConfigEditor& agents_config_editor();

/// Writes the RFC 7386 merge patch `patch` (an object) to the config `file` through the installed
/// editor, leaf by leaf (comments kept; config_patch.h apply_merge_patch_text); the gateway's
/// config watcher applies it (a patch that changes nothing writes nothing). Errors: UNAVAILABLE
/// without an editor, the editor's (CONFIG_INVALID naming the key, LOCK_FAILED, IO_ERROR …).
/// Blocks on the file.
Status patch_config_file(const std::filesystem::path& file, const nlohmann::json& patch);

/// Lends a chat command run for `client` (chat.send, agent) the config rights of a gateway
/// client: one holding operator.admin may change the config, written by patch_config_file to the
/// gateway's config file.
void lend_config_access(agent::CommandContext& context, const Gateway& gateway, const Client& client);

/// agents.create, agents.update, agents.delete (called by register_session_methods).
void register_agents_methods(MethodRegistry& registry);

/// agents.files.list|get|set and agents.workspace.get: the agent's workspace files
/// (methods/agent_files.cpp; called by register_agents_methods).
void register_agent_file_methods(MethodRegistry& registry);

}  // namespace pincer::gateway
