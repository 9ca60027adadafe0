// Inbound debounce (OpenClaw's `messages.inbound`): people type in bursts ("hi" / "can you" /
// "check the logs"). Lines from one sender in one conversation that reach an idle session within a
// quiet window become ONE inbound message and one run.
//
// Semantics (OpenClaw 2026.9 `inbound-debounce`):
// - The window of a channel: `messages.inbound.byChannel.<channel id>`, else
//   `messages.inbound.debounceMs`, else the channel's own default
//   (ChannelCapabilities::inbound_debounce_ms: Telegram 300 ms, others 0). 0 = off: nothing is held,
//   no timer, no allocation.
// - Key: channel + account + chat + thread/topic + sender (debounce_key).
// - A held batch flushes when no new line came for the window, or at the latest `max wait` after its
//   first line (ChannelCapabilities::inbound_debounce_max_wait_ms, default 5 × the window, never less
//   than the window). A later line restarts the quiet time within that deadline; a config change
//   applies to new lines (a held batch keeps its deadline).
// - At most kDebounceMaxLines lines and kDebounceMaxBytes bytes of text per batch; a line that does
//   not fit (or routes to another session after a reload) flushes the held batch and starts a new one.
// - Held only (may_hold): text with something besides whitespace, no media, no button press, not a
//   slash command, on a channel whose sender waits for exactly one answer (a sync webhook) never.
//   Anything else from the same key first flushes the held batch (order kept) and then goes on at
//   once; `/stop` drops the held lines of its session instead (InboundPipeline).
// - Only for an idle session: a line for a session whose run is busy goes to `messages.queue` as
//   before — unless its key already holds lines, which it then joins (order kept). A flushed batch
//   enters the pipeline's queue like one message (it runs at once when the session is still idle).
// - The merged message (merge_inbound_lines): texts joined with "\n"; every other field (message
//   id, reply target, time) from the last line; the run-journal entries of all lines.
//
// Crash safety: every line is written to the run journal (agent/run_journal.h, inbound_journal.h)
// BEFORE it is held, exactly as an unheld message — so the channel acknowledges it (Telegram offset,
// webhook 200) only once it is durable. Held lines live in memory only; a gateway that stops (or
// dies) while holding them leaves their journal entries unfinished, and the next start resumes each
// one (InboundPipeline::resume) through this debounce again, so lines of one burst become one run
// again. The merged run answers every entry of its lines (SendRequest::journal_ids), so none is
// answered twice; a redelivered line is a duplicate by its platform id (dedupe + journal key). The
// alternative — one new journal entry for the merged message — needs a second write that a crash
// can separate from marking the lines answered (answered twice, or lost).
//
// Loop affinity: event-loop thread only. Timers come from StreamTimers (the event loop in the
// gateway, a fake in tests); the flush callback runs on the loop, from a timer or synchronously
// inside hold()/flush().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/channel.h"
#include "channels/reply_stream.h"
#include "core/clock.h"

namespace pincer::channels {

/// Most lines one merged message gathers (OpenClaw's Telegram batch bound).
inline constexpr std::size_t kDebounceMaxLines = 12;
/// Most bytes of text one merged message gathers.
inline constexpr std::size_t kDebounceMaxBytes = 50'000;
/// Without a channel's own bound, a batch waits at most this many windows after its first line.
inline constexpr int64_t kDebounceMaxWaitWindows = 5;

/// `messages.inbound` of a validated config.
struct InboundDebounceSettings {
  std::optional<int64_t> debounce_ms;          ///< messages.inbound.debounceMs (ms), unset = none
  std::map<std::string, int64_t> by_channel;   ///< messages.inbound.byChannel: channel id → ms

  /// Reads `messages.inbound` of the effective config (missing or ill-typed values = unset).
  static InboundDebounceSettings from_config(const nlohmann::json& effective_config);
  /// The quiet window of `channel`, ms: byChannel, else debounceMs, else `channel_default`.
  int64_t window_ms(const std::string& channel, int64_t channel_default) const;
};

/// Whether `m` may wait for more lines (see the header: text only, not a command).
bool may_hold(const InboundMessage& m);

/// The batch a line joins: channel, account, chat, thread, topic and sender ("\x1f"-separated).
std::string debounce_key(const InboundMessage& m);

/// One message from `lines` (oldest first, at least one): texts joined with "\n", every other field
/// from the last line, `resumed` when any line was; the journal entries of the earlier lines (and
/// theirs) go to `merged_journal_ids`, oldest first. One line comes back unchanged.
InboundMessage merge_inbound_lines(std::vector<InboundMessage> lines);

/// Every run-journal entry `m` answers: its own and those of the lines merged into it (no empty ids).
std::vector<std::string> journal_ids_of(const InboundMessage& m);

/// The held batches (see the header).
class InboundDebounce {
 public:
  /// A batch leaving the debounce: where it routes and its lines, oldest first.
  struct Batch {
    std::string session_key;
    std::string agent_id;
    std::vector<InboundMessage> lines;
  };
  using Flush = std::function<void(Batch)>;

  InboundDebounce(std::shared_ptr<StreamTimers> timers, const Clock& clock, Flush flush);
  /// Cancels the timers; held lines are not flushed (their journal entries stay unfinished).
  ~InboundDebounce();
  InboundDebounce(const InboundDebounce&) = delete;
  InboundDebounce& operator=(const InboundDebounce&) = delete;

  /// Whether `key` holds lines.
  bool holding(const std::string& key) const { return batches_.count(key) > 0; }
  /// Lines held in all batches (0 = the debounce costs nothing).
  std::size_t held() const { return held_; }

  /// Holds `m` under `key` (debounce_key(m)) for `session_key`. `window_ms` > 0 (the channel's
  /// quiet window); `max_wait_ms`: the channel's bound from the first line (0 = kDebounceMaxWaitWindows
  /// × window). A line that does not fit the held batch flushes it first.
  void hold(const std::string& key, const std::string& session_key, const std::string& agent_id, InboundMessage m,
            int64_t window_ms, int64_t max_wait_ms);
  /// Flushes `key`'s batch now (nothing when it holds none).
  void flush(const std::string& key);
  /// Takes every batch held for `session_key` without flushing it: their lines, batch by batch.
  std::vector<InboundMessage> take_session(const std::string& session_key);

 private:
  struct Held {
    Batch batch;
    std::size_t bytes = 0;
    int64_t deadline_ms = 0;  ///< steady ms: the latest flush
    std::optional<StreamTimers::Id> timer;  ///< the pending flush
  };
  void schedule(const std::string& key, Held& h, int64_t window_ms);

  std::shared_ptr<StreamTimers> timers_;
  const Clock& clock_;
  Flush flush_;
  std::map<std::string, Held> batches_;
  std::size_t held_ = 0;
};

}  // namespace pincer::channels
