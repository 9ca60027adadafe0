// Streaming one run's reply to one chat (SPEC CH-4): the run's events (agent/run_events.h) →
// platform messages, in one of three modes, as OpenClaw's `channels.<id>.streaming`:
//
//   off      the whole reply when the run ends, chunked (ReplyDelivery). An error is answered
//            "⚠️ <error>" — channel_error_text(): a short generic line, never the provider's
//            detail (operators read that in the log and in `chat` events); an aborted run sends
//            nothing.
//   partial  a live preview (OpenClaw's Telegram "draft" stream, src/telegram/draft-stream.ts):
//            once the current model step's text holds kPreviewMinInitialChars, one message is
//            sent, then edited in place as text arrives, at most once per kPreviewThrottleMs.
//            Previews are rendered to the channel's format and cut to its limit (the first chunk
//            of the text so far). When the run ends the final reply replaces the preview: its
//            first chunk is an edit of the preview message (none when the preview already shows
//            it), the others follow as new messages, all through ReplyDelivery's outbox, so a
//            retry or a restart never repeats one. A later model step (after a tool call) reuses
//            the same preview: it shows the newest step's text once that has the minimum length.
//            An error ends the preview with the text so far and "⚠️ <error>"; an abort (/stop,
//            timeout, a newer message under `interrupt`) with the text so far and "⏹ Stopped.".
//            Needs ChannelCapabilities::edit, else the mode is `off`.
//   block    block streaming (delivery/block_streamer.h): the text is cut into blocks as it comes
//            (min/max chars from `agents.defaults.blockStreamingChunk`, coalesced per
//            `blockStreamingCoalesce`), each block one reply through ReplyDelivery, strictly in
//            order (a block is handed over only when the previous one is delivered), everything
//            flushed at each tool call and at the end; `agents.defaults.humanDelay` waits a random
//            time between blocks (not before the first). An error sends "⚠️ <error>" after the
//            blocks already cut (the uncut rest is dropped); an abort drops the rest and, when
//            blocks were sent, says "⏹ Stopped.".
//
// Previews are sent and edited directly (not recorded in the outbox: a preview lost to a crash is
// superseded by nothing; the final reply is). Every channel call is serialised: one preview call
// in flight at a time, and the final delivery starts only after it.
//
// Loop affinity: event-loop thread only. Time comes from the Clock, timers from StreamTimers (the
// event loop in the gateway, a fake driven by a ManualClock in tests). A ReplyStream keeps itself
// alive (shared_from_this) while a channel call or timer of it is pending.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/run_events.h"
#include "channels/channel.h"
#include "channels/reply_delivery.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "delivery/block_streamer.h"

namespace pincer::channels {

/// OpenClaw src/telegram/draft-stream.ts DEFAULT_THROTTLE_MS: at most one preview edit a second.
inline constexpr int64_t kPreviewThrottleMs = 1000;
/// OpenClaw src/telegram/bot-message-dispatch.ts DRAFT_MIN_INITIAL_CHARS (30 in the releases this
/// gateway follows; newer ones use 12, and 1 in DMs): no preview message for tiny prefixes.
inline constexpr std::size_t kPreviewMinInitialChars = 30;
/// OpenClaw src/auto-reply/reply/reply-dispatcher.ts DEFAULT_HUMAN_DELAY_MIN_MS / _MAX_MS: the
/// `natural` human delay, ms.
inline constexpr int64_t kHumanDelayMinMs = 800;
inline constexpr int64_t kHumanDelayMaxMs = 2500;

enum class StreamMode { Off, Partial, Block };

/// "off" | "partial" | "block" (and "progress", which streams nothing yet: Off); nullopt otherwise.
std::optional<StreamMode> parse_stream_mode(const std::string& name);
const char* to_string(StreamMode mode);

/// What a chat user is told when a run fails: "⚠️ " and a short line chosen by the event's
/// error_reason (e.g. "the model provider refused the gateway's credentials"), pointing at the
/// gateway log. Never the error's own text: a provider may echo a key or internal detail in it,
/// and chat senders need not be the owner (issue 22, item 6). The one exception is
/// "message_too_large" (context/message_fit.h): that text is the gateway's own (the message's
/// estimate, the model and its window, no provider text) and tells the sender what to change.
std::string channel_error_text(const agent::RunEvent& e);
/// The notice a chat gets when another model takes over a run (a Failover event between models,
/// PV-5): "ℹ️ openai/gpt-4.1 is rate-limited; answering with anthropic/claude-sonnet-4." — no
/// provider text, no profile ids.
std::string failover_notice_text(const agent::RunEvent& e);

struct ReplyStreamSettings {
  StreamMode mode = StreamMode::Off;
  /// `textChunkLimit` when below the channel's own limit (in its units), else 0: every message —
  /// previews, blocks, the final chunks — stays within it.
  std::size_t text_limit = 0;
  /// `chunkMode`: Newline = every delivered message (final reply, block, note) is split at each
  /// paragraph break outside code, one message per paragraph; previews are not (they show the
  /// text so far, and the final reply's first paragraph replaces the preview).
  delivery::ChunkMode chunk_mode = delivery::ChunkMode::Length;
  int64_t preview_throttle_ms = kPreviewThrottleMs;       ///< partial: min ms between preview calls
  std::size_t preview_min_chars = kPreviewMinInitialChars;  ///< partial: in the channel's units
  delivery::BlockStreamerOptions block;                   ///< block: cutting and coalescing
  /// block: wait a random time in [human_delay_min_ms, human_delay_max_ms] between blocks;
  /// both 0 = no delay (humanDelay mode "off"). max <= min waits min (as OpenClaw).
  int64_t human_delay_min_ms = 0;
  int64_t human_delay_max_ms = 0;
};

/// The settings for a reply on `channel`/`account` from the effective config (validated by the
/// schema; missing keys = defaults):
///   mode: `channels.<channel>[.accounts.<account>].streaming` ("off"|"partial"|"block"|"progress",
///         or a legacy boolean: true = partial), else the legacy alias `streamMode`, else
///         "partial" when the channel can edit and "off" when not. `blockStreaming: true` (or,
///         without it, `agents.defaults.blockStreamingDefault: "on"`) selects "block" whatever
///         `streaming` says (OpenClaw skips the preview when block streaming is on). "partial"
///         without caps.edit is "off"; a channel with caps.single_reply (a webhook in `sync`
///         mode: its caller gets one HTTP response) is always "off".
///   block: `agents.defaults.blockStreamingChunk {minChars, maxChars, breakPreference}`,
///          `blockStreamingCoalesce {minChars, maxChars, idleMs}` (the channel's own
///          `blockStreamingCoalesce` wins), maxChars clamped to the channel's text limit (and
///          `textChunkLimit`), `chunkMode: "newline"` flushes every paragraph.
///   chunk_mode: `chunkMode: "newline"` (account, else channel) = ChunkMode::Newline, except on
///          a caps.single_reply channel (one answer: the reply stays one message).
///   human delay: `agents.defaults.humanDelay {mode: off|natural|custom, minMs, maxMs}`.
ReplyStreamSettings stream_settings_from_json(const nlohmann::json& config, const std::string& channel,
                                              const std::string& account, const ChannelCapabilities& caps);

/// Timers for a ReplyStream. after() runs `fn` once, `delay_ms` from now (0 = soon, never
/// synchronously inside after()); cancel() of a timer that ran or is unknown does nothing.
class StreamTimers {
 public:
  using Id = uint64_t;
  virtual ~StreamTimers() = default;
  virtual Id after(int64_t delay_ms, std::function<void()> fn) = 0;
  virtual void cancel(Id id) = 0;
};

/// StreamTimers on the gateway's event loop.
class LoopStreamTimers final : public StreamTimers {
 public:
  explicit LoopStreamTimers(EventLoop& loop) : loop_(loop) {}
  Id after(int64_t delay_ms, std::function<void()> fn) override { return loop_.after(delay_ms, std::move(fn)); }
  void cancel(Id id) override { loop_.cancel(id); }

 private:
  EventLoop& loop_;
};

/// Where a reply goes.
struct ReplyTarget {
  std::string channel, account_id;  ///< looked up through ReplyDelivery::find() at each call
  std::string chat_id, thread_id;
  std::string reply_id;  ///< unique per run (the run id); outbox ids derive from it
  /// partial: a preview message an earlier run of the same message left in the chat (a restart
  /// cut it off, agent/run_journal.h): this reply edits it instead of sending a second one.
  std::string preview_id = {};
  /// partial: called with the id of a new preview message once it is sent (the pipeline notes it
  /// in the run journal).
  std::function<void(const std::string&)> on_preview = {};
  /// Set: the reply's `MEDIA:` lines send files from these roots (reply_media.h) after its text
  /// (the final reply, each block); previews show the text as it streams.
  std::optional<MediaRoots> media_roots = {};
  /// The inbound message the run answers (OutboundMessage::reply_to: a Discord or Slack slash
  /// command's replies go to the command); "" = none.
  std::string reply_to = {};
};

class ReplyStream : public std::enable_shared_from_this<ReplyStream> {
 public:
  /// `random(lo, hi)` returns a uniform integer in [lo, hi] (tests pass a fixed one; default:
  /// libsodium). `delivery`, `clock` and the channel must outlive the stream's pending work.
  static std::shared_ptr<ReplyStream> create(ReplyDelivery& delivery, const Clock& clock,
                                             std::shared_ptr<StreamTimers> timers, ReplyTarget target,
                                             ReplyStreamSettings settings,
                                             std::function<int64_t(int64_t, int64_t)> random = {});

  /// Feeds one run event, in order. `superseded`: the pipeline drops this run's reply (a newer
  /// message interrupted it): no more previews or blocks, and End/Error count as an abort.
  /// Events after End/Error/Aborted are ignored.
  void on_event(const agent::RunEvent& event, bool superseded = false);

  /// The mode in use (after fallbacks).
  StreamMode mode() const { return settings_.mode; }
  /// True once the run ended and everything it asked for was handed to the channel and finished.
  bool idle() const;
  /// The preview message's id ("" before it exists); partial mode.
  const std::string& preview_message_id() const { return preview_id_; }

 private:
  ReplyStream(ReplyDelivery& delivery, const Clock& clock, std::shared_ptr<StreamTimers> timers, ReplyTarget target,
              ReplyStreamSettings settings, std::function<int64_t(int64_t, int64_t)> random);

  Channel* channel() const;
  void deliver_whole(const std::string& markdown, const std::string& id_suffix);

  // partial
  void update_preview();
  void arm_preview_timer(int64_t delay_ms);
  void finish_preview(std::string body, const std::string& note);
  void run_final();

  // block
  void append_block_text(const agent::RunEvent& e);
  void arm_idle_timer();
  void pump_blocks();
  void end_blocks(const std::string& note);

  ReplyDelivery& delivery_;
  const Clock& clock_;
  std::shared_ptr<StreamTimers> timers_;
  ReplyTarget target_;
  ReplyStreamSettings settings_;
  std::function<int64_t(int64_t, int64_t)> random_;
  bool ended_ = false;  ///< a terminal event arrived
  int failovers_ = 0;   ///< Failover notices sent (their delivery ids)

  // partial
  std::string text_;        ///< Markdown of the current model step so far
  std::string preview_id_;  ///< "" until the first preview message is sent
  std::string shown_;       ///< rendered text the preview message shows
  bool preview_busy_ = false;    ///< a send/edit is in flight
  bool preview_failed_ = false;  ///< stop previewing (send failed, or the platform refused)
  int64_t next_preview_ms_ = 0;  ///< steady ms before which no edit starts
  std::optional<StreamTimers::Id> preview_timer_;
  std::optional<std::string> final_;  ///< the final Markdown, waiting for the preview call
  bool final_started_ = false, final_done_ = false;
  bool stopped_only_ = false;  ///< the final is the abort note: sent only over a preview

  // block
  std::unique_ptr<delivery::BlockStreamer> streamer_;
  std::string step_text_;  ///< text of the current step already given to the streamer
  std::deque<std::string> blocks_;
  int blocks_handed_ = 0;  ///< blocks handed to ReplyDelivery (ids "<reply>-b<n>")
  bool block_busy_ = false, delay_done_ = false;
  std::optional<StreamTimers::Id> idle_timer_, delay_timer_;
};

}  // namespace pincer::channels
