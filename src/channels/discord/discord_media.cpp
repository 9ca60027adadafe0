// Attachments of inbound Discord messages: each is downloaded from its URL (Discord's CDN; the
// emulator in tests) after its reported `size` was checked against agent::kMaxAttachmentBytes (the
// download is cut at the same cap), checked by agent::check_attachments (an image must be one by
// its bytes: kind "image" for image/* content types, else "file"), and becomes
// InboundMessage::media. A file that is too large or cannot be fetched becomes a line of the
// message's text instead, so the model and the user still know it was there. One file at a time;
// the messages behind wait, so the pipeline sees them in order.
#include <spdlog/spdlog.h>

#include "channels/discord/discord_channel.h"

namespace pincer::channels::discord {

namespace detail_discord_media {

void add_notice(InboundMessage& m, const std::string& notice) { m.text += (m.text.empty() ? "" : "\n") + notice; }

std::string file_label(const DiscordFile& f) {
  return (f.filename.empty() ? std::string("a file") : f.filename) + (f.content_type.empty() ? "" : ", " + f.content_type);
}

}  // namespace detail_discord_media

using namespace detail_discord_media;

void DiscordChannel::fetch_next_file() {
  if (inbound_.empty() || inbound_.front().files.empty() || !http_) return;
  PendingInbound& p = inbound_.front();
  const DiscordFile file = p.files.front();
  p.files.erase(p.files.begin());
  const int64_t cap = static_cast<int64_t>(agent::kMaxAttachmentBytes);
  if (file.size > cap) {
    add_notice(p.message, "[file omitted: " + file_label(file) + ", " + std::to_string(file.size) +
                              " bytes — over the limit of " + std::to_string(cap) + " bytes]");
    return pump_inbound();
  }
  if (file.url.rfind("https://", 0) != 0 && file.url.rfind("http://", 0) != 0) {
    add_notice(p.message, "[attachment could not be downloaded: " + file_label(file) + "]");
    return pump_inbound();
  }
  fetching_ = true;
  net::HttpRequestSpec spec;
  spec.method = "GET";
  spec.url = file.url;
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = 60'000;
  auto status = std::make_shared<int>(0);
  auto bytes = std::make_shared<std::string>();
  auto too_large = std::make_shared<bool>(false);
  std::weak_ptr<bool> alive = run_.token();
  const std::string message_id = p.message.message_id;
  http_->start(std::move(spec),
               {[status](const net::HttpResponseHead& h) { *status = h.status; },
                [bytes, too_large](std::string_view d) {
                  if (bytes->size() + d.size() > agent::kMaxAttachmentBytes) *too_large = true;
                  else if (!*too_large) bytes->append(d);
                },
                [this, alive, file, message_id, status, bytes, too_large](const std::optional<net::TransportError>& e) {
                  if (!ChannelRun::live(alive)) return;
                  fetching_ = false;
                  if (inbound_.empty() || inbound_.front().message.message_id != message_id) return pump_inbound();
                  InboundMessage& msg = inbound_.front().message;
                  if (e || *status != 200 || *too_large) {
                    spdlog::warn("discord[{}]: attachment {} not downloaded ({})", settings_.account_id, file.filename,
                                 e ? e->what : *too_large ? "over the size limit" : "HTTP " + std::to_string(*status));
                    add_notice(msg, *too_large ? "[file omitted: " + file_label(file) + " — over the limit of " +
                                                     std::to_string(agent::kMaxAttachmentBytes) + " bytes]"
                                               : "[attachment could not be downloaded: " + file_label(file) + "]");
                    return pump_inbound();
                  }
                  const bool image = file.content_type.rfind("image/", 0) == 0;
                  std::vector<agent::Attachment> one{{image ? "image" : "file", file.content_type, file.filename, std::move(*bytes)}};
                  if (auto st = agent::check_attachments(one); !st) {
                    add_notice(msg, "[attachment refused: " + file_label(file) + ": " + st.error().message + "]");
                  } else {
                    msg.media.push_back(std::move(one.front()));
                  }
                  pump_inbound();
                }});
}

}  // namespace pincer::channels::discord
