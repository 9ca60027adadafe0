// The `session` and `messages` sections of pincer.json (RT-1, RT-2, SS-5, QL-3; see
// config_schema_session.h).
#include "core/config_schema_session.h"

#include <string>
#include <utility>
#include <vector>

#include "core/config_schema_messages_inbound.h"

namespace pincer::config::schema {

namespace detail_config_schema_session {

// One automatic reset rule of `session.reset`, `resetByType.*`, `resetByChannel.*` (SS-5;
// OpenClaw src/config/sessions/reset-policy.ts).
Node session_reset_rule(std::string what) {
  return object({
             field("mode", one_of({"none", "daily", "idle"}).doc(
                               "`daily` = a session started before the last `atHour`:00 starts over "
                               "with the next message; `idle` = only `idleMinutes` counts; `none` = "
                               "never. Default `daily` when this block is given (a type or channel "
                               "block inherits the base mode).")),
             field("atHour", integer().min(0).max(23).doc(
                                 "Hour of the daily reset, host time (default 4).")),
             field("idleMinutes", integer().min(0).max(5256000).doc(  // ten years
                                      "A session idle longer than this starts over with the next "
                                      "message (0 = no idle reset).")),
         })
      .doc(std::move(what));
}

}  // namespace detail_config_schema_session

Node session_section() {
  namespace d = detail_config_schema_session;
  return object({
      field("dmScope", one_of({"main", "per-peer", "per-channel-peer", "per-account-channel-peer"})
                           .default_note("`main`")
                           .doc("Which session a direct message joins (RT-2): `main` = one session "
                                "for all direct messages of an agent (`agent:<id>:main`), "
                                "`per-peer` = one per sender (`agent:<id>:direct:<peer>`), "
                                "`per-channel-peer` = one per channel and sender "
                                "(`agent:<id>:<channel>:direct:<peer>`), `per-account-channel-peer` "
                                "= one per bot account, channel and sender. Groups and channels "
                                "always get their own session.")),
      field("mainKey", string().doc(
                           "Accepted for OpenClaw compatibility and ignored, as OpenClaw does: "
                           "the main session key is always `main`.")),
      field("identityLinks", map_of(array_of(string())).doc(
                                 "One person's ids on several channels, so their direct messages "
                                 "share a session under the non-`main` scopes (RT-4): "
                                 "`{\"alice\": [\"telegram:123\", \"discord:456\"]}` makes both "
                                 "`agent:<id>:direct:alice`. Ids are `<channel>:<peer id>` or a bare "
                                 "peer id. Also what `/dock_<channel>` checks before it moves a "
                                 "session's replies to the person's account on that channel (RT-5; "
                                 "docs/channels.md, Docking).")),
      field("reset", d::session_reset_rule(
                         "Automatic session resets (SS-5), checked when a message arrives (no timer): "
                         "the old transcript is archived as `<id>.jsonl.reset.<time>`, as `/new` does. "
                         "Not set = sessions never reset by themselves.")),
      field("resetByType", object({
                               field("direct", d::session_reset_rule("Direct-message sessions.")),
                               field("group", d::session_reset_rule("Group and channel sessions.")),
                               field("thread", d::session_reset_rule("Thread and forum-topic sessions.")),
                           }).doc("`reset` overridden per kind of session (fields not given come from `reset`).")),
      field("resetByChannel", map_of(d::session_reset_rule("The rule for messages from this channel.")).doc(
                                  "`reset` replaced per channel id (`telegram`, `irc`, …): wins over "
                                  "`reset` and `resetByType` for messages from that channel.")),
      // ---- agent-to-agent messages (MA-2; docs/agent-tools.md) ----
      field("agentToAgent", object({
                                field("maxPingPongTurns", integer().min(0).max(5).def(5).doc(
                                                              "After `sessions_send` got its reply, the two "
                                                              "sessions may answer each other this many more "
                                                              "turns (requester first); a `REPLY_SKIP` answer "
                                                              "ends it sooner. 0 = no exchange.")),
                            }).doc("Agent-to-agent exchanges (MA-2).")),
      // ---- end agent-to-agent ----
  }).doc("How messages map onto sessions.");
}

Node messages_section() {
  return object({
      field("queue", object({
                         field("mode", one_of({"collect", "followup", "steer", "steer-backlog", "interrupt"})
                                           .def("collect")
                                           .doc("What a channel message does while its session is "
                                                "busy (QL-3): `collect` = gather them into one run "
                                                "after the current one; `followup` = one run each, "
                                                "in order; `steer` = inject it into the running "
                                                "run at its next tool-call boundary (a followup "
                                                "when the run ends before one); `steer-backlog` = "
                                                "steer and also keep it for a followup turn; "
                                                "`interrupt` = abort the "
                                                "current run, drop its reply, answer the new "
                                                "message.")),
                         field("debounceMs", integer().min(0).max(60000).def(1000).doc(
                                                 "`collect`: quiet time after the busy run ends "
                                                 "before the gathered messages run, in ms.")),
                         field("cap", integer().min(1).max(1000).def(20).doc(
                                          "Most messages waiting per session.")),
                         field("drop", one_of({"summarize", "old", "new"})
                                           .def("summarize")
                                           .doc("Over `cap`: `old` drops the oldest waiting "
                                                "message, `new` the arriving one, `summarize` "
                                                "drops the oldest and tells the agent how many "
                                                "were dropped.")),
                     }).doc("Queueing of messages that arrive while a run is busy (QL-3).")),
      field("inbound", messages_inbound_section()),
  }).doc("Message handling for channels.");
}

}  // namespace pincer::config::schema
