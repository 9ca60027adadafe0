#include "core/config_schema_active_memory.h"

namespace pincer::config::schema {

// The defaults are ActiveRecallSettings' (memory/recall/active_recall_settings.h), documented with
// default_note: like the other plugin entries, nothing is filled into a config that does not use it.
Node active_memory_entry() {
  return object({
      field("enabled", boolean().default_note("`false`").doc(
                           "Turn active recall on. It then runs only for the agents listed in "
                           "`config.agents`.")),
      field("config",
            object({
                field("enabled", boolean().default_note("`true`").doc(
                                     "Pause (`false`) or resume active recall for every agent while "
                                     "keeping its settings.")),
                field("agents", array_of(string()).default_note("`[]` (none)").doc(
                                    "Ids of the agents whose replies get active recall (opt-in per agent).")),
                field("allowedChatTypes", array_of(one_of({"direct", "group", "channel"}))
                                              .default_note("`[\"direct\"]`")
                                              .doc("Kinds of conversation that get active recall, told by the "
                                                   "session key (`…:group:…`, `…:channel:…`, anything else is "
                                                   "direct): by default only one-to-one chats, so what memory "
                                                   "knows about the user stays out of shared rooms.")),
                field("model", string().default_note("the run's model").doc(
                                   "`provider/model` of the recall's model call (a small, fast model keeps "
                                   "replies quick).")),
                field("queryMode", one_of({"message", "recent", "full"}).default_note("`recent`").doc(
                                       "What the recall sees: the new message alone, the message with a "
                                       "few recent turns, or the whole conversation (bounded to 25 000 bytes, "
                                       "newest kept).")),
                field("promptStyle",
                      one_of({"balanced", "strict", "contextual", "recall-heavy", "precision-heavy", "preference-only"})
                          .default_note("`strict` for `message`, `balanced` for `recent`, `contextual` for `full`")
                          .doc("How eager the recall is to return memory; each style changes the memory "
                               "search (query, hit count, minimum score) and the model's instructions "
                               "(see the memory page).")),
                field("timeoutMs", integer().min(250).max(120000).default_note("`15000`").doc(
                                       "Longest a recall may hold back the reply (search and model call), ms. "
                                       "Past it the reply goes on without a note.")),
                field("cacheTtlMs", integer().min(1000).max(120000).default_note("`15000`").doc(
                                        "How long a recall's result is reused for the same agent, session and "
                                        "query, ms.")),
                field("maxSummaryChars", integer().min(40).max(1000).default_note("`220`").doc(
                                             "Longest note put before the user's message, in characters.")),
                field("recentUserTurns", integer().min(0).max(4).default_note("`2`").doc(
                                             "Earlier user messages included in `recent` mode.")),
                field("recentAssistantTurns", integer().min(0).max(3).default_note("`1`").doc(
                                                  "Earlier replies included in `recent` mode.")),
                field("recentUserChars", integer().min(40).max(1000).default_note("`220`").doc(
                                             "Each of those user messages is cut to this many characters.")),
                field("recentAssistantChars", integer().min(40).max(1000).default_note("`180`").doc(
                                                  "Each of those replies is cut to this many characters.")),
                field("promptOverride", string().doc(
                                            "Replaces the recall model's default instructions (the memory hits "
                                            "and the conversation are still sent).")),
                field("promptAppend", string().doc("Added after the recall model's instructions.")),
                field("logging", boolean().default_note("`false`").doc(
                                     "Log one line per recall (status, elapsed ms, mode, style, note length).")),
            }).doc("Active recall settings.")),
  }).doc("Active recall (`active-memory`): before each reply, a bounded memory search and a short model "
         "call put a hidden note of what memory knows about the user before the message.");
}

}  // namespace pincer::config::schema
