// Files from the agent to a Discord channel (SPEC CH-1 "media out"): one message created by
// POST /channels/{id}/messages as multipart/form-data — `payload_json` {content?, attachments:
// [{id:0, filename}], allowed_mentions} and the file as `files[0]`
// (https://discord.com/developers/docs/reference#uploading-files). A thread is a channel of its
// own, as for send_text. Rate limits are DiscordRest's (a 429 waits and sends the same upload
// again); 413 and other 4xx answers are REJECTED with Discord's message, 5xx and transport
// errors UNAVAILABLE.
#include "channels/discord/discord_channel.h"
#include "core/multipart_form.h"

namespace pincer::channels::discord {

using nlohmann::json;

namespace {

std::string discord_media_error_text(const RestAnswer& a) {
  if (!a.transport_error.empty()) return a.transport_error;
  std::string why = "HTTP " + std::to_string(a.status);
  if (a.body.is_object() && a.body.contains("message") && a.body["message"].is_string()) {
    why += ": " + a.body["message"].get<std::string>();
  }
  return why;
}

}  // namespace

void DiscordChannel::send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) {
  if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
  json payload = create_message_body(media.caption);
  if (media.caption.empty()) payload.erase("content");
  payload["attachments"] = json::array({{{"id", 0}, {"filename", media.media.file_name}}});
  // A slash command's file goes where its text goes: the interaction (ephemeral, as configured).
  if (commands_ && commands_->send_media(media.reply_to, payload,
                                         {"files[0]", media.media.bytes, media.media.file_name, media.media.mime_type},
                                         [this, done](Result<std::string> id) {
                                           if (id) ++messages_sent_;
                                           done(std::move(id));
                                         })) {
    return;
  }
  auto form = std::make_shared<net::MultipartBody>(net::build_multipart_form({
      {"payload_json", payload.dump()},
      {"files[0]", media.media.bytes, media.media.file_name, media.media.mime_type},
  }));
  const std::string& target = media.thread_id.empty() ? media.chat_id : media.thread_id;
  resolve_target(target, [this, form, done = std::move(done), life = run_.life()](Result<std::string> channel) mutable {
    if (life.expired()) return;
    if (!channel) return done(channel.error());
    if (!rest_) return done(Error{"UNAVAILABLE", "discord[" + settings_.account_id + "]: not running"});
    rest_->call_raw("POST", "/channels/" + *channel + "/messages", form->content_type, std::move(form->body),
                    [this, done = std::move(done)](const RestAnswer& a) {
                      if (a.status / 100 != 2) {
                        const bool transient = a.status == 0 || a.status >= 500;
                        return done(Error{transient ? "UNAVAILABLE" : "REJECTED", "discord: " + discord_media_error_text(a)});
                      }
                      const std::string id = a.body.is_object() ? a.body.value("id", "") : "";
                      if (id.empty()) return done(Error{"UNAVAILABLE", "discord: the created message has no id"});
                      ++messages_sent_;
                      done(id);
                    });
  });
}

}  // namespace pincer::channels::discord
