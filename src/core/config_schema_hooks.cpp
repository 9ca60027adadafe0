#include "core/config_schema_hooks.h"

namespace pincer::config::schema {

namespace {

Node mapping_node() {
  return object({
             field("id", string().format("text-line").doc("The mapping's name in logs and `hooks.status`; default "
                                                          "`mapping-<n>`.")),
             field("match", object({
                                field("path", string().format("text-line").doc(
                                                  "The sub-path after `hooks.path` it takes (`gmail` for "
                                                  "`POST /hooks/gmail`); default: any.")),
                                field("source", string().format("text-line").doc(
                                                    "Takes only bodies whose `source` field equals this.")),
                            }).doc("Which requests the mapping takes; the first mapping that matches wins.")),
             field("action", one_of({"agent", "wake"}).def("agent").doc(
                                 "`agent`: an isolated agent turn on `messageTemplate`; `wake`: a system event "
                                 "of the main session from `textTemplate`.")),
             field("wakeMode", one_of({"now", "next-heartbeat"}).def("now").doc(
                                   "`now` asks the heartbeat for a beat at once (after the turn, for `agent`).")),
             field("name", string().format("text-line").doc("The hook's name in the main session's summary line "
                                                            "(`Hook <name>: …`); templates allowed.")),
             field("agentId", string().format("text-line").doc("The agent that runs the turn; default: the default "
                                                               "agent.")),
             field("sessionKey", string().format("text-line").doc(
                                     "The turn's session (templates allowed, e.g. `hook:gmail:{{messages[0].id}}`); "
                                     "default: `hooks.defaultSessionKey`, else a new `hook:<uuid>`.")),
             field("messageTemplate", string().doc(
                                          "The turn's message: `{{payload.x.y}}`, `{{x[0].y}}`, `{{headers.name}}`, "
                                          "`{{query.name}}`, `{{path}}`, `{{now}}` are replaced.")),
             field("textTemplate", string().doc("The system event's text of a `wake` mapping (same placeholders).")),
             field("deliver", boolean().def(true).doc("Send the turn's reply to `channel`/`to`.")),
             field("channel", string().format("text-line").def("last").doc(
                                  "`last` (the chat the agent last heard from) or a configured channel id.")),
             field("to", string().format("text-line").doc("The recipient on `channel`; templates allowed.")),
             field("model", string().format("text-line").doc("Model of the turn (`provider/model` or an alias).")),
             field("thinking", string().format("text-line").doc("Thinking level of the turn.")),
             field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).doc("Longest the turn may take.")),
             field("allowUnsafeExternalContent", boolean().def(false).doc(
                                                     "Give the message to the model as written instead of inside "
                                                     "the untrusted-content block (only for sources you control).")),
             field("transform", any().doc("OpenClaw's JavaScript transform: refused (it cannot run in Pincer).")),
         })
      .doc("A custom endpoint `POST <hooks.path>/<match.path>`.");
}

}  // namespace

Node hooks_section() {
  return object({
             field("enabled", boolean().def(false).doc(
                                  "Serve `POST <path>/wake`, `<path>/agent` and the mappings on the gateway's port "
                                  "(docs/automation.md \"Hooks\").")),
             field("token", string().sensitive().format("text-line").doc(
                                "The hook token callers send as `Authorization: Bearer <token>` or "
                                "`X-Pincer-Token` (`X-OpenClaw-Token`); required when enabled, never in the query "
                                "string; must differ from the gateway's token and password.")),
             field("path", string().format("text-line").def("/hooks").doc("Where the endpoints live (not `/`).")),
             field("maxBodyBytes", integer().min(1).max(kMaxCount).def(262144).doc(
                                       "Largest request body, bytes; larger ones are answered 413.")),
             field("defaultSessionKey", string().format("text-line").doc(
                                            "Session of agent turns that name none; default: a new `hook:<uuid>` "
                                            "per request.")),
             field("allowRequestSessionKey", boolean().def(false).doc(
                                                 "Let a `/agent` body choose its `sessionKey` (refused 400 "
                                                 "otherwise).")),
             field("allowedSessionKeyPrefixes", array_of(string()).doc(
                                                    "Session keys a hook may use must start with one of these "
                                                    "(case-insensitive); include `hook:` unless "
                                                    "`defaultSessionKey` is set.")),
             field("allowedAgentIds", array_of(string()).doc(
                                          "Agents a hook may run (a request naming no agent runs the default "
                                          "agent, which must be listed too; `*` = any; `[]` = none); default: "
                                          "any.")),
             field("presets", array_of(one_of({"gmail"})).doc(
                                  "Built-in mappings: `gmail` (`POST <path>/gmail` with Gmail Pub/Sub-style "
                                  "`messages[]`).")),
             field("gmail", object({
                                field("allowUnsafeExternalContent", boolean().def(false).doc(
                                                                        "The `gmail` preset's message without the "
                                                                        "untrusted-content block.")),
                            }).doc("Settings of the `gmail` preset (the watcher itself is not built).")),
             field("mappings", array_of(mapping_node()).doc("Custom endpoints, tried in order before the presets.")),
         })
      .doc("Inbound webhooks (AT-3): other programs wake the agent or start a turn over HTTP.");
}

}  // namespace pincer::config::schema
