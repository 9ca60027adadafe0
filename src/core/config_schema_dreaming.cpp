#include "core/config_schema_dreaming.h"

namespace pincer::config::schema {

// The defaults are DreamingSettings' (memory/dreaming/dreaming_settings.h), documented with
// default_note: nothing is filled into a config that does not use dreaming.
Node memory_core_entry() {
  return object({
      field("config",
            object({
                field("dreaming",
                      object({
                          field("enabled", boolean().default_note("`false`").doc(
                                               "Turn dreaming on: memory_search hits of interactive sessions are "
                                               "tracked in `memory/.dreams/`, and a managed cron job runs the "
                                               "Light → REM → Deep sweep that promotes recurring facts into "
                                               "MEMORY.md.")),
                          field("frequency", string().format("text-line").default_note("`0 3 * * *`").doc(
                                                 "Cron expression of the sweep (the managed cron job's schedule).")),
                          field("timezone", string().format("text-line").default_note(
                                                "`agents.defaults.userTimezone`, else the host's zone").doc(
                                                "IANA zone of the schedule and of the recall days.")),
                          field("timeoutSeconds", number().min(1).max(86400).default_note("`120`").doc(
                                                      "Longest one sweep may work, in seconds; what is left waits for "
                                                      "the next sweep.")),
                          field("nonDurable", boolean().default_note("`false`").doc(
                                                  "Sweeps write their reports and the diary but never MEMORY.md "
                                                  "(a dry run of promotion).")),
                          field("phases",
                                object({
                                    field("deep",
                                          object({
                                              field("limit", integer().min(0).max(1000).default_note("`10`").doc(
                                                                 "Most entries promoted by one sweep.")),
                                              field("minScore", number().min(0).max(1).default_note("`0.75`").doc(
                                                                    "Lowest deep score promoted.")),
                                              field("minRecallCount", integer().min(0).max(100000).default_note("`3`").doc(
                                                                          "Fewest recalls of an entry promoted.")),
                                              field("minUniqueQueries", integer().min(0).max(1000).default_note("`2`").doc(
                                                                            "Fewest distinct queries that recalled an "
                                                                            "entry promoted.")),
                                              field("recencyHalfLifeDays", number().min(0.1).max(3650).default_note("`14`").doc(
                                                                               "Half-life of the recency signal, days.")),
                                              field("maxPromotedSnippetTokens",
                                                    integer().min(8).max(4000).default_note("`160`").doc(
                                                        "Longest snippet written to MEMORY.md, in tokens (4 bytes "
                                                        "each).")),
                                          }).doc("The Deep phase: promotion gates and limits.")),
                                }).doc("Phase settings.")),
                      }).doc("Dreaming (memory consolidation, docs/memory.md \"Dreaming\"); off by default.")),
            }).doc("The memory plugin's settings.")),
  }).doc("Pincer's built-in memory, in OpenClaw's `memory-core` plugin layout.");
}

}  // namespace pincer::config::schema
