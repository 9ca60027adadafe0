// Turns a run's RunEvents into the protocol's `agent` and `chat` events (GW-5; shapes from
// ../shared/anchors/openclaw-wire-log.md §3): per-run `seq`, cumulative text in deltas, chat deltas
// throttled to one per 150 ms with a catch-up delta before `final`, tool events only to clients
// with the `tool-events` capability.
//
// Loop affinity: the returned sink runs on the event loop.
#pragma once

#include <functional>

#include "agent/run_events.h"

namespace pincer::gateway {

class Gateway;

/// Chat delta throttle (openclaw-protocol.md §2.3: one delta per 150 ms per run).
inline constexpr int64_t kChatDeltaThrottleMs = 150;

/// A sink that broadcasts `run`'s events through `gateway`. `on_terminal` (optional) runs after
/// the terminal event was broadcast.
agent::RunEventSink make_run_event_sink(Gateway& gateway, std::function<void(const agent::RunEvent&)> on_terminal = {});

}  // namespace pincer::gateway
