// Files from the agent to a Telegram chat (SPEC CH-1 "media out"): sendPhoto for an image Telegram
// accepts as a photo, sendDocument for everything else, as multipart/form-data
// (https://core.telegram.org/bots/api#sending-files: "upload a new one using multipart/form-data").
// Errors are mapped as sendMessage's: 429 → RATE_LIMITED, 5xx/transport → UNAVAILABLE, other 4xx →
// REJECTED with Telegram's description; a caption Telegram cannot parse as HTML is sent as plain text.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "channels/telegram/telegram_channel.h"
#include "core/multipart_form.h"

namespace pincer::channels::telegram {

using nlohmann::json;

void TelegramChannel::send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) {
  send_media_attempt(media, /*html=*/true, std::move(done));
}

void TelegramChannel::send_media_attempt(OutboundMedia media, bool html, std::function<void(Result<std::string>)> done) {
  const bool photo = media.media.kind == "image" && media.media.bytes.size() <= kTelegramMaxPhotoBytes;
  std::vector<net::FormPart> parts = {{"chat_id", media.chat_id}};
  if (!media.thread_id.empty()) parts.push_back({"message_thread_id", media.thread_id});
  if (!media.caption.empty()) {
    parts.push_back({"caption", media.caption});
    if (html) parts.push_back({"parse_mode", "HTML"});
  }
  parts.push_back({photo ? "photo" : "document", media.media.bytes, media.media.file_name, media.media.mime_type});
  net::MultipartBody form = net::build_multipart_form(parts);
  call_body(photo ? "sendPhoto" : "sendDocument", form.content_type, std::move(form.body), 120'000,
            [this, media = std::move(media), html, done = std::move(done)](int status, const json& answer,
                                                                            const std::string& transport) mutable {
              if (!transport.empty()) return done(Error{"UNAVAILABLE", transport});
              if (auto e = parse_error(answer, status)) {
                if (e->parse_entities && html && !media.caption.empty()) {
                  spdlog::warn("telegram[{}]: caption HTML rejected ({}); sending it as plain text", settings_.account_id,
                               e->description);
                  media.caption = html_to_plain(media.caption);
                  return send_media_attempt(std::move(media), false, std::move(done));
                }
                if (e->code == 429) return done(Error{"RATE_LIMITED", std::to_string(std::max(1, e->retry_after_s))});
                return done(Error{e->code >= 500 ? "UNAVAILABLE" : "REJECTED", e->description});
              }
              ++messages_sent_;
              const json& result = answer.value("result", json::object());
              done(result.is_object() && result.contains("message_id") ? result["message_id"].dump() : std::string());
            });
}

}  // namespace pincer::channels::telegram
