#include "core/config_schema_messages_inbound.h"

namespace pincer::config::schema {

Node messages_inbound_section() {
  // Upper bound: 10 min, far above any quiet window worth waiting (OpenClaw sets none).
  return object({
             field("debounceMs", integer().min(0).max(600'000).default_note(
                                     "the channel's own: 300 for Telegram, 0 (off) for the others")
                                     .doc("Quiet window in ms: lines one sender writes in one conversation "
                                          "to an idle session within it become one message and one run "
                                          "(joined with newlines). 0 = off. Slash commands, media and "
                                          "messages to a busy session are never held.")),
             field("byChannel", map_of(integer().min(0).max(600'000).doc("Quiet window for this channel, ms."))
                                    .doc("`debounceMs` per channel id (`telegram`, `discord`, `irc`, "
                                         "`webhook`, …): wins over `debounceMs`.")),
         })
      .doc("Merging a burst of short messages into one turn (inbound debounce).");
}

}  // namespace pincer::config::schema
