// CLI backends: the command line of one call (issue 17 item 5, OpenClaw's buildCliArgs order):
//
//   command, args (or resumeArgs when resuming), thinkingArgs[level], modelArg <alias>, systemPromptArg <prompt>,
//   sessionArg <id> (or sessionArgs) on a call that is not a resume, then the prompt.
//
// - Resuming = a CLI session id is stored for this Pincer session and the backend has resumeArgs
//   (their "{sessionId}" is replaced). A stored id without resumeArgs is passed with sessionArg.
// - sessionMode: "always" sends a session id on every call (a fresh UUID when none is stored),
//   "existing" only a stored one, "none" never.
// - The system prompt goes with systemPromptArg when systemPromptWhen is "always", or "first" and
//   no CLI session is stored yet (the CLI keeps it in its session); never with "never".
// - The prompt is the last argument (input "arg"), or, with input "stdin" or when it is longer
//   than maxPromptArgChars (> 0), the child's stdin. An argument containing "{prompt}" receives it
//   instead of the last position (gemini's `--prompt {prompt}`).
// - Images (the turn's, written to files by the caller): with imageArg, after the prompt —
//   `imageArg <file>` per image (imageMode "repeat", the default) or `imageArg <f1>,<f2>` (imageMode
//   "list"); without imageArg, with imageArg "@" or with the prompt on stdin, the files' paths are
//   appended to the prompt, one a line after a blank line ("@<path>" for "@"), for CLIs that open
//   the files a prompt names (OpenClaw's behaviour).
//
// Pure; any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/cli_backend_config.h"

namespace pincer::agent {

struct CliCallInput {
  std::string model_id;            ///< the model ref's model part ("sonnet")
  std::string prompt;              ///< the user's text for this call
  std::string system_prompt;       ///< Pincer's system prompt
  std::string stored_session_id;   ///< the CLI session of this Pincer session ("" = none)
  std::string fresh_session_id;    ///< used by sessionMode "always" when none is stored (a UUID)
  std::vector<std::string> image_paths;  ///< the turn's images as files (absolute paths)
  std::string thinking_level = "off";    ///< the session's level: "off" | "minimal" | … | "xhigh"
};

struct CliInvocation {
  std::vector<std::string> argv;          ///< argv[0] = the command
  std::optional<std::string> stdin_text;  ///< the prompt when it goes on stdin
  std::string session_id;                 ///< the id sent to the CLI ("" = none)
  bool resuming = false;                  ///< resumeArgs were used
  CliOutput output = CliOutput::Json;     ///< how to read stdout (resumeOutput when resuming)
  std::map<std::string, std::string> env; ///< thinkingEnv[level]: set in the child's environment
};

CliInvocation build_cli_invocation(const CliBackendSettings& backend, const CliCallInput& call);

/// `argv` as one POSIX shell command line, each word single-quoted when it needs quoting.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace pincer::agent
