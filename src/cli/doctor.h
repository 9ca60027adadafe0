// `pincer doctor` (UI-1): checks a Pincer installation and says how to fix what is wrong.
// Checks, in order: config valid (or which env vars it lacks); state dir and config private; state
// dir writable; port free or held by our gateway, and that gateway's own view (its home, the
// config it runs);
// bind/auth safety (AU-1); gateway token strength; the default model's provider reachable with
// the configured key. Each yields one Finding; the command exits 1 when any is "fail".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"

namespace pincer::cli {

struct Finding {
  std::string check;    ///< short id: "config", "permissions", "port", "bind", "token", "provider", "owner" …
  std::string status;   ///< "ok" | "info" (nothing to fix, worth knowing) | "warn" | "fail"
  std::string message;  ///< one line, never contains a secret
  std::string fix;      ///< what to do ("" when ok)
};

nlohmann::json to_json(const Finding& f);

/// The pure checks over an effective config (no I/O): bind/auth safety and token strength.
/// Token and password lengths follow core/secret_rules.h (the gateway's own rule: a token it
/// refuses to start with fails, a weak one warns). Bind: fail when bind is not
/// loopback and auth.mode is none; warn when lan with any auth (prefer loopback + a tunnel).
/// The secret is the one the gateway would use (PINCER_GATEWAY_TOKEN/PASSWORD in `env` win over
/// the file, cli/config_checks.h gateway_secret), and findings name where it came from.
/// With no token anywhere and no config file yet (`config_exists` false), "token" is info: the
/// gateway's first start writes pincer.json with a fresh random token. `gateway_running` false (no
/// gateway of this home runs): the bind finding speaks of the configured bind ("will listen on
/// loopback only …"), not of a listening gateway.
std::vector<Finding> check_security(const nlohmann::json& effective, const config::EnvLookup& env = {},
                                    bool config_exists = true, bool gateway_running = true);

/// `gateway.controlUi.root` (when set): fail when it is not a built Control UI (missing, not a
/// directory, no index.html; gateway::check_control_ui_root), else ok naming where it is served.
/// nullopt when the Control UI is not configured. `home`: $HOME for a leading "~/".
std::optional<Finding> check_control_ui(const nlohmann::json& effective, const std::string& home);

/// "owner": when channel accounts are configured but `commands.ownerAllowFrom` is empty, warn —
/// nobody can answer exec approvals in a chat or use owner-only tools there — and say what to
/// set, with the sender ids the channels already allow as examples (OpenClaw's doctor warns the
/// same). Ok naming how many owners are listed; nullopt when no channel is configured.
std::optional<Finding> check_command_owner(const nlohmann::json& effective);

/// "auth" (PV-2): each agent's auth-profiles.json — fail when it does not read, warn for profiles
/// it ignores and for providers whose every profile is cooling down, disabled or expired at
/// `now_ms` (with the soonest return time); one ok when files exist and all is well; nothing
/// when no agent has the file. Never names a secret. (cli/doctor_auth.cpp)
std::vector<Finding> check_auth_profiles(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                         const config::EnvLookup& env, int64_t now_ms);
/// "skills": one warning per SKILL.md that no agent can load (it does not parse, its name is a path
/// or holds a control character), naming its file, line and reason; nothing when every skill loads.
/// Reads only (bundled skills are not written). (cli/doctor_skills.cpp)
std::vector<Finding> check_skills(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                  const config::EnvLookup& env);

/// "cron": one warning per job of <state>/cron/jobs.json whose agentId names no configured agent
/// (its runs fail), with the fix (`cron rm`, or `cron edit --agent`); nothing when every job's
/// agent exists or the file does not read. (cli/doctor_cron.cpp)
std::vector<Finding> check_cron_agents(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                       const config::EnvLookup& env);

/// "workspace" (CX-2, cli/doctor_workspace.cpp): per workspace that is a directory, a warning for
/// each bootstrap file there that is not a regular file (FIFO, directory, device, symlink loop,
/// dangling symlink: core/file_kind.h words); nothing when all are regular. Never opens a file.
std::vector<Finding> check_workspaces(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                      const config::EnvLookup& env);

/// "sessions" (SS-1, cli/doctor_sessions.cpp): per agent under <state>/agents, fail when its
/// sessions.json does not load (the error, how many sessions its transcripts hold, the fix: the
/// gateway rebuilds it at its next use), warn when a damaged copy `sessions.json.corrupt.<ts>` is
/// kept beside a rebuilt index (where it is). Nothing when every index loads and none was rebuilt.
std::vector<Finding> check_session_indexes(const std::filesystem::path& state_dir);

/// Mode bits of the state dir and pincer.json: warn when group/other can read them; the fix names
/// only the paths that exist and are too open (chmod 700 a directory, 600 a file).
Finding check_permissions(const std::filesystem::path& state_dir, const std::filesystem::path& config_file);

/// Whether the state dir takes a real write (4 KiB, fsync'd, removed): fail with strerror when it
/// does not (read-only, not ours, disk full), warn when under 100 MiB are free, ok when it does
/// not exist yet (the gateway creates it).
Finding check_state_writable(const std::filesystem::path& state_dir);

/// Whether 127.0.0.1:port is free, held by a live Pincer gateway (GET /health answers as ours),
/// or held by something else (fail). Blocks up to ~2 s.
Finding check_port(int port);

/// GETs the default model's model-list endpoint with the configured key (OpenAI: {base}/models;
/// Anthropic: {base}/v1/models; Ollama: {base}/api/tags): 2xx ok, 401/403 fail (key rejected),
/// other HTTP statuses warn, transport errors fail. Blocks up to `timeout_ms`.
Finding check_provider(const nlohmann::json& effective, int64_t timeout_ms = 8000);

/// A `${NAME}` of the config that neither the environment nor the config's `env` section sets.
struct MissingEnvVar {
  std::string name;  ///< "OPENAI_API_KEY"
  std::string path;  ///< where the config uses it: "models.providers.openai.apiKey"
};
/// Every such reference of `config_file` (empty when the file cannot be read or parsed).
std::vector<MissingEnvVar> missing_env_vars(const std::filesystem::path& config_file, const config::EnvLookup& env);

/// The running gateway's own view, asked over the protocol with this home's credentials
/// (`status`): fail when it belongs to another home (its state dir or config path differ from
/// ours, or it refuses our token), or when it does not run the file as it is now because a reload
/// was rejected (the reason and the fix, e.g. a variable missing from its environment); warn when
/// it has not applied the latest edit yet. Blocks up to ~8 s.
Finding check_running_gateway(const std::filesystem::path& state_dir, const std::filesystem::path& config_file,
                              const config::EnvLookup& env);

/// "mcp" (IX-2, cli/doctor_mcp.cpp): one finding per `mcp.servers` entry — the running gateway's
/// view (`mcp.status`: ready with its tool count, not started yet, or unavailable with the reason)
/// when `ask_gateway` and it answers, else what the config alone shows (no command or url, an
/// unsupported transport or auth, a command not on PATH). Nothing when no server is configured.
std::vector<Finding> check_mcp_servers(const nlohmann::json& effective, const config::EnvLookup& env, bool ask_gateway);

/// "channels" (CH-7, cli/doctor_channels.cpp) from a `channels.status` answer: "fail" for each
/// account that is stopped (its lastFailure, and whether it waits for a config change —
/// permanentFailure — or restarts with backoff), "warn" for one that runs with a lastError, one
/// "ok" counting the accounts when all run; nothing when none is configured. Pure.
std::vector<Finding> channel_findings(const nlohmann::json& channels_status);
/// channel_findings() of the running gateway (asked over its WebSocket; blocks up to ~8 s);
/// nothing when it cannot be reached (check_running_gateway says why).
std::vector<Finding> check_channel_accounts(const config::EnvLookup& env);

/// Every check, for the state dir and config file given. A config that only lacks environment
/// variables is reported per variable (name and config path), and the other checks still run.
std::vector<Finding> run_doctor(const std::filesystem::path& state_dir, const std::filesystem::path& config_file,
                                const config::EnvLookup& env);

}  // namespace pincer::cli
