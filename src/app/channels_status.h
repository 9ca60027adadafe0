// `pincer channels status [--probe]` (UI-1): the gateway's channels.status, one line per channel
// account — running or stopped (restart backoff, a failure said once, "not retried until the config
// changes"), who the account is (bot, user id, team, address, IRC nick, webhook path, mailbox) and
// the probe's outcome. --json prints the gateway's payload unchanged.
#pragma once

#include "app/client_support.h"

namespace pincer::app {

/// Exit 0; 1 when a probe failed or the request did; 2 for bad flags (with_gateway's codes).
int run_channels_status(const ClientFlags& f, bool probe);

}  // namespace pincer::app
