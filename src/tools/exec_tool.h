// Runtime tools, group "runtime" (SPEC TL-1): `exec` runs a shell command in the workspace,
// `process` manages the background ones.
//
//   exec    {command, workdir?: directory inside the workspace, timeoutSeconds?: total lifetime in
//           seconds (0 = none; alias "timeout"; default ToolContext::default_timeout_ms),
//           background?: return a sessionId at once, yieldMs?: run in the foreground but move
//           to the background after this many milliseconds, env?: {NAME: value} overrides}
//           Runs `/bin/sh -c` (subprocess.h) in its own process group with stdin /dev/null and a
//           scrubbed environment (no secret-looking names, no PINCER_* state variables); the
//           group dies with the gateway, even on kill -9 (process_guard.h); start and end are
//           logged at info level. The result text is the combined stdout+stderr — the first
//           quarter and last three quarters of max_output_chars, with
//           "[... N bytes omitted ...]" between — followed by a status line such as
//           "[exit code 0]", "[exit code 2]", "[timed out after 5s; process group killed]",
//           "[cancelled; process group killed]" or "[terminated by signal 9 (SIGKILL)]".
//           A non-zero exit, a signal, a timeout or a cancel sets is_error.
//           Background/yield need ToolContext::processes; without it the command runs in the
//           foreground.
//   process {action: list|poll|log|kill|remove, sessionId? (all but list), timeout?: for poll,
//           milliseconds to wait for new output (max 30000)}
//           poll returns output new since the previous poll plus the status; log returns all
//           retained output; kill stops the group (SIGTERM, then SIGKILL) and waits briefly.
//           There is no stdin (write/send-keys/paste are not supported).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/subprocess.h"
#include "tools/tool.h"

namespace pincer::tools {

/// True for variable names a child must not see (LESSONS 8: never expose secrets to tools):
/// names containing KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH (any case), and
/// every PINCER_GATEWAY_* variable.
bool is_secret_env_name(std::string_view name);

/// True for variables that locate this gateway's state, which tools have no business finding
/// (issue 22 §3): every PINCER_* variable (PINCER_HOME, the gateway's port/URL/token …) and
/// OpenClaw's OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH and OPENCLAW_HOME.
bool is_state_env_name(std::string_view name);

/// The child environment as "NAME=value" entries: `base` without secret-looking names and state
/// variables, then
/// `overrides` (set by the model, kept as given), and PATH=/usr/local/bin:/usr/bin:/bin if unset.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& base,
                                           const std::map<std::string, std::string>& overrides = {});

/// One line describing how a process ended (or that it runs): "exit code 0",
/// "timed out after 5s; process group killed", "terminated by signal 9 (SIGKILL)", "running".
std::string describe_status(const ProcessStatus& status);

/// exec, process — in that order.
std::vector<std::unique_ptr<Tool>> make_runtime_tools();

}  // namespace pincer::tools
