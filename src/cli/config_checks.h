// The checks of a configuration beyond its schema — what `pincer gateway run` refuses to start
// with — in one place, so that `pincer config validate`, `pincer config set`, `pincer doctor` and
// the gateway (start, reload) agree: gateway auth (with PINCER_GATEWAY_TOKEN/PASSWORD and the
// gateway's flags, which win over the file), agents and model references, and every channel
// account (channels/channel_checks.h: credentials, webhook paths, secrets, shared bot tokens …).
//
// Pure apart from reading `env`; any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"

namespace pincer::cli {

/// The gateway's auth flags (`gateway run --auth/--token/--token-file/--password/--password-file`).
struct GatewayAuthFlags {
  std::optional<std::string> mode;
  std::optional<std::string> token;
  std::string token_flag = "--token";  ///< which flag gave `token`: "--token" or "--token-file"
  std::optional<std::string> password;
  std::string password_flag = "--password";
};

/// The secret the gateway will check clients against, and where it came from (flag > env >
/// config, as `gateway run`).
struct GatewaySecret {
  std::string mode;    ///< none | token | password | trusted-proxy
  std::string value;   ///< the token or password ("" = none)
  std::string source;  ///< how to name it to the user: "--token-file", "PINCER_GATEWAY_TOKEN",
                       ///< "gateway.auth.token" … ("" when the mode has no secret)
};
GatewaySecret gateway_secret(const nlohmann::json& effective, const config::EnvLookup& env, const GatewayAuthFlags& flags);

/// Why the gateway would refuse to start with `secret`, or "": no token / password set (naming
/// the key, the variable and the flag of *that* mode), or a token under the minimum length
/// (core/secret_rules.h), named by its source.
std::string gateway_auth_problem(const GatewaySecret& secret, const std::filesystem::path& config_file);

struct ConfigProblems {
  std::vector<std::string> errors;    ///< the gateway would refuse this config
  std::vector<std::string> warnings;  ///< it would run, but something is probably wrong
  std::vector<std::string> notes;     ///< nothing wrong, but worth knowing (e.g. the token is made on first start)
};

struct ConfigCheckOptions {
  GatewayAuthFlags flags;
  /// False for `config set` (the gateway's environment is not this shell's): a secret the
  /// environment must provide at run time is a warning, not an error.
  bool runtime_env_known = true;
  /// False: leave gateway auth out (doctor reports it as its own finding, with the same rule).
  bool check_auth = true;
  /// False: leave out whether gateway.controlUi.root holds a built Control UI. `gateway run` starts
  /// without one (its UI answers 503 with the reason, as OpenClaw's does) and says so itself.
  bool check_control_ui_root = true;
  /// False: a primary model naming a provider that is not configured is a warning, not an
  /// error (`config set`, where the provider may be added next; `gateway run`, which warns and
  /// answers each turn with the same error). A fallback naming one is always a warning (runs skip
  /// it, as OpenClaw fails over past an unknown model), as is a model a configured provider does
  /// not list (or a provider block listing no models) (docs/cli.md).
  bool model_refs_are_errors = true;
  /// False: the config file does not exist yet, so `gateway run` (given no token by a flag or
  /// PINCER_GATEWAY_TOKEN) writes one with a new random token on its first start: no token in
  /// token mode is then a note, not an error (as doctor's "info"). `config validate` sets it.
  bool config_exists = true;
  /// Set: what the file's "${NAME}" references are read from instead of `env` (config set and
  /// unset: cli/config_file.h keep_env_references(), as the gateway's environment is not this
  /// shell's — a reference stays as written and no variable is missing). `env` still gives the
  /// state dir, HOME and PINCER_GATEWAY_* to the checks.
  config::EnvLookup reference_env;
};

/// The MCP servers of `effective` the gateway lists as disabled instead of starting them, one
/// warning line each naming `mcp.servers.<name>` and the reason `mcp status` gives (the one check:
/// interop/mcp/mcp_config.h's ServerConfig::problem): no command nor url, both, transport "sse", auth
/// "oauth" … A server with `enabled: false` is left out. check_config() includes them; `gateway
/// run` prints them at start and a reload logs them. Pure; any thread.
std::vector<std::string> mcp_server_warnings(const nlohmann::json& effective);

/// The non-empty lines of a multi-line message (an Error's message holds one problem a line).
std::vector<std::string> lines_of(const std::string& text);

/// Every problem of `effective` (a loaded config, with defaults) beyond the schema, each one
/// line naming its config path. What agent::resolve_agents refuses (a duplicate agent id …) is
/// an error, and the checks go on without the value it names (a later duplicate is left out, as
/// OpenClaw uses the first). Warnings also: several agents marked `default: true` (the first
/// wins), a binding whose match.channel is no channel Pincer runs. `env`: the environment the gateway would see (state dir,
/// PINCER_GATEWAY_*).
ConfigProblems check_config(const nlohmann::json& effective, const std::filesystem::path& config_file,
                            const config::EnvLookup& env, const ConfigCheckOptions& options = {});

/// Everything wrong with the config file `file`, as `pincer config validate` reports it and `pincer
/// gateway run` refuses it (one code for both): load()'s errors (JSON5, $include, env vars, every
/// schema violation; each line names the file) followed by check_config()'s problems. A schema
/// violation does not hide the other checks: they run on the document with each offending value
/// removed (a missing required key: its object), which then validates; a problem about a value so
/// removed is left out (the schema's line already names it). Nor does a missing env var: each
/// reference is one error ("<file>: missing env var "NAME" referenced at config path <path>"),
/// and the checks go on with the reference left as written (a placeholder; a problem about that
/// value is left out, the missing variable says it). A file that cannot be read or parsed, or a
/// failing $include, leaves the checks out (there is no document to check). `loaded` is set only
/// when the file loads as the gateway would load it (no schema error, no missing variable).
/// Also: load warnings (repeated keys) first among `warnings`. `options.config_exists` is set
/// from the file. Pure apart from reading the file and `env`; any thread.
struct ConfigFileReport {
  bool exists = false;                         ///< the file exists
  std::optional<config::LoadedConfig> loaded;  ///< the load, when it succeeded (no schema error)
  ConfigProblems problems;
};
ConfigFileReport check_config_file(const std::filesystem::path& file, const config::EnvLookup& env,
                                   ConfigCheckOptions options = {});

/// `lines` (problems of `file`: check_config_file's, or config::load's and check_config's) with each
/// problem about a value written in an $include'd file named by that file (and line) and the path
/// there: "<included file>:<line>: <path there>: <what> (<path> of <file>, through $include)".
/// Lines about `file` itself, or naming no path, stay as they are. check_config_file applies it;
/// the gateway's reload log too (app/config_reloader.cpp), so that both name the same file.
void name_included_files(std::vector<std::string>& lines, const std::filesystem::path& file);

/// A problem line of `file` as the CLI prints it: "<file>: <line>", unless the line names the
/// file already (load()'s errors, the auth sentence) or names a source that is not the file: a
/// flag ("--token: …") or a variable ("PINCER_GATEWAY_TOKEN: …").
std::string naming_file(const std::string& line, const std::filesystem::path& file);

/// Why a running gateway's config differs from `config_file` when no reload of it was rejected:
/// "" unless the file sets gateway.reload.mode "off" (then the gateway applies no edit until it
/// restarts, or until an edit sets another mode); else one sentence saying so and what to do, for
/// `status` and `doctor`. A file that cannot be read: "".
std::string reload_off_note(const std::filesystem::path& config_file, const config::EnvLookup& env);

}  // namespace pincer::cli
