#include "channels/reply_delivery.h"

#include <spdlog/spdlog.h>

#include "delivery/markdown_render.h"

namespace pincer::channels {

std::string render_for(delivery::TextFormat format, const std::string& markdown) {
  switch (format) {
    case delivery::TextFormat::TelegramHtml: return delivery::markdown_to_telegram_html(markdown);
    case delivery::TextFormat::Plain: return delivery::markdown_to_plain_text(markdown);
    case delivery::TextFormat::Markdown: return markdown;
  }
  return markdown;
}

Status ReplyDelivery::deliver(Channel& channel, const std::string& id, const std::string& chat_id,
                              const std::string& thread_id, const std::string& markdown, std::size_t text_limit_override) {
  const ChannelCapabilities caps = channel.capabilities();
  delivery::ChunkOptions options;
  options.format = caps.format;
  options.unit = caps.unit;
  options.limit = text_limit_override ? std::min(text_limit_override, caps.text_limit) : caps.text_limit;
  auto chunks = delivery::chunk_text(render_for(caps.format, markdown), options);
  if (!chunks) return Error{"DELIVERY_FAILED", chunks.error().message};
  if (chunks->empty()) return Ok{};
  OutboxEntry entry{id, channel.id(), channel.account_id(), chat_id, thread_id, std::move(*chunks), 0};
  if (auto st = outbox_.queue(entry); !st) return Error{"DELIVERY_FAILED", st.error().message};
  send_next(id, 0);
  return Ok{};
}

void ReplyDelivery::resume() {
  for (const auto& [id, entry] : outbox_.pending()) {
    spdlog::info("outbox: resuming reply {} to {}:{} at chunk {}/{}", id, entry.channel, entry.chat_id, entry.next + 1,
                 entry.chunks.size());
    loop_.post([this, id = id] { send_next(id, 0); });
  }
}

void ReplyDelivery::send_next(const std::string& id, int attempt) {
  auto it = outbox_.pending().find(id);
  if (it == outbox_.pending().end()) return;
  const OutboxEntry& e = it->second;
  if (e.next >= e.chunks.size()) {
    (void)outbox_.mark_done(id);
    return;
  }
  Channel* channel = find_(e.channel, e.account_id);
  if (!channel) {  // not running (yet): try again shortly
    loop_.after(2000, [this, id] { send_next(id, 0); });
    return;
  }
  const std::size_t index = e.next;
  OutboundMessage message{e.chat_id, e.thread_id, e.chunks[index]};
  channel->send_text(message, [this, id, index, attempt](Result<std::string> sent) {
    if (sent) {
      if (auto st = outbox_.mark_sent(id, index); !st) spdlog::warn("outbox: {}", st.error().message);
      return send_next(id, 0);
    }
    const Error& err = sent.error();
    if (err.code == "RATE_LIMITED") {
      const int64_t wait_ms = std::stoll(err.message) * 1000;
      spdlog::warn("delivery {}: rate limited, retrying in {} ms", id, wait_ms);
      loop_.after(wait_ms, [this, id, attempt] { send_next(id, attempt); });
    } else if (err.code == "UNAVAILABLE" && attempt < 5) {
      const int64_t wait_ms = 500LL << attempt;
      spdlog::warn("delivery {}: {} (retry {} in {} ms)", id, err.message, attempt + 1, wait_ms);
      loop_.after(wait_ms, [this, id, attempt] { send_next(id, attempt + 1); });
    } else {
      spdlog::error("delivery {}: chunk {} not delivered: {}", id, index + 1, err.message);
      (void)outbox_.mark_sent(id, index);  // skip it: the rest still arrives, in order
      send_next(id, 0);
    }
  });
}

}  // namespace pincer::channels
