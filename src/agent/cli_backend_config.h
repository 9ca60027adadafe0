// CLI backends (issue 17 item 5; OpenClaw's `agents.defaults.cliBackends`): a coding-agent CLI —
// Claude Code `claude`, OpenAI `codex`, `gemini`, or any command — used as the model. A model ref
// whose provider is a backend id (`claude-cli/sonnet`) is answered by running that command; the
// CLI runs its own tools, Pincer's are not offered (docs/providers.md "CLI backends").
//
// This file: the settings of one backend, resolved from the config as OpenClaw does — the built-in
// defaults of `claude-cli` and `codex-cli` (so those two work with no config beyond the model ref),
// merged with `agents.defaults.cliBackends.<id>` (the configured keys win; `env` and
// `modelAliases` merge key by key, `clearEnv` is the union). Other ids exist only when configured.
// Backend ids are compared trimmed and ASCII-lowercased.
//
// Pure functions of the config JSON; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::agent {

/// The api name a CLI backend's ModelSpec carries (no llm::ProviderApi has it).
inline constexpr const char* kCliBackendApi = "cli-backend";

enum class CliOutput { Json, Text, Jsonl };              ///< "json" | "text" | "jsonl"
enum class CliInput { Arg, Stdin };                      ///< "arg" | "stdin"
enum class CliSessionMode { Always, Existing, None };    ///< "always" | "existing" | "none"
enum class CliSystemPromptWhen { First, Always, Never }; ///< "first" | "always" | "never"

/// `reliability.watchdog.fresh` / `.resume`: how long the CLI may print nothing before the call
/// fails as a timeout. `no_output_timeout_ms` when set, else ratio × the run's timeout clamped to
/// [min_ms, max_ms] (OpenClaw's defaults: fresh 0.8, 180 s..600 s; resume 0.3, 60 s..180 s).
struct CliWatchdog {
  std::optional<int64_t> no_output_timeout_ms;
  double ratio = 0.8;
  int64_t min_ms = 180'000;
  int64_t max_ms = 600'000;
  /// The no-output limit in ms for a call whose run may take `run_timeout_ms` (≥ 1000).
  int64_t limit_ms(int64_t run_timeout_ms) const;
};

/// One resolved backend (field names are OpenClaw's, see the schema in config_schema_cli_backends.cpp).
struct CliBackendSettings {
  std::string id;                          ///< normalised backend id = the model ref's provider
  std::string command;                     ///< program name (looked up on PATH) or path
  std::vector<std::string> args;           ///< before everything else on a fresh call
  std::vector<std::string> resume_args;    ///< replace `args` when resuming; "{sessionId}" substituted
  std::vector<std::string> session_args;   ///< instead of sessionArg; "{sessionId}" substituted
  CliOutput output = CliOutput::Json;
  std::optional<CliOutput> resume_output;  ///< output when resuming (codex: text)
  CliInput input = CliInput::Arg;
  int64_t max_prompt_arg_chars = 0;        ///< 0 = no limit; a longer prompt goes on stdin
  std::map<std::string, std::string> env;  ///< set in the child's environment
  std::vector<std::string> clear_env;      ///< removed from the child's environment
  std::string model_arg;                   ///< e.g. "--model"; "" = the model is not passed
  std::map<std::string, std::string> model_aliases;  ///< model id (lowercase) → the CLI's name
  std::string session_arg;                 ///< e.g. "--session-id"
  CliSessionMode session_mode = CliSessionMode::Always;
  std::vector<std::string> session_id_fields = {"session_id", "sessionId", "conversation_id", "conversationId"};
  std::string system_prompt_arg;           ///< e.g. "--append-system-prompt"; "" = not passed
  std::string system_prompt_mode = "append";  ///< informational ("append" | "replace")
  CliSystemPromptWhen system_prompt_when = CliSystemPromptWhen::First;
  /// The flag that passes an image file ("--image"); "" = the files' paths are appended to the
  /// prompt instead, as they are with "@" (each path prefixed "@") or with input "stdin".
  std::string image_arg;
  bool image_list = false;                 ///< imageMode "list": one imageArg with the paths joined by ","
  bool serialize = false;                  ///< one call at a time for this backend (gateway-wide)
  /// `thinkingArgs`: the session's thinking level ("off" | "minimal" | "low" | "medium" | "high" |
  /// "xhigh") → the arguments that pass it (claude-cli `--effort <e>`, codex-cli
  /// `-c model_reasoning_effort=<e>`). A level without an entry uses the nearest lower level that
  /// has one, down to "minimal"; "off" passes only its own entry (none built in).
  std::map<std::string, std::vector<std::string>> thinking_args;
  /// `thinkingEnv`: level → variables set for that call (same lookup as thinking_args).
  std::map<std::string, std::map<std::string, std::string>> thinking_env;
  CliWatchdog fresh_watchdog;
  CliWatchdog resume_watchdog{std::nullopt, 0.3, 60'000, 180'000};

  /// The model name given to the CLI: modelAliases[model id] (case-insensitive key), else the id.
  std::string cli_model(std::string_view model_id) const;
  /// The thinking_args / thinking_env entry used for `level` (see thinking_args); nullptr = none.
  const std::vector<std::string>* thinking_args_for(std::string_view level) const;
  const std::map<std::string, std::string>* thinking_env_for(std::string_view level) const;
};

/// Trimmed, ASCII-lowercased backend id.
std::string normalize_cli_backend_id(std::string_view id);

/// Every backend id: "claude-cli", "codex-cli" and the configured keys of
/// `config.agents.defaults.cliBackends` (normalised, sorted, unique).
std::vector<std::string> cli_backend_ids(const nlohmann::json& config);

/// The settings of backend `provider` in `config` (a loaded config, defaults filled or not), or
/// nullopt when `provider` is not a backend (or its command is empty).
std::optional<CliBackendSettings> resolve_cli_backend(std::string_view provider, const nlohmann::json& config);

}  // namespace pincer::agent
