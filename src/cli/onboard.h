// `pincer onboard` (issue #4 §2, SPEC UI-1): first-time setup of pincer.json, the gateway token
// and the default agent's workspace, interactive or fully scripted by flags.
//
// What it writes, into $PINCER_HOME/pincer.json:
//   * a new file starts from a commented template (cli::config_template): gateway on the chosen
//     port, loopback, token auth with a fresh random token;
//   * an existing file is edited in place with json5_edit — only the keys below change, comments
//     and every other key survive; a re-run with the same answers changes nothing;
//   * gateway.auth.token when the file has none and auth mode is token;
//   * models.providers.<provider>: baseUrl, api, apiKey ("${NAME}" env reference unless a key was
//     given explicitly), and the model appended to its `models` list when missing;
//   * agents.defaults.model (its `primary`, or the whole string when written as a string) =
//     "<provider>/<model>"; agents.defaults.workspace when a workspace was given;
//   * gateway.port when a port was given.
// The whole result is validated against the schema before it is written (atomically, 0600).
// Then the default agent's workspace is created with its bootstrap files (agent::ensure_workspace).
//
// Providers (`provider` option → provider id, wire API, defaults):
//   openai    → "openai",    openai-completions, https://api.openai.com/v1, key ${OPENAI_API_KEY}, gpt-4.1
//   anthropic → "anthropic", anthropic-messages, https://api.anthropic.com, key ${ANTHROPIC_API_KEY},
//               claude-sonnet-4-5
//   ollama    → "ollama",    ollama, the Ollama URL (default http://127.0.0.1:11434), no key; the
//               model defaults to the first one GET <url>/api/tags lists
//   custom    → "custom",    openai-completions (any OpenAI-compatible server); base URL and model
//               required, key only when api_key_env/api_key is given; asked interactively, the
//               models GET <base URL>/models lists are shown and the first offered (another id
//               may be typed; a failed probe is a warning)
// Without a provider: Ollama when it answers at the Ollama URL, else (non-interactive) an error —
// unless the file already names a model, which is then kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/result.h"

namespace pincer::cli {

struct OnboardOptions {
  std::optional<std::string> provider;     ///< openai | anthropic | ollama | custom
  std::optional<std::string> base_url;
  std::optional<std::string> api_key_env;  ///< stored as "${NAME}"
  std::optional<std::string> api_key;      ///< stored literally (only when given explicitly)
  std::optional<std::string> model;        ///< model id as the provider names it, e.g. gpt-4.1
  std::optional<std::string> workspace;    ///< absolute, ~/…, or relative to the current directory
  std::optional<int> port;                 ///< 1..65535
  std::string ollama_url = "http://127.0.0.1:11434";
  std::chrono::milliseconds probe_timeout{1500};  ///< for the Ollama and custom-server model probes
  /// No prompt because standard input is not a terminal (rather than --non-interactive or
  /// --json): a question that has no answer then says there was no terminal to ask on and how
  /// to run onboarding non-interactively.
  bool no_terminal = false;
};

/// Asks one question; returns the answer, or `default_value` for an empty answer or end of input.
/// `choices` (may be empty) lists the accepted answers, for display.
using Prompt = std::function<std::string(const std::string& question, const std::string& default_value,
                                         const std::vector<std::string>& choices)>;

/// What onboarding did.
struct OnboardResult {
  std::filesystem::path config_file;
  bool created = false;                    ///< the file did not exist
  std::vector<std::string> changed;        ///< config paths written, in order
  std::string provider;                    ///< provider id ("" when the existing model was kept)
  std::string api;                         ///< wire API of the provider
  std::string base_url;
  std::string api_key;                     ///< "${NAME}", "(stored in the file)" or "" (none: to_json omits it)
  std::string model;                       ///< "<provider>/<model id>"
  std::filesystem::path workspace;
  std::vector<std::string> workspace_created;  ///< bootstrap files written
  /// A relative --workspace (or answer) as typed, resolved from `cwd` (as OpenClaw resolves it);
  /// "" when it was absolute, ~/…, or not given.
  std::string workspace_given;
  std::filesystem::path workspace_cwd;
  int port = 18789;                        ///< where the gateway will listen (PINCER_GATEWAY_PORT > gateway.port)
  bool token_generated = false;
  std::vector<std::string> warnings;       ///< e.g. the API key variable is not set in this shell
  std::vector<std::string> next_steps;     ///< human-readable lines

  /// {"configFile", "created", "changed": [...], "provider", "api", "baseUrl", "apiKey", "model",
  ///  "workspace", "workspaceCreated": [...], "workspaceGiven"?: {"path", "relativeTo"}, "port",
  ///  "tokenGenerated", "warnings", "nextSteps"}
  nlohmann::json to_json() const;
};

/// A whole HTTP response, for the small probes of the CLI.
struct HttpGetResult {
  int status = 0;
  std::string body;  ///< at most kMaxGetBody bytes are kept
};
inline constexpr std::size_t kMaxGetBody = 4u << 20;

/// Blocking GET of `url` (own event loop; proxies as core/http_client.h) with the request headers
/// `headers` (name, value). Errors: "UNREACHABLE" naming the URL and the reason ("no answer" after
/// `timeout`).
Result<HttpGetResult> http_get(const std::string& url, std::chrono::milliseconds timeout,
                               const std::vector<std::pair<std::string, std::string>>& headers = {});

/// Model ids served by an OpenAI-compatible server: GET <base_url>/models → data[].id, in its
/// order; `api_key` ("" = none) is sent as a Bearer token. Errors: "UNREACHABLE" (no answer within
/// `timeout`, or an HTTP failure, its status named), "BAD_RESPONSE" (not the {data: [{id}]} shape).
/// Messages name the URL.
Result<std::vector<std::string>> openai_compatible_models(const std::string& base_url, const std::string& api_key,
                                                          std::chrono::milliseconds timeout);

/// Model names served by an Ollama server: GET <url>/api/tags → models[].name, in its order.
/// Errors: "UNREACHABLE" (no answer within `timeout`, or HTTP failure), "BAD_RESPONSE" (not the
/// /api/tags shape). Messages name the URL.
Result<std::vector<std::string>> ollama_models(const std::string& url, std::chrono::milliseconds timeout);

/// Runs onboarding for the state directory `state` (config file paths::config_file(state)).
/// `prompt` empty = non-interactive: flags and defaults only. `env` resolves ~ and tells whether
/// the API key variable is set.
/// Errors: "INVALID_ARGUMENT" (a bad or missing option: exit 2), "CONFIG_INVALID" (the existing
/// file cannot be parsed, or the result would not validate: exit 2), others (I/O: exit 1).
Result<OnboardResult> onboard(const OnboardOptions& options, const std::filesystem::path& state,
                              const config::EnvLookup& env, const Prompt& prompt = {});

}  // namespace pincer::cli
