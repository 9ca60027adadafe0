// Attachments of inbound Discord messages: each is downloaded from its URL (Discord's CDN; the
// emulator in tests) by fetch_inbound_file (channels/inbound_file_fetch.h: the size Discord reports
// and the download both capped at agent::kMaxAttachmentBytes, the bytes checked) and becomes
// InboundMessage::media, or a line of the message's text when it cannot be had. One file at a time;
// the messages behind wait, so the pipeline sees them in order.
#include "channels/discord/discord_channel.h"
#include "channels/inbound_file_fetch.h"

namespace pincer::channels::discord {

void DiscordChannel::fetch_next_file() {
  if (inbound_.empty() || inbound_.front().files.empty() || !http_) return;
  PendingInbound& p = inbound_.front();
  const DiscordFile file = p.files.front();
  p.files.erase(p.files.begin());
  fetching_ = true;
  const std::string message_id = p.message.message_id;
  fetch_inbound_file(*http_, InboundFile{file.url, file.filename, file.content_type, file.size}, run_.token(),
                     "discord[" + settings_.account_id + "]", [this, message_id](FetchedFile got) {
                       fetching_ = false;
                       if (inbound_.empty() || inbound_.front().message.message_id != message_id) return pump_inbound();
                       add_fetched_file(inbound_.front().message, std::move(got));
                       pump_inbound();
                     });
}

}  // namespace pincer::channels::discord
