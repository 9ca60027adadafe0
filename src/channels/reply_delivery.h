// Delivering an agent's reply to a channel (SPEC CH-4, CH-5): Markdown → the channel's format
// (delivery/markdown_render.h) → chunks within its limit, measured in its units, cut after
// rendering (delivery/chunker.h) → an outbox record (outbox.h) → one platform message per chunk,
// strictly in order. RATE_LIMITED waits the platform's retry_after; UNAVAILABLE retries with
// backoff (5 tries); REJECTED gives up on that chunk (logged) and continues. resume() finishes
// replies left unfinished by a crash, without repeating sent chunks.
//
// A streamed reply (reply_stream.h) may name a message to edit: chunk 0 then replaces the text of
// that message (the live preview) through Channel::edit_text() — skipped when the preview already
// shows exactly that text — and the other chunks follow as new messages. The edit is recorded in
// the outbox like a send, so a retry or a restart never repeats it or a chunk; an edit the platform
// refuses (REJECTED: the message is gone or too old) is sent as a new message instead.
//
// Files (DeliverOptions::media_roots, reply_media.h) follow the chunks as further outbox items,
// sent by send_reply_media() with the same retries, parking and restart rules as a chunk.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "channels/channel.h"
#include "channels/outbox.h"
#include "channels/reply_media.h"
#include "core/event_loop.h"

namespace pincer::channels {

/// Optional parts of a delivery.
struct DeliverOptions {
  std::size_t text_limit_override = 0;  ///< > 0: a smaller per-message limit than the channel's
  /// `channels.<id>.chunkMode`: Newline also starts a new message at every paragraph break
  /// outside code (one message per paragraph), Length splits only over the limit.
  delivery::ChunkMode chunk_mode = delivery::ChunkMode::Length;
  /// Non-empty: chunk 0 edits this message (an id the channel's send_text() returned).
  std::string edit_message_id;
  /// With edit_message_id: the rendered text that message shows now; a chunk 0 equal to it is not
  /// edited again.
  std::string edit_shown_text;
  /// Set for an agent's reply: its `MEDIA:` lines are files sent after the text, taken from these
  /// roots only (reply_media.h); unset, the text is sent as written.
  std::optional<MediaRoots> media_roots = {};
  /// The inbound message this reply answers (OutboundMessage::reply_to); "" = none (an announce).
  std::string reply_to = {};
  /// Called once on the loop when every chunk is delivered or given up (also when there was
  /// nothing to send, then synchronously). Not persisted: a resumed reply has none.
  std::function<void()> on_done;
};

class ReplyDelivery {
 public:
  /// `find_channel(channel, account)` returns the running channel or nullptr.
  ReplyDelivery(EventLoop& loop, Outbox& outbox, std::function<Channel*(const std::string&, const std::string&)> find_channel)
      : loop_(loop), outbox_(outbox), find_(std::move(find_channel)) {}

  /// Renders and chunks `markdown` for `channel` and sends it to chat/thread. `id` must be unique
  /// per reply (the run id). Errors: "DELIVERY_FAILED" when the outbox cannot record it.
  Status deliver(Channel& channel, const std::string& id, const std::string& chat_id, const std::string& thread_id,
                 const std::string& markdown, std::size_t text_limit_override = 0);
  /// The same with options (edit a preview, completion callback). On an error `on_done` is not
  /// called.
  Status deliver(Channel& channel, const std::string& id, const std::string& chat_id, const std::string& thread_id,
                 const std::string& markdown, DeliverOptions options);

  /// The running channel `channel`/`account`, or nullptr (the lookup given to the constructor).
  Channel* find(const std::string& channel, const std::string& account) const { return find_(channel, account); }

  /// Continues every unfinished outbox entry (after load()).
  void resume();
  /// `channel`/`account` was stopped (a restart after a failure, a config reload): a send it had
  /// in flight will never answer (Channel::stop), so those replies continue from that chunk once
  /// the account runs again. At-least-once for that one chunk, as after a crash.
  void channel_stopped(const std::string& channel, const std::string& account);
  /// `channel`/`account` is (re)starting: replies parked because it was unavailable try again
  /// (also the ones channel_held() keeps).
  void channel_started(const std::string& channel, const std::string& account);
  /// `channel`/`account` stays stopped until the config is reloaded (a permanent failure: the
  /// platform refused its token): its replies — also new ones — wait in the outbox without
  /// retrying until channel_started() for it.
  void channel_held(const std::string& channel, const std::string& account);
  /// Whether channel_held() holds `channel`/`account` now.
  bool held(const std::string& channel, const std::string& account) const { return held_.count({channel, account}) > 0; }

  /// How long UNAVAILABLE sends wait: `base_ms` doubled on each of 5 retries, then the reply is
  /// parked — never dropped — until the account (re)starts or its park ends, whichever is first:
  /// `parked_ms`, doubled at each further park up to 32 × `parked_ms`, one try per park. Defaults
  /// 500 ms and 60 s (so a lasting failure is tried after 1, 2, 4 … 32 min); tests shorten them.
  void set_retry_timing(int64_t base_ms, int64_t parked_ms) {
    retry_base_ms_ = base_ms;
    parked_retry_ms_ = parked_ms;
  }

 private:
  void send_next(const std::string& id, int attempt);
  void finished(const std::string& id);

  EventLoop& loop_;
  Outbox& outbox_;
  std::function<Channel*(const std::string&, const std::string&)> find_;
  std::map<std::string, std::function<void()>> on_done_;   ///< by reply id
  std::map<std::string, bool> edit_refused_;               ///< by reply id: send chunk 0 instead
  std::set<std::string> in_flight_;  ///< reply ids with a channel call outstanding
  std::set<std::string> parked_;     ///< reply ids waiting for their account to be available
  std::map<std::string, int> parks_;  ///< by reply id: how often it was parked (its next park is longer)
  static constexpr int kParkedAttempt = 5;  ///< a parked reply's wake-up: one try, then parked again
  std::set<std::pair<std::string, std::string>> held_;  ///< (channel, account) stopped until a config reload
  int64_t retry_base_ms_ = 500;
  int64_t parked_retry_ms_ = 60'000;
};

/// Renders Markdown for a channel's format (Telegram HTML, plain, or unchanged Markdown).
std::string render_for(delivery::TextFormat format, const std::string& markdown);

}  // namespace pincer::channels
