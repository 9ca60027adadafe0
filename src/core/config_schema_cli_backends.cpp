#include "core/config_schema_cli_backends.h"

namespace pincer::config::schema {

namespace detail_config_schema_cli_backends {

Node watchdog(const char* which, const char* defaults) {
  return object({
             field("noOutputTimeoutMs", integer().min(1000).max(86'400'000).doc(
                                            "Milliseconds without output after which the CLI is stopped and the "
                                            "call fails as a timeout (retried, then failed over like a provider "
                                            "timeout). Overrides the ratio.")),
             field("noOutputTimeoutRatio", number().min(0.05).max(0.95).doc(
                                               "Without `noOutputTimeoutMs`: this share of the run's timeout "
                                               "(`agents.defaults.timeoutSeconds`), clamped to `minMs`..`maxMs`.")),
             field("minMs", integer().min(1000).max(86'400'000).doc("Lower bound of the ratio's limit.")),
             field("maxMs", integer().min(1000).max(86'400'000).doc("Upper bound of the ratio's limit.")),
         })
      .doc(std::string("Watchdog of ") + which + " (defaults: " + defaults + ").");
}

// One entry per thinking level (the session's /think), each of `value`.
Node per_thinking_level(const Node& value, const char* what) {
  std::vector<Field> fields;
  for (const char* level : {"off", "minimal", "low", "medium", "high", "xhigh"}) {
    fields.push_back(field(level, Node(value).doc(std::string(what) + " at thinking level `" + level + "`.")));
  }
  return object(std::move(fields));
}

}  // namespace detail_config_schema_cli_backends

Node cli_backends_section() {
  namespace d = detail_config_schema_cli_backends;
  return map_of(
             object({
                 field("command", string().required().doc(
                                      "The program: a name looked up on `PATH`, or a path. `claude-cli` and "
                                      "`codex-cli` are built in (`claude`, `codex`): an entry for them "
                                      "overrides only the keys it gives.")),
                 field("args", array_of(string()).doc(
                                   "Arguments of a fresh call, before the model, system prompt, session and "
                                   "prompt. An argument containing `{prompt}` receives the prompt.")),
                 field("resumeArgs", array_of(string()).doc(
                                         "Replace `args` when a CLI session is stored for the Pincer session "
                                         "(`{sessionId}` is replaced by its id), e.g. `--resume {sessionId}`.")),
                 field("sessionArgs", array_of(string()).doc(
                                          "Instead of `sessionArg`: arguments carrying the session id "
                                          "(`{sessionId}`), on calls that do not resume.")),
                 field("output", one_of({"json", "text", "jsonl"}).default_note("`json` (codex-cli: `jsonl`)").doc(
                                     "How stdout is read: `json` one JSON object (the reply from `result`, "
                                     "`response` or `message`; Claude Code `--output-format json`), `jsonl` one "
                                     "event per line with text streamed as it comes (Claude Code "
                                     "`stream-json`, codex `exec --json`), `text` stdout is the reply.")),
                 field("resumeOutput", one_of({"json", "text", "jsonl"}).doc(
                                           "`output` of resumed calls (codex-cli: `text`).")),
                 field("input", one_of({"arg", "stdin"}).default_note("`arg`").doc(
                                    "Where the prompt goes: the last argument, or the CLI's stdin.")),
                 field("maxPromptArgChars", integer().min(1).max(100'000'000).doc(
                                                "A prompt longer than this goes on stdin even with `input: arg`.")),
                 field("env", map_of(string().sensitive()).doc("Variables set in the CLI's environment.")),
                 field("clearEnv", array_of(string()).doc(
                                       "Variables removed from the CLI's environment (claude-cli: "
                                       "`ANTHROPIC_API_KEY`, `ANTHROPIC_API_KEY_OLD`, so Claude Code uses its "
                                       "own login); added to the built-in list.")),
                 field("modelArg", string().doc("The flag that passes the model, e.g. `--model`; unset = not passed.")),
                 field("modelAliases", map_of(string()).doc(
                                           "Model ref → the CLI's model name (`claude-cli/opus-4.5` → `opus`); "
                                           "other ids are passed as they are. Merged with the built-in aliases.")),
                 field("sessionArg", string().doc("The flag that names the CLI session, e.g. `--session-id`.")),
                 field("sessionMode", one_of({"always", "existing", "none"}).default_note("`always` (codex-cli: `existing`)").doc(
                                          "`always`: every call names a session (a new UUID when none is "
                                          "stored); `existing`: only a stored one (the CLI makes its own and "
                                          "reports it); `none`: never. The id is kept per Pincer session in "
                                          "sessions.json (`cliSessionIds`) and dropped by `/new`.")),
                 field("sessionIdFields", array_of(string()).doc(
                                              "Output fields that carry the CLI's session id (default "
                                              "`session_id`, `sessionId`, `conversation_id`, `conversationId`; "
                                              "codex-cli `thread_id`).")),
                 field("systemPromptArg", string().doc(
                                              "The flag that passes Pincer's system prompt (claude-cli "
                                              "`--append-system-prompt`); unset = not passed.")),
                 field("systemPromptMode", one_of({"append", "replace"}).doc(
                                               "Whether `systemPromptArg` appends to or replaces the CLI's own "
                                               "prompt. Descriptive only (OpenClaw compatibility): choose the flag "
                                               "accordingly; Pincer passes the same text either way.")),
                 field("systemPromptWhen", one_of({"first", "always", "never"}).default_note("`first`").doc(
                                               "When the system prompt is passed: on the first call of a CLI "
                                               "session (it keeps it), on every call, or never.")),
                 field("imageArg", string().default_note("none (`--image` for `codex-cli`)").doc(
                                       "The flag that passes an image file: the turn's images are written to a "
                                       "private temporary directory (removed after the call) and each path follows "
                                       "this flag after the prompt. Unset, `@`, or with `input: \"stdin\"`: the "
                                       "paths are appended to the prompt instead, one a line (`@<path>` for `@`).")),
                 field("imageMode", one_of({"repeat", "list"}).default_note("`repeat`").doc(
                                        "`repeat`: the flag once per image (`--image a.png --image b.png`); `list`: "
                                        "once, with the paths joined by commas.")),
                 field("thinkingArgs", d::per_thinking_level(array_of(string()), "Arguments").default_note(
                                           "claude-cli: `--effort low|medium|high|xhigh` (minimal → low); "
                                           "codex-cli: `-c model_reasoning_effort=<level>`; none at `off`").doc(
                                           "The session's thinking level (`/think`, `thinkingDefault`) → the "
                                           "arguments that pass it, after `args`/`resumeArgs` and before the "
                                           "model. A level without an entry uses the nearest lower one that has "
                                           "one (down to `minimal`); `off` passes only its own entry; `[]` passes "
                                           "nothing. Merged level by level with the built-in entries.")),
                 field("thinkingEnv", d::per_thinking_level(map_of(string()), "Variables").doc(
                                          "The session's thinking level → variables set in the CLI's environment "
                                          "for that call (e.g. Claude Code's `MAX_THINKING_TOKENS`); same lookup "
                                          "as `thinkingArgs`. None built in.")),
                 field("serialize", boolean().default_note("`false` (`true` for the built-ins)").doc(
                                        "Run one call of this backend at a time, gateway-wide; others wait.")),
                 field("reliability",
                       object({
                           field("watchdog", object({
                                                 field("fresh", d::watchdog("calls that start a CLI session",
                                                                            "ratio 0.8, 180 000..600 000 ms")),
                                                 field("resume", d::watchdog("calls that resume one",
                                                                             "ratio 0.3, 60 000..180 000 ms")),
                                             }).doc("Stops a CLI that prints nothing for too long.")),
                       }).doc("Timeouts of the CLI; the whole call is bounded by the run's timeout.")),
             }))
      .doc("Coding-agent CLIs used as the model (docs/providers.md \"CLI backends\"): a model ref "
           "`<id>/<model>` runs the CLI of backend `<id>` instead of calling an API. `claude-cli` (Claude "
           "Code) and `codex-cli` (OpenAI Codex) work without an entry. The CLI runs its own tools; "
           "Pincer's tools are not offered to it.");
}

}  // namespace pincer::config::schema
