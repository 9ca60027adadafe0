// Client-side flood control for IRC (issue #5 §5): lines are paced so that a server never
// throttles or disconnects the bot ("Excess Flood").
//
// The model is the server-side algorithm of RFC 1459 §8.10, mirrored on the client: a per-client
// "message timer" that each line advances by `interval_ms` (2 s in the RFC) and that may run at
// most `burst * interval_ms` (10 s in the RFC) ahead of the clock. A client that never lets the
// timer get further ahead is never delayed by such a server: a burst of 5 lines, then one line
// every 2 s. Servers in use today (ngIRCd, ircd-ratbox, solanum) are more lenient than the RFC,
// so these defaults are safe everywhere; a 3000-byte reply (about 10 lines) takes about 10 s.
//
// Pure: the caller passes the time (ms, steady clock). Not thread-safe.
#pragma once

#include <cstdint>

namespace pincer::channels::irc {

struct FloodSettings {
  int burst = 5;               ///< lines sent back to back after a quiet period (RFC 1459 §8.10: 10 s / 2 s)
  int64_t interval_ms = 2000;  ///< then one line per interval (RFC 1459 §8.10: 2 s per message)
};

class FloodControl {
 public:
  explicit FloodControl(FloodSettings settings = {}) : settings_(settings) {}

  /// Sends one line now if allowed: returns 0 and counts it; else returns the ms to wait (> 0)
  /// before asking again, and counts nothing.
  int64_t take(int64_t now_ms);

  /// Forgets the lines sent (a new connection).
  void reset() { timer_ms_ = 0; }

 private:
  FloodSettings settings_;
  int64_t timer_ms_ = 0;  ///< the RFC's message timer (0 = never sent)
};

}  // namespace pincer::channels::irc
