// Turns a run's RunEvents into the protocol's `agent` and `chat` events (GW-5; shapes from
// ../shared/anchors/openclaw-wire-log.md §3): per-run `seq`, cumulative text in deltas, chat deltas
// paced to one per kLiveTextPacingMs with a catch-up delta before `final`, `agent` assistant
// events paced the same way (the deltas that arrive within the window are merged into one event:
// their `delta`s joined, the latest `text`; sent when the window ends or before any other event of
// the run), tool events only to clients with the `tool-events` capability.
//
// Loop affinity: the returned sink runs on the event loop.
#pragma once

#include <functional>

#include "agent/run_events.h"

namespace pincer::gateway {

class Gateway;

/// Live text pacing of a run's chat deltas and agent assistant events (ms): OpenClaw 2026.9's
/// LIVE_TEXT_PACING_MS (server-chat.ts; it was 150 ms for chat deltas before).
inline constexpr int64_t kLiveTextPacingMs = 75;

/// A sink that broadcasts `run`'s events through `gateway`. `on_terminal` (optional) runs after
/// the terminal event was broadcast.
agent::RunEventSink make_run_event_sink(Gateway& gateway, std::function<void(const agent::RunEvent&)> on_terminal = {});

}  // namespace pincer::gateway
