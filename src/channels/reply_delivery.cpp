#include "channels/reply_delivery.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "delivery/markdown_render.h"
#include "delivery/slack_mrkdwn.h"

namespace pincer::channels {

std::string render_for(delivery::TextFormat format, const std::string& markdown) {
  switch (format) {
    case delivery::TextFormat::TelegramHtml: return delivery::markdown_to_telegram_html(markdown);
    case delivery::TextFormat::Plain: return delivery::markdown_to_plain_text(markdown);
    case delivery::TextFormat::Markdown: return markdown;
    case delivery::TextFormat::SlackMrkdwn: return delivery::markdown_to_slack_mrkdwn(markdown);
  }
  return markdown;
}

Status ReplyDelivery::deliver(Channel& channel, const std::string& id, const std::string& chat_id,
                              const std::string& thread_id, const std::string& markdown, std::size_t text_limit_override) {
  DeliverOptions options;
  options.text_limit_override = text_limit_override;
  return deliver(channel, id, chat_id, thread_id, markdown, std::move(options));
}

Status ReplyDelivery::deliver(Channel& channel, const std::string& id, const std::string& chat_id,
                              const std::string& thread_id, const std::string& markdown, DeliverOptions opts) {
  const ChannelCapabilities caps = channel.capabilities();
  delivery::ChunkOptions options;
  options.format = caps.format;
  options.unit = caps.unit;
  options.mode = opts.chunk_mode;
  options.limit = opts.text_limit_override ? std::min(opts.text_limit_override, caps.text_limit) : caps.text_limit;
  PreparedReplyMedia prepared{markdown, {}};
  if (opts.media_roots) prepared = prepare_reply_media(markdown, *opts.media_roots, channel);
  auto chunks = delivery::chunk_text(render_for(caps.format, prepared.markdown), options);
  if (!chunks) return Error{"DELIVERY_FAILED", chunks.error().message};
  if (chunks->empty() && prepared.media.empty()) {
    if (opts.on_done) opts.on_done();
    return Ok{};
  }
  const bool already_shown = !opts.edit_message_id.empty() && !chunks->empty() && (*chunks)[0] == opts.edit_shown_text;
  std::string edit_id = chunks->empty() ? std::string() : opts.edit_message_id;  // files alone edit nothing
  OutboxEntry entry{id, channel.id(), channel.account_id(), chat_id, thread_id, std::move(*chunks), 0,
                    std::move(edit_id), std::move(prepared.media), opts.reply_to};
  if (auto st = outbox_.queue(entry); !st) return Error{"DELIVERY_FAILED", st.error().message};
  if (opts.on_done) on_done_[id] = std::move(opts.on_done);
  if (already_shown) (void)outbox_.mark_sent(id, 0);  // the preview shows it already: no edit
  send_next(id, 0);
  return Ok{};
}

void ReplyDelivery::finished(const std::string& id) {
  (void)outbox_.mark_done(id);
  edit_refused_.erase(id);
  parks_.erase(id);
  if (auto it = on_done_.find(id); it != on_done_.end()) {
    auto fn = std::move(it->second);
    on_done_.erase(it);
    fn();
  }
}

void ReplyDelivery::resume() {
  for (const auto& [id, entry] : outbox_.pending()) {
    spdlog::info("outbox: resuming reply {} to {}:{} at chunk {}/{}", id, entry.channel, entry.chat_id, entry.next + 1,
                 entry.chunks.size() + entry.media.size());
    loop_.post([this, id = id] { send_next(id, 0); });
  }
}

void ReplyDelivery::channel_stopped(const std::string& channel, const std::string& account) {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    auto entry = outbox_.pending().find(*it);
    if (entry == outbox_.pending().end() || entry->second.channel != channel || entry->second.account_id != account) {
      ++it;
      continue;
    }
    spdlog::info("outbox: {}[{}] stopped with reply {} in flight; it continues when the account runs again", channel,
                 account, *it);
    loop_.post([this, id = *it] { send_next(id, 0); });
    it = in_flight_.erase(it);
  }
}

void ReplyDelivery::channel_held(const std::string& channel, const std::string& account) {
  held_.insert({channel, account});
}

void ReplyDelivery::channel_started(const std::string& channel, const std::string& account) {
  held_.erase({channel, account});
  for (auto it = parked_.begin(); it != parked_.end();) {
    auto entry = outbox_.pending().find(*it);
    if (entry != outbox_.pending().end() && (entry->second.channel != channel || entry->second.account_id != account)) {
      ++it;
      continue;
    }
    if (entry != outbox_.pending().end()) loop_.post([this, id = *it] { send_next(id, 0); });
    parks_.erase(*it);  // a (re)started account: a new failure starts the waits anew
    it = parked_.erase(it);
  }
}

void ReplyDelivery::send_next(const std::string& id, int attempt) {
  auto it = outbox_.pending().find(id);
  if (it == outbox_.pending().end()) return;
  const OutboxEntry& e = it->second;
  if (e.next >= e.chunks.size() + e.media.size()) return finished(id);
  if (held(e.channel, e.account_id)) {  // stopped until a config reload: waits, channel_started() sends it
    if (parked_.insert(id).second) {
      spdlog::warn("delivery {}: {}[{}] is stopped until the config changes; the reply waits in the outbox", id,
                   e.channel, e.account_id);
    }
    return;
  }
  Channel* channel = find_(e.channel, e.account_id);
  if (!channel) {  // not running (yet): try again shortly
    loop_.after(2000, [this, id] { send_next(id, 0); });
    return;
  }
  const std::size_t index = e.next;
  in_flight_.insert(id);
  auto on_result = [this, id, index, attempt](Status sent) {
    in_flight_.erase(id);
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
      const int64_t wait_ms = retry_base_ms_ << attempt;
      spdlog::warn("delivery {}: {} (retry {} in {} ms)", id, err.message, attempt + 1, wait_ms);
      loop_.after(wait_ms, [this, id, attempt] { send_next(id, attempt + 1); });
    } else if (err.code == "UNAVAILABLE") {
      // The account is down (a refused token, a server that does not answer): the reply is kept —
      // in the outbox, so a restart keeps it too — and sent when the account starts again.
      // A lasting failure (a wrong SMTP password …) is tried once per wake-up, the wait doubling up
      // to 32 × parked_ms: a config fix restarts the account, and channel_started() sends at once.
      const int parks = parks_[id]++;
      const int64_t wait_ms = parked_retry_ms_ << std::min(parks, 5);
      spdlog::warn("delivery {}: {}; kept until the account runs again (next try in {} s)", id, err.message, wait_ms / 1000);
      parked_.insert(id);
      loop_.after(wait_ms, [this, id] {
        if (parked_.erase(id) > 0) send_next(id, kParkedAttempt);
      });
    } else if (index == 0 && !edit_refused_.count(id) && outbox_.pending().count(id) &&
               !outbox_.pending().at(id).edit_message_id.empty()) {
      // The preview cannot be edited (deleted, too old): the reply still arrives, as a new message.
      spdlog::warn("delivery {}: preview not editable ({}); sending the reply as a new message", id, err.message);
      edit_refused_[id] = true;
      send_next(id, 0);
    } else {
      spdlog::error("delivery {}: chunk {} not delivered: {}", id, index + 1, err.message);
      (void)outbox_.mark_sent(id, index);  // skip it: the rest still arrives, in order
      send_next(id, 0);
    }
  };
  if (index >= e.chunks.size()) {  // a file of the reply, after its text
    send_reply_media(*channel, e.chat_id, e.thread_id, e.reply_to, e.media[index - e.chunks.size()], std::move(on_result));
  } else if (index == 0 && !e.edit_message_id.empty() && !edit_refused_.count(id)) {
    channel->edit_text(e.chat_id, e.edit_message_id, e.chunks[0], std::move(on_result));
  } else {
    channel->send_text({e.chat_id, e.thread_id, e.chunks[index], {}, e.reply_to}, [on_result = std::move(on_result)](Result<std::string> sent) {
      on_result(sent ? Status(Ok{}) : Status(sent.error()));
    });
  }
}

}  // namespace pincer::channels
