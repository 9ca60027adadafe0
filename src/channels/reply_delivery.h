// Delivering an agent's reply to a channel (SPEC CH-4, CH-5): Markdown → the channel's format
// (delivery/markdown_render.h) → chunks within its limit, measured in its units, cut after
// rendering (delivery/chunker.h) → an outbox record (outbox.h) → one platform message per chunk,
// strictly in order. RATE_LIMITED waits the platform's retry_after; UNAVAILABLE retries with
// backoff (5 tries); REJECTED gives up on that chunk (logged) and continues. resume() finishes
// replies left unfinished by a crash, without repeating sent chunks.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "channels/channel.h"
#include "channels/outbox.h"
#include "core/event_loop.h"

namespace pincer::channels {

class ReplyDelivery {
 public:
  /// `find_channel(channel, account)` returns the running channel or nullptr.
  ReplyDelivery(EventLoop& loop, Outbox& outbox, std::function<Channel*(const std::string&, const std::string&)> find_channel)
      : loop_(loop), outbox_(outbox), find_(std::move(find_channel)) {}

  /// Renders and chunks `markdown` for `channel` and sends it to chat/thread. `id` must be unique
  /// per reply (the run id). Errors: "DELIVERY_FAILED" when the outbox cannot record it.
  Status deliver(Channel& channel, const std::string& id, const std::string& chat_id, const std::string& thread_id,
                 const std::string& markdown, std::size_t text_limit_override = 0);

  /// Continues every unfinished outbox entry (after load()).
  void resume();

 private:
  void send_next(const std::string& id, int attempt);

  EventLoop& loop_;
  Outbox& outbox_;
  std::function<Channel*(const std::string&, const std::string&)> find_;
};

/// Renders Markdown for a channel's format (Telegram HTML, plain, or unchanged Markdown).
std::string render_for(delivery::TextFormat format, const std::string& markdown);

}  // namespace pincer::channels
