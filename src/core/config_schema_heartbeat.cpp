#include "core/config_schema_heartbeat.h"

namespace pincer::config::schema {

Node heartbeat_node(bool per_agent) {
  // No defaults in the tree (an agent's block is merged over agents.defaults.heartbeat key by
  // key); the values in the notes are automation/heartbeat.h's.
  auto note = [per_agent](Node node, const char* value) {
    return std::move(node).default_note(per_agent ? "as `agents.defaults.heartbeat`" : value);
  };
  return object({
             field("every", note(string().format("text-line"), "`30m`")
                                .doc("Interval between heartbeats: a number with `ms`, `s`, `m`, `h` or `d` "
                                     "(`30m`, `1h`; a bare number is minutes). `0m` turns heartbeats off "
                                     "(then no timer runs).")),
             field("activeHours",
                   object({
                       field("start", string().format("text-line").doc(
                                          "First minute of the window, `HH:MM` (00:00–23:59), inclusive.")),
                       field("end", string().format("text-line").doc(
                                        "End of the window, `HH:MM` (00:00–24:00), exclusive; before `start` "
                                        "the window wraps past midnight; equal to `start` it is never open.")),
                       field("timezone", string().format("text-line").default_note("`user`").doc(
                                             "Zone of the times: an IANA name, `user` "
                                             "(`agents.defaults.userTimezone`, else the host's) or `local` (the "
                                             "host's).")),
                   })
                       .doc("Beats only inside this daily window (both `start` and `end` needed); outside it a "
                            "beat is skipped without a model call.")),
             field("prompt", note(string(), "a built-in prompt: read HEARTBEAT.md, answer `HEARTBEAT_OK` when "
                                            "nothing needs attention")
                                 .doc("The message of each heartbeat turn, sent as written.")),
             field("target", note(string().format("text-line"), "`last`")
                                 .doc("Where a reply that is not an acknowledgement goes: `last` (the chat the "
                                      "agent last heard from), `none` (kept in the session only) or a channel id "
                                      "(`telegram`, `irc`, `webhook`) with `to`.")),
             field("to", string().format("text-line").doc(
                             "The recipient for a channel `target` (a Telegram chat id …); default: the chat the "
                             "agent last heard from on that channel.")),
             field("accountId", string().format("text-line").doc(
                                    "The channel account that sends (several bot accounts); default: the last "
                                    "chat's, else the channel's first running account.")),
             field("model", string().format("text-line").doc(
                                "Model of heartbeat turns (`provider/model` or an alias); default: the main "
                                "session's.")),
             field("ackMaxChars", note(integer().min(0).max(kMaxCount), "300")
                                      .doc("A reply with `HEARTBEAT_OK` at its start or end and at most this many "
                                           "other characters is an acknowledgement: delivered nowhere.")),
             field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).doc(
                                         "Longest a heartbeat turn may take, in seconds; default: "
                                         "`agents.defaults.timeoutSeconds`.")),
         })
      .doc(per_agent ? "This agent's heartbeat: each key given overrides `agents.defaults.heartbeat`. When any "
                       "agent has a `heartbeat` block, only those agents beat."
                     : "The heartbeat (AT-1, docs/automation.md): a periodic turn in the agent's main session "
                       "that reads HEARTBEAT.md. On by default for the default agent (OpenClaw's default); "
                       "an empty HEARTBEAT.md (only headers, comments, blank lines) makes no model call.");
}

}  // namespace pincer::config::schema
