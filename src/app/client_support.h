// Shared plumbing of the CLI commands that talk to a running gateway: the connection flags
// (--url --token --password --timeout --json), connecting with one clear error, printing.
#pragma once

#include <signal.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/connection.h"
#include "cli/gateway_client.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "core/paths.h"

namespace pincer::app {

struct ClientFlags {
  cli::ConnectionFlags conn;
  bool json = false;
  mutable std::string url_shown;  ///< the URL actually used (set by with_gateway)
  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(conn.timeout_ms); }
};

/// Adds --url, --token, --token-file, --password, --password-file, --timeout (ms) and, when
/// `json_flag`, --json.
void add_client_flags(CLI::App* cmd, ClientFlags& flags, bool json_flag = true);

/// Adds `--<name>` (the secret itself; a warning on stderr when used: every local user sees it
/// in `ps` and /proc/<pid>/cmdline) and `--<name>-file PATH` (the secret is the file's first
/// line) to `cmd`, both filling `target`. A file that is missing, not a regular file, larger
/// than 4 KiB or empty fails the command line with a message naming it; a file other users can
/// read gets a warning. The two exclude each other. `source`, when given, is set to the flag that
/// gave the secret ("--token" or "--token-file"), for messages that name what the user typed.
void add_secret_option(CLI::App* cmd, const std::string& name, std::optional<std::string>& target,
                       const std::string& help, std::string* source = nullptr);

/// The check of a `--thinking LEVEL` flag: a level agent::thinking_level knows
/// (off|minimal|low|medium|high|xhigh, the same words as `/think` and thinkingDefault).
CLI::Validator thinking_level_check();

/// The check of a whole-number flag in [min, max], in the words `cron runs --limit` uses:
/// "expected a whole number of <units> from <min> to <max> (got 'abc')" (`units` may be "" for a
/// plain count; CLI11 puts the flag's name before it). Checked on the text before CLI11 converts
/// it, so a value that is not a number gets the same sentence. `type_name` is the help's
/// placeholder (e.g. "MS").
CLI::Validator whole_number_check(long long min, long long max, const std::string& units, const std::string& type_name);

/// The check of a `--session KEY` flag: an empty key is refused (it would silently mean the main
/// session), e.g. `--session: an empty session key is refused …`.
CLI::Validator session_key_check();

/// Resolves the connection (cli/connection.h), connects, and runs `body`. Failures print one
/// "pincer: …" line with a hint and return 1 (unreachable, auth refused) or 2 (bad config/flags).
/// `on_close` (optional): GatewayClient::connect's close handler.
int with_gateway(const ClientFlags& flags, const std::function<int(cli::GatewayClient&)>& body,
                 cli::EventHandler on_event = {}, std::vector<std::string> caps = {}, cli::CloseHandler on_close = {});

/// "" unless the connection came from the config (no --url, no PINCER_GATEWAY_URL) and the state
/// dir has no config file, or one that cannot be read (a syntax error: with a token from the
/// environment the CLI goes on with the defaults): then one sentence naming the file, what is wrong
/// with it and the port assumed (PINCER_GATEWAY_PORT or 18789), for the "cannot reach the gateway"
/// error.
std::string missing_config_note(const ClientFlags& flags, const config::EnvLookup& env);

/// "" unless `options` (resolved from `flags`) carry no token and no password and the URL was given
/// (--url or PINCER_GATEWAY_URL): then the sentence that says why none was sent and what to pass
/// ("--url given: the local config's gateway.auth token or password is sent only to this gateway's
/// own address, …"), for a refused connection's error.
std::string no_credentials_note(const ClientFlags& flags, const cli::ClientOptions& options);

/// with_gateway, except that when no gateway answers on the local connection (no --url and no
/// PINCER_GATEWAY_URL: the gateway of this state dir) it runs `offline` instead, which works on the
/// local files. With `say_offline` it first says so on stderr ("no gateway answers at …; showing
/// the local files of … (offline data)", for reads); an `offline` that writes passes false and
/// reports what it did itself.
int with_gateway_or_local(const ClientFlags& flags, const std::function<int(cli::GatewayClient&)>& body,
                          const std::function<int()>& offline, bool say_offline = true);

/// Prints "pincer: <method>: <message> [<CODE>]" and returns 1.
int request_failed(const std::string& method, const Error& error);
/// Prints `payload` as indented JSON; returns 0.
int print_json(const nlohmann::json& payload);
/// Prints "pincer: <message>" to stderr; returns `code`. While a JsonErrors is on: the object
/// {"ok": false, "error": {"code", "message"}} on stdout instead (the shape of `agents --json`'s
/// errors), `error_code` its code ("" = INVALID_REQUEST for exit code 2, else FAILED).
int fail(int code, const std::string& message, const std::string& error_code = "");

/// While one is alive with `on` set, fail() and request_failed() print errors as JSON on stdout
/// (a `--json` command: a script reads one JSON value, reply or error); exit codes unchanged.
/// Process-wide: made by a command's action on the main thread, for the command's run.
class JsonErrors {
 public:
  explicit JsonErrors(bool on);
  ~JsonErrors();
  JsonErrors(const JsonErrors&) = delete;
  JsonErrors& operator=(const JsonErrors&) = delete;

 private:
  bool previous_;
};
/// The text of a transcript/history message (string content, or its text blocks joined).
std::string message_text(const nlohmann::json& message);
/// message_text for showing a history: an assistant message's tool calls as `⚙ name args` lines
/// (cli/chat_renderer.h tool_call_line); one that ended without its reply
/// (stopReason error/aborted) gets "[<errorMessage>]" after its text, e.g. "[interrupted (the
/// gateway stopped before this reply was finished)]".
std::string history_text(const nlohmann::json& message);

/// Counts Ctrl-C (SIGINT) while it lives, from zero, instead of the default (killing the process);
/// the previous handler comes back after. No SA_RESTART: a blocking read returns EINTR, so a
/// prompt can give up its line. One at a time (the count is process-wide).
class InterruptCounter {
 public:
  InterruptCounter();
  ~InterruptCounter();
  InterruptCounter(const InterruptCounter&) = delete;
  InterruptCounter& operator=(const InterruptCounter&) = delete;
  static int count();
  static void reset();

 private:
  struct sigaction old_ {};
};

}  // namespace pincer::app
