// The `tools` and `approvals` sections of pincer.json (TL-1..TL-4; see config_schema_tools.h).
#include "core/config_schema_tools.h"

#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {

Node tools_section() {
  return object({
      field("profile", one_of({"minimal", "coding", "messaging", "full"})
                           .def("coding")
                           .doc("Base tool set offered to agents, by OpenClaw's profile lists. "
                                "With the tools Pincer has today: `minimal` (session_status), `coding` "
                                "(read, write, edit, apply_patch, exec, process, memory_search, memory_get, "
                                "web_fetch, web_search, cron, skill_manage, sessions_list, sessions_history, "
                                "session_status, sessions_send, sessions_spawn, subagents), `messaging` "
                                "(sessions_list, sessions_history, session_status, sessions_send, message, "
                                "sessions_spawn, subagents), `full` (read, write, edit, apply_patch, exec, process, "
                                "memory_search, memory_get, web_fetch, web_search, cron, skill_manage, sessions_list, "
                                "sessions_history, session_status, sessions_send, message, sessions_spawn, "
                                "subagents).")),
      field("allow", array_of(string()).doc(
                         "When non-empty, only these tools (of the profile's) are offered. "
                         "Entries are tool names with `*` wildcards or groups such as "
                         "`group:fs`.")),
      field("alsoAllow", array_of(string()).doc("Tools added to the profile's set.")),
      field("deny", array_of(string()).doc("Tools never offered; deny beats allow.")),
      field("toolSearch",
            union_of({boolean(), object({field("enabled", boolean().doc("false = every schema in every call."))})})
                .def(true)
                .doc("Offer the rarely used built-in tools (all but the file, shell, memory and `message` tools: "
                     "web_fetch, web_search, cron, skill_manage, the session tools, subagents) through "
                     "`tool_search` — a one-line catalogue the model loads schemas from when it needs them — "
                     "instead of sending every schema with every model call. `false` (or `{enabled: false}`) "
                     "sends them all.")),
      field("exec",
            object({
                field("timeoutSec", integer().min(0).max(kMaxTimerSeconds).def(1800).doc(
                                        "Default lifetime of an `exec` command in seconds when "
                                        "the model gives none; 0 = no limit.")),
                field("maxOutputChars", integer().min(1024).max(kMaxCount).def(100000).doc(
                                            "Most output characters an `exec` command keeps "
                                            "(the head and the tail; the middle is dropped).")),
                field("security", one_of({"deny", "allowlist", "full"}).def("full").doc(
                                      "What `exec` may run (TL-3): `deny` = nothing; `allowlist` = "
                                      "only commands covered by the allowlist of `exec-approvals.json` "
                                      "(others are asked, see `ask`); `full` = anything. The approvals "
                                      "file's setting applies too: the stricter wins.")),
                field("ask", one_of({"off", "on-miss", "always"}).def("off").doc(
                                 "When a person is asked before `exec` runs: `off` = never (not "
                                 "allowed means refused); `on-miss` = when the command is not on the "
                                 "allowlist, or is risky (obfuscated) under `full`; `always` = every "
                                 "command.")),
                field("nonOwner", object({
                                      field("security", one_of({"deny", "allowlist", "full"}).def("allowlist").doc(
                                                            "`tools.exec.security` floor for such runs.")),
                                      field("ask", one_of({"off", "on-miss", "always"}).def("on-miss").doc(
                                                       "`tools.exec.ask` floor for such runs.")),
                                  }).doc("The stricter policy of runs started by a channel sender who is not "
                                         "the owner (not in `commands.ownerAllowFrom`): by default their "
                                         "commands run only when allowlisted or approved by the owner.")),
            }).doc("The `exec` shell tool.")),
      field("web", object({
                       field("fetch", object({
                           field("enabled", boolean().default_note("`true`").doc("`false`: `web_fetch` refuses.")),
                           field("maxChars", integer().min(100).max(kMaxCount).default_note("`20000`").doc(
                                                 "Characters of text `web_fetch` returns when the "
                                                 "model gives no `maxChars`.")),
                           field("maxCharsCap", integer().min(100).max(kMaxCount).default_note("`20000`").doc(
                                                    "Upper bound of the model's `maxChars`.")),
                           field("maxResponseBytes", integer().min(32000).max(10000000).default_note("`750000`").doc(
                                                         "Most response bytes downloaded; the rest "
                                                         "is not read.")),
                           field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).default_note("`30`").doc(
                                                       "Longest a fetch may take, redirects "
                                                       "included.")),
                           field("maxRedirects", integer().min(0).max(20).default_note("`3`").doc(
                                                     "Redirects followed; each hop is checked again.")),
                           field("userAgent", string().doc("User-Agent header of the requests.")),
                           field("ssrfPolicy", object({
                               field("dangerouslyAllowPrivateNetwork", boolean().default_note("`false`").doc(
                                   "Allow loopback, private and link-local targets (checked on the "
                                   "resolved addresses, so DNS cannot point a public name at them).")),
                               field("allowedHostnames", array_of(string()).doc(
                                   "Exact host names allowed even when they resolve to a private "
                                   "address.")),
                           }).doc("Which network targets `web_fetch` may reach.")),
                       }).doc("The `web_fetch` tool.")),
                       field("search", object({
                           field("enabled", boolean().default_note("`true`").doc("`false`: `web_search` refuses.")),
                           field("provider", one_of({"brave", "searxng"}).doc(
                                                 "Search provider. Unset: `brave` when it has an API "
                                                 "key, else `searxng` when it has a base URL.")),
                           field("maxResults", integer().min(1).max(10).default_note("`5`").doc(
                                                   "Results when the model gives no `count`.")),
                           field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).default_note("`30`").doc(
                                                       "Longest a search request may take.")),
                       }).doc("The `web_search` tool; provider settings are in "
                              "`plugins.entries.<provider>.config.webSearch`.")),
                   }).doc("The web tools (content they return is marked untrusted for the model).")),
      field("byProvider", map_of(object({
                              field("profile", one_of({"minimal", "coding", "messaging", "full"}).doc(
                                                   "Narrows to this profile's tools.")),
                              field("allow", array_of(string()).doc("When non-empty, narrows to these tools.")),
                              field("deny", array_of(string()).doc("Tools removed for this model.")),
                          })).doc("Tool policy by model (TL-2): keys `<provider>/<model>` or `<provider>`; "
                                  "the most specific applies.")),
      field("subagents", object({
                             field("tools", object({
                                                field("allow", array_of(string()).doc("When non-empty, subagent runs get only these.")),
                                                field("deny", array_of(string()).default_note("the owner-only control-plane tools").doc(
                                                                  "Tools subagent runs never get.")),
                                            }).doc("The subagent layer of the tool policy.")),
                         }).doc("Runs on the subagent lane.")),
      // ---- session tools and agent-to-agent messages (TL-1, MA-2; docs/agent-tools.md) ----
      field("agentToAgent", object({
                                field("enabled", boolean().def(true).doc(
                                                     "Cross-agent session tool calls: `sessions_send` to another "
                                                     "agent's session and cross-agent `sessions_list`, "
                                                     "`sessions_history`, `session_status`. `false` refuses them; an "
                                                     "agent always reaches its own sessions.")),
                                field("allow", array_of(string()).doc(
                                                   "Agent ids or `*` patterns that may take part in a cross-agent "
                                                   "call: the calling and the target agent must both match. Exact "
                                                   "ids are case-sensitive, patterns are not; empty or absent = "
                                                   "every agent; a blank entry matches none.")),
                            }).doc("Agent-to-agent access of the session tools (MA-2), as OpenClaw's.")),
      field("sessions", object({
                            field("visibility", one_of({"self", "tree", "agent", "all"}).def("all").doc(
                                                    "Which sessions the session tools may target: `self` = only "
                                                    "the calling session; `tree` = it and the sessions it spawned "
                                                    "(from the agent's main session: every session of the agent); "
                                                    "`agent` = every session of the calling agent; `all` = every "
                                                    "session, other agents' as `tools.agentToAgent` allows.")),
                        }).doc("The session tools' reach (TL-1).")),
      // ---- end session tools ----
  }).doc("Which tools agents may use (TL-2) and how the built-in tools behave.");
}

Node approvals_section() {
  return object({
      field("mode", one_of({"manual", "smart", "off"}).def("manual").doc(
                        "How a command that needs an approval is decided (TL-3, TL-4): `manual` = a "
                        "person answers in the chat the run came from, the terminal or web chat; "
                        "`smart` = a small model first triages it as safe (runs), dangerous "
                        "(refused) or ask-human (a person answers, as `manual`); a failed triage "
                        "asks; `off` = nobody is asked, `askFallback` decides.")),
      field("triageModel", string().default_note("the default agent's model").doc(
                               "`provider/model` of the triage model of `mode: smart`.")),
      field("triageTimeoutSec", integer().min(1).max(600).def(20).doc(
                                    "How long the triage may take; a slower answer asks a person.")),
      field("askFallback", one_of({"deny", "allowlist", "full"}).def("deny").doc(
                               "With `mode: off`: what happens to a command that would be asked.")),
      field("timeoutSec", integer().min(1).max(86400).def(120).doc(
                              "How long an approval request waits; no answer denies it and the run "
                              "is told.")),
  }).doc("Exec approvals: who decides a command the policy does not allow outright (docs/security.md).");
}

}  // namespace pincer::config::schema
