// The roster of agents in pincer.json: adding, changing and removing agents with their workspaces (SPEC MA-1; OpenClaw's `agents add|delete`
// and the gateway methods `agents.create|update|delete`; docs/agents.md). Shared by
// `pincer agents …` (app/agents_command.cpp) and the gateway methods (gateway/methods/agents.cpp):
// both compute the new config text here and write it through the one config writer
// (cli/config_file.h edit_config_file: comments and formatting kept, the whole result checked,
// written atomically under the config lock).
//
// The plan_* functions are pure functions of the config text (JSON5 as the user wrote it), the
// state directory and HOME; they edit with core/json5_edit, so everything outside the edited spans
// stays byte for byte. Rules:
//   * An agent id follows the session-key id rule (store::normalize_agent_id leaves it unchanged
//     and it is lowercase): `^[a-z0-9][a-z0-9_-]{0,63}$`. Anything else is refused with the id it
//     would normalise to, accented letters spelled in ASCII (core/ascii_fold.h), as a suggestion.
//   * create: refuses an id that exists (also the implicit "main" of an empty list), a workspace
//     that is, contains or lies inside another agent's workspace (compared lexically and after
//     resolving symlinks), and a channel binding (`channel[:accountId]`) another agent already
//     holds. When `agents.list` is empty the implicit default agent is written first
//     (`{id: "main", default: true}`), so that adding an agent never changes which one is the
//     default. The new entry holds `id` and only the keys given (name, workspace, model); its
//     bindings are appended to `bindings[]` as `{agentId, match: {channel, accountId?}}`.
//   * update: changes name / workspace / model (a null model removes the agent's own model) of a
//     listed agent; the same workspace rule as create.
//   * delete: refuses an unknown agent and the default agent (make another agent the default
//     first); removes its `agents.list[]` entry and every `bindings[]` entry naming it.
//
// move_agent_files_to_trash does blocking file I/O (call from the CLI or a worker).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agents_config.h"
#include "core/config.h"
#include "core/result.h"

namespace pincer::agent::admin {

/// Why `id` cannot be an agent id, or nullopt. E.g.
///   `agent id "Work Bot" is not valid: use lowercase letters, digits, "_" and "-" (at most 64, starting with a letter or digit), e.g. "work-bot"`
/// The suggestion folds accents first ("Émile Zoë" → "emile-zoe", "Straße" → "strasse"); none when
/// nothing of the id survives (e.g. only non-Latin letters).
std::optional<std::string> agent_id_problem(std::string_view id);

/// Why `workspace` (absolute, as the config resolves it) cannot be an agent's workspace, or
/// nullopt: a system or credential folder (tools::sandbox::workspace_host_path_refusal: ~/.ssh, /etc …), the
/// user's whole `home` ("" = not checked), Pincer's `state_dir` or a folder holding it, or a folder
/// inside the state directory other than `workspace` / `workspace-<id>` (its agents/, skills/,
/// trash/ … hold sessions and credentials: deleting such an agent would move them away).
/// Lexically and through symlinks. plan_create/plan_update refuse it ("WORKSPACE_FORBIDDEN") and
/// move_agent_files_to_trash never moves such a folder.
std::optional<std::string> workspace_location_problem(const std::filesystem::path& workspace,
                                                      const std::filesystem::path& state_dir, const std::string& home);

/// One `--bind channel[:accountId]` (OpenClaw's format): "telegram" (the default account only),
/// "telegram:ops", "telegram:*" (every account).
struct ChannelBinding {
  std::string channel;                   ///< lowercased
  std::optional<std::string> account_id; ///< nullopt: no accountId written
  /// `{agentId, match: {channel, accountId?}}`
  nlohmann::json to_json(std::string_view agent_id) const;
  /// "telegram", "telegram:ops"
  std::string label() const;
};

/// The channel ids a binding may name: the built-in channels (telegram, discord, slack, matrix, email, irc,
/// webhook).
const std::vector<std::string>& bind_channels();

/// Parses a bind spec. Error "INVALID_BIND": `--bind "": expected channel[:accountId]` …, or
/// `--bind "signal": unknown channel "signal" (known channels: telegram, discord, …)`.
Result<ChannelBinding> parse_bind_spec(std::string_view spec);

/// The config text as the edit sees it: "" for a missing file is not accepted (the caller starts
/// from cli::config_template).
struct ConfigSource {
  std::string_view text;
  std::filesystem::path state_dir;
  config::EnvLookup env;  ///< HOME for "~" (may be empty)
};

struct CreateRequest {
  std::string id;
  std::string name;       ///< "" = none written
  std::string workspace;  ///< as written to the config ("~/x" kept); "" = the default rule
  std::string model;      ///< "provider/model"; "" = inherit agents.defaults.model
  std::vector<ChannelBinding> bindings;
};

struct CreatePlan {
  std::string text;                 ///< the new config text
  AgentSettings agent;              ///< the new agent as the new text resolves it
  std::vector<nlohmann::json> bindings;  ///< the bindings added
  bool wrote_implicit_main = false;      ///< `{id: "main", default: true}` was written first
};

/// Errors (code; the message names the id, path or binding): "INVALID_ID", "AGENT_EXISTS",
/// "DUPLICATE_BIND" (one route given twice in the request),
/// "WORKSPACE_FORBIDDEN" (workspace_location_problem), "WORKSPACE_IN_USE", "BINDING_IN_USE", "CONFIG_INVALID" (the text is not JSON5, or
/// agents.list / bindings is not a list), or json5_edit's own.
Result<CreatePlan> plan_create(const ConfigSource& source, const CreateRequest& request);

struct UpdateRequest {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> workspace;
  /// nullopt: unchanged; a null json: remove the agent's own model; a string: set it.
  std::optional<nlohmann::json> model;
};

struct UpdatePlan {
  std::string text;        ///< equal to the input when nothing changes
  AgentSettings agent;     ///< as the new text resolves it
};

/// Errors: "NOT_FOUND" (not in agents.list), "WORKSPACE_FORBIDDEN" (a new workspace:
/// workspace_location_problem), "WORKSPACE_IN_USE", "CONFIG_INVALID", json5_edit's.
Result<UpdatePlan> plan_update(const ConfigSource& source, const UpdateRequest& request);

struct DeletePlan {
  std::string text;
  AgentSettings agent;                           ///< the agent removed, as the old text resolved it
  std::vector<nlohmann::json> removed_bindings;  ///< in config order
  std::vector<AgentSettings> remaining;          ///< the other agents (old text)
};

/// Errors: "NOT_FOUND", "DEFAULT_AGENT", "CONFIG_INVALID", json5_edit's.
Result<DeletePlan> plan_delete(const ConfigSource& source, std::string_view id);

/// What happened to one directory of a deleted agent.
struct PathOutcome {
  std::string path;
  std::string method;  ///< "trash" (moved to `moved_to`) | "missing" (did not exist)
  std::string moved_to;
};
struct PathFailure {
  std::string path;
  std::string reason;
};
struct FilesOutcome {
  std::vector<PathOutcome> removed;
  std::vector<PathFailure> failed;
  bool workspace_retained = false;
  std::string workspace_retained_reason;     ///< e.g. "shared with agent \"ops\""
  std::vector<std::string> workspace_shared_with;
};

/// Moves a deleted agent's workspace and agent directory (`<state>/agents/<id>`: its sessions)
/// into `<state>/trash/agents/<id>-<stamp>/` (rename(2); nothing is erased). The workspace stays
/// where it is when another remaining agent's workspace is the same, inside it or holds it, and
/// when it lies outside the state directory (a folder of the user's own, e.g. a project). A
/// move that fails (another file system: EXDEV) is reported in `failed` and the files stay.
FilesOutcome move_agent_files_to_trash(const DeletePlan& plan, const std::filesystem::path& state_dir, std::int64_t now_ms);

/// Whether two workspace paths overlap: equal, or one inside the other (whole components), also
/// after resolving symlinks of the parts that exist. "/a/shared" and "/a/shared-evil" do not.
bool paths_overlap(const std::filesystem::path& a, const std::filesystem::path& b);

/// `{id, name?, isDefault, workspace, agentDir, model?, bindings}` rows of `pincer agents list
/// --json` (bindings: the count; with `with_bindings` also `routes`: the binding objects).
nlohmann::json list_rows(const AgentsConfig& agents, const nlohmann::json& bindings, bool with_bindings);

}  // namespace pincer::agent::admin
