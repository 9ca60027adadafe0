// The `agents` section of pincer.json (AG-*, CX-2, CX-3): agents.defaults and agents.list[] (see
// config_schema_agents.h).
#include "core/config_schema_agents.h"
#include "core/config_schema_cli_backends.h"
#include "core/config_schema_heartbeat.h"
#include "core/config_schema_memory.h"
#include "core/config_schema_skills.h"

#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {

namespace detail_config_schema_agents {

// `model` of agents.defaults and of agents.list[]: OpenClaw accepts "provider/model" or
// {primary, fallbacks}.
Node model_selection(std::string what) {
  return union_of({
             string(),
             object({
                 field("primary", string().doc(
                                      "Model used first, as `provider/model` (a model listed "
                                      "under `models.providers`).")),
                 field("fallbacks", array_of(string()).doc(
                                        "Models tried in order when the primary keeps failing "
                                        "(PV-5), each as `provider/model`. An empty list "
                                        "disables inherited fallbacks.")),
             }),
         })
      .doc(std::move(what) +
           " Either `\"provider/model\"` or `{\"primary\": \"provider/model\", \"fallbacks\": [...]}`.");
}


// The tool sandbox (TL-5; src/tools/sandbox/sandbox.h), OpenClaw's agents.defaults.sandbox with the
// bubblewrap backend.
Node sandbox_settings(const std::string& where, bool with_defaults) {
  // agents.defaults.sandbox carries the defaults (tools/sandbox/sandbox.h Settings; sandbox_test
  // checks they agree); an agent's entry must not, or they would override agents.defaults.
  auto dflt = [with_defaults](Node node, nlohmann::json value) {
    if (with_defaults) return std::move(node).def(std::move(value));
    return std::move(node).default_note("as `agents.defaults.sandbox`");
  };
  return object({
             field("mode", dflt(one_of({"off", "non-main", "all"}), "off")
                               .doc("Which sessions run their tools in the sandbox: `off`, `non-main` "
                                    "(every session except the agent's main one, `agent:<id>:main`), "
                                    "`all`.")),
             field("backend", dflt(one_of({"bwrap"}), "bwrap").doc(
                                  "Sandbox backend: `bwrap` (bubblewrap, Debian package `bubblewrap`; "
                                  "one sandbox per command, user namespaces). When it cannot start, "
                                  "the tools refuse: nothing runs on the host instead.")),
             field("bwrap", object({
                                field("command", dflt(string(), "bwrap").doc(
                                                     "The bwrap binary: a name looked up on PATH or a "
                                                     "path.")),
                            }).doc("The bubblewrap backend.")),
             field("workspaceAccess", dflt(one_of({"rw", "ro", "none"}), "rw")
                                          .doc("The workspace inside the sandbox, at its host path: `rw`, "
                                               "`ro` (also the file tools only `read`), `none` (an empty "
                                               "throwaway directory; the file tools refuse).")),
             field("binds", array_of(string()).doc(
                                "More host directories inside: `/host/path[:/inside/path][:ro|rw]` "
                                "(default rw). Added to the defaults' binds.")),
             field("network", dflt(one_of({"off", "on"}), "off")
                                  .doc("`off`: the sandbox has its own empty network namespace (no "
                                       "host network, not even the host's loopback); `on`: the host "
                                       "network.")),
         })
      .doc(where);
}

Node agent_defaults() {
  return object({
      field("model", model_selection("Model of every agent that does not choose its own.")),
      field("workspace", string()
                             .format("text-line")
                             .default_note("`<state dir>/workspace`")
                             .doc("Workspace directory of the default agent: its working "
                                  "directory and the home of its bootstrap files (AGENTS.md, "
                                  "SOUL.md, …). `~` is your home directory; a relative path is "
                                  "relative to the state directory. Other agents default to "
                                  "`<state dir>/workspace-<id>`.")),
      // MA-4: read-only shared folders (tools/sandbox/sandbox.h shared_folders_for_agent).
      field("binds", array_of(string()).doc(
                         "Read-only shared folders of every agent (MA-4): `/host/path[:/mount/path][:ro]`. "
                         "The file tools can `read` beneath the host path or the mount path, never "
                         "write there; a sandboxed `exec` sees them read-only at the mount path. "
                         "System and credential directories and Pincer's state directory are refused, "
                         "as for `sandbox.binds`. See docs/agents.md.")),
      field("thinkingDefault", one_of({"off", "minimal", "low", "medium", "high", "xhigh"})
                                   .def("off")
                                   .doc("Thinking level of runs that ask for none (AG-7); only "
                                        "used with models that have `reasoning: true`. A level "
                                        "the provider rejects is stepped down.")),
      field("userTimezone", string().format("text-line").default_note("the host's time zone").doc(
                                "IANA time zone of the user (`Europe/Berlin`), for the current time the "
                                "agent is told each turn (in the turn context after the cached "
                                "prompt prefix, CX-4). A name that is not in this host's time zone "
                                "database is a configuration error.")),
      field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).def(600).doc(
                                  "Longest an agent run may take, in seconds; then it is aborted "
                                  "and the partial reply kept.")),
      field("contextTokens", integer().min(1).max(kMaxCount).doc(
                                 "Caps the model's `contextWindow`, in tokens (OpenClaw's "
                                 "override): prompt budgets and compaction work in the smaller of "
                                 "the two (CX-6). A value above the model's window has no effect "
                                 "and is reported by `/status` and `pincer status`.")),
      field("contextEngine", string().default_note("`default`").doc(
                                 "Context engine of every agent that does not choose its own "
                                 "(CX-1): `default` (linear history, pruning and compaction; "
                                 "`legacy` is the same, OpenClaw's name). Another name is a "
                                 "configuration error.")),
      field("compaction",
            object({
                field("enabled", boolean().default_note("`true`").doc(
                                     "Compact before a call when the history no longer fits the prompt "
                                     "budget (CX-9 L1). Overflow and timeout recovery and `/compact` "
                                     "work either way.")),
                field("reserveTokens", integer().min(0).max(kMaxCount).default_note("16384").doc(
                                           "Tokens kept free for the reply: the prompt budget is the "
                                           "window minus this, clamped so at least min(8 000, half the "
                                           "window) stays for the prompt (CX-6).")),
                field("keepRecentTokens", integer().min(1).max(kMaxCount).default_note("20000").doc(
                                              "The recent part kept verbatim by a compaction; scaled "
                                              "down to 40 % of the history budget in small windows "
                                              "(CX-9).")),
                field("memoryFlush", memory_flush_node()),
            }).doc("Compaction of long sessions into an LLM-written summary (CX-9); see docs/context.md.")),
      field("startupContext", startup_context_node()),
      field("maxConcurrent", integer().min(1).max(kMaxCount).def(4).doc(
                                 "Agent runs executing at once across all sessions (the `main` "
                                 "lane). Each session still runs one turn at a time (AG-8).")),
      field("subagents", object({
                             field("maxConcurrent", integer().min(1).max(kMaxCount).default_note("8").doc(
                                                        "Sub-agent runs executing at once (the "
                                                        "`subagent` lane, QL-2).")),
                             // MA-3 (agent/subagent_rules.h, docs/subagents.md)
                             field("maxSpawnDepth", integer().min(1).max(5).default_note("2").doc(
                                                        "How deep subagents nest: a session of depth d (main = 0) "
                                                        "may spawn while d < maxSpawnDepth (orchestrator), else it "
                                                        "is a leaf and cannot.")),
                             field("maxChildrenPerAgent", integer().min(1).max(20).default_note("5").doc(
                                                              "Running subagents one session may have at once.")),
                             field("runTimeoutSeconds", integer().min(0).max(kMaxCount).default_note("0").doc(
                                                            "Default time limit of a subagent run when "
                                                            "sessions_spawn gives none; 0 = the agent's "
                                                            "timeoutSeconds.")),
                             field("allowAgents", array_of(string()).doc(
                                                      "Agent ids sessions_spawn may target besides the "
                                                      "requester's own (`*` = any); "
                                                      "`agents.list[].subagents.allowAgents` wins.")),
                         }).doc("Sub-agent runs (MA-3; docs/subagents.md).")),
      field("bootstrapMaxChars", integer().min(1).max(kMaxCount).def(20000).doc(
                                     "Most characters of one workspace bootstrap file put into "
                                     "the system prompt; a longer file keeps its first 70 % and "
                                     "last 20 % with a marker between (CX-3).")),
      field("bootstrapTotalMaxChars", integer().min(1).max(kMaxCount).def(150000).doc(
                                          "Most characters of all bootstrap files together "
                                          "(CX-3).")),
      field("bootstrapTruncationWarning",
            one_of({"once", "always", "off"})
                .def("once")
                .doc("Tell the model when a bootstrap file was cut: `once` per distinct set of "
                     "cuts, `always`, or `off` (CX-3).")),
      field("blockStreamingDefault", one_of({"on", "off"})
                                         .default_note("`off`")
                                         .doc("`on` = block streaming (CH-4) on every channel whose "
                                              "`blockStreaming` is not `false`: replies arrive in "
                                              "blocks while they are written.")),
      field("blockStreamingChunk",
            object({
                field("minChars", integer().min(1).max(100000).doc(
                                      "A block is cut once the text holds this many characters "
                                      "(default 800).")),
                field("maxChars", integer().min(1).max(100000).doc(
                                      "Longest block before a forced cut (default 1200; at most "
                                      "the channel's text limit).")),
                field("breakPreference", one_of({"paragraph", "newline", "sentence"}).doc(
                                             "Where a block is preferably cut (default `paragraph`; "
                                             "never inside a code block).")),
            }).doc("Block streaming: how the reply is cut into blocks (CH-4).")),
      field("blockStreamingCoalesce", block_streaming_coalesce()),
      field("humanDelay",
            object({
                field("mode", one_of({"off", "natural", "custom"})
                                  .default_note("`off`")
                                  .doc("`natural` = a random 800–2500 ms; `custom` = a random "
                                       "`minMs`..`maxMs`; `off` = none.")),
                field("minMs", integer().min(0).max(60000).doc(
                                   "`custom`: shortest pause, ms (default 800).")),
                field("maxMs", integer().min(0).max(60000).doc(
                                   "`custom`: longest pause, ms (default 2500). A `maxMs` at or below "
                                   "`minMs` means always `minMs`.")),
            }).doc("Block streaming: a human-like pause between blocks (not before the first).")),
      field("sandbox", sandbox_settings(
                           "Run `exec`/`process` inside bubblewrap and hold the file tools to the same "
                           "view (TL-5): only the workspace, the binds and a read-only system are "
                           "visible. See docs/security.md.", true)),
      field("heartbeat", heartbeat_node(false)),
      field("cliBackends", cli_backends_section()),  // issue 17 item 5 (config_schema_cli_backends.cpp)
  }).doc("Settings every agent inherits.");
}

Node agent_entry() {
  return object({
      field("id", string()
                      .pattern("^[a-z0-9][a-z0-9_-]{0,63}$")
                      .required()
                      .doc("Agent id: lowercase letters, digits, `_` and `-`, at most 64 "
                           "characters, starting with a letter or digit. Used in session keys "
                           "(`agent:<id>:…`) and state paths (`<state dir>/agents/<id>`).")),
      field("name", string().doc("Display name.")),
      field("default", boolean().doc(
                           "This is the default agent (the first one marked wins; without any "
                           "mark the first agent listed is the default).")),
      field("tools", object({
                         field("profile", one_of({"minimal", "coding", "messaging", "full"}).doc(
                                              "This agent's tool profile, instead of `tools.profile`.")),
                         field("allow", array_of(string()).doc("When non-empty, narrows this agent's tools to these.")),
                         field("alsoAllow", array_of(string()).doc("Tools added to this agent's profile set.")),
                         field("deny", array_of(string()).doc("Tools this agent never gets; deny beats allow.")),
                     }).doc("This agent's layer of the tool policy (TL-2; `pincer tools explain --agent <id>`).")),
      field("binds", array_of(string()).doc(  // MA-4
                         "This agent's read-only shared folders, added to `agents.defaults.binds`: "
                         "`/host/path[:/mount/path][:ro]` (docs/agents.md).")),
      field("workspace", string().format("text-line").doc(
                             "Workspace directory of this agent. Default: "
                             "`agents.defaults.workspace` (or `<state dir>/workspace`) for the "
                             "default agent, `<state dir>/workspace-<id>` for the others.")),
      field("model", model_selection(
                         "Model of this agent, overriding `agents.defaults.model`. Fallbacks "
                         "are inherited unless given.")),
      field("memory", object({field("search", memory_search_node(true))}).doc("This agent's memory settings.")),
      field("contextEngine", string().doc(
                                 "Context engine of this agent, overriding "
                                 "`agents.defaults.contextEngine` (CX-1).")),
      field("sandbox", sandbox_settings(
                           "This agent's sandbox: each key given overrides `agents.defaults.sandbox`; "
                           "`binds` are added.", false)),
      field("heartbeat", heartbeat_node(true)),
      field("skills", agent_skills_filter()),  // SK-2 (config_schema_skills.cpp)
      field("subagents", object({  // MA-3
                             field("allowAgents", array_of(string()).doc(
                                                      "Agent ids this agent's sessions_spawn may target "
                                                      "besides itself (`*` = any configured agent); "
                                                      "overrides `agents.defaults.subagents.allowAgents`.")),
                         }).doc("This agent's subagents (MA-3).")),
  }).doc("One agent.");
}

}  // namespace detail_config_schema_agents


// blockStreamingCoalesce of agents.defaults and of a channel (CH-4; OpenClaw
// src/auto-reply/reply/block-reply-coalescer.ts).
Node block_streaming_coalesce() {
  return object({
             field("minChars", integer().min(1).max(100000).doc(
                                   "Joined blocks wait until they hold this many characters "
                                   "(default: the chunk `minChars`).")),
             field("maxChars", integer().min(1).max(100000).doc(
                                   "Joined blocks are sent before they would exceed this (default: "
                                   "the chunk `maxChars`; at most the channel's text limit).")),
             field("idleMs", integer().min(0).max(600000).doc(
                                 "Send what waits after this long without new text, ms (default "
                                 "1000; 0 = only at the limits and at the end).")),
         })
      .doc("Block streaming: consecutive blocks are joined before sending, so short blocks do not "
           "arrive as a burst of tiny messages.");
}

Node agents_section() {
  namespace d = detail_config_schema_agents;
  return object({
      field("defaults", d::agent_defaults()),
      field("list", array_of(d::agent_entry()).doc(
                        "The agents. Without a list there is one agent, `main`.")),
  }).doc("Agents: their models, workspaces and context budgets.");
}

}  // namespace pincer::config::schema
