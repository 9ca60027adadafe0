// SlackChannel's files out (slack_channel.h "Files out", slack_files.h).
#include <spdlog/spdlog.h>

#include "channels/slack/slack_channel.h"
#include "channels/slack/slack_files.h"

namespace pincer::channels::slack {

using nlohmann::json;

void SlackChannel::send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) {
  if (!api_) return done(Error{"UNAVAILABLE", "slack[" + settings_.account_id + "]: not running"});
  if (media.media.bytes.size() > kSlackMediaMaxBytes) {
    return done(Error{"REJECTED", "slack: " + media.media.file_name + " is larger than 20 MB"});
  }
  // A slash command answered privately (slashCommand.ephemeral): Slack has no private files, and a
  // shared one would be seen by the whole conversation. Refused: the reply carries a notice instead.
  if (!media.reply_to.empty() && slash_replies_.count(media.reply_to)) {
    return done(Error{"REJECTED", "a slash command's private reply cannot carry files on Slack"});
  }
  auto file = std::make_shared<const OutboundMedia>(media);  // one copy of the bytes for the three steps
  auto dm = dm_channels_.find(media.chat_id);
  if (dm != dm_channels_.end()) return upload_file(file, dm->second, std::move(done));
  if (!slack_is_user_id(media.chat_id)) return upload_file(file, media.chat_id, std::move(done));
  // A user id (docking): the file is shared in the DM, which needs its conversation id.
  std::weak_ptr<bool> alive = run_.token();
  api_->call("conversations.open", settings_.bot_token, json{{"users", media.chat_id}},
             [this, alive, file, done = std::move(done)](const WebApiAnswer& a) mutable {
               if (!ChannelRun::live(alive) || !api_) return done(Error{"UNAVAILABLE", "slack: not running"});
               if (!a.ok()) return done(delivery_error("conversations.open", a));
               const std::string channel = a.body.value("channel", json::object()).value("id", "");
               if (channel.empty()) return done(Error{"UNAVAILABLE", "slack: conversations.open answered without a channel id"});
               dm_channels_[file->chat_id] = channel;
               upload_file(file, channel, std::move(done));
             });
}

void SlackChannel::upload_file(std::shared_ptr<const OutboundMedia> file, const std::string& channel,
                               std::function<void(Result<std::string>)> done) {
  const OutboundMedia& media = *file;
  const std::string name = media.media.file_name.empty() ? "file" : media.media.file_name;
  std::weak_ptr<bool> alive = run_.token();
  api_->call_form(
      "files.getUploadURLExternal", settings_.bot_token, upload_url_fields(name, media.media.bytes.size()),
      [this, alive, file, channel, name, done = std::move(done)](const WebApiAnswer& a) mutable {
        if (!ChannelRun::live(alive) || !api_) return done(Error{"UNAVAILABLE", "slack: not running"});
        if (!a.ok()) return done(delivery_error("files.getUploadURLExternal", a));
        const std::string url = a.body.value("upload_url", ""), file_id = a.body.value("file_id", "");
        if (url.empty() || file_id.empty()) {
          return done(Error{"UNAVAILABLE", "slack: files.getUploadURLExternal answered without upload_url or file_id"});
        }
        const std::string mime = file->media.mime_type.empty() ? "application/octet-stream" : file->media.mime_type;
        api_->post_bytes(
            url, file->media.bytes, mime,
            [this, alive, file, channel, name, file_id, done = std::move(done)](const WebApiAnswer& up) mutable {
              if (!ChannelRun::live(alive) || !api_) return done(Error{"UNAVAILABLE", "slack: not running"});
              if (up.status != 200) return done(delivery_error("the upload of " + name, up));
              api_->call("files.completeUploadExternal", settings_.bot_token,
                         complete_upload_body(file_id, name, channel, file->thread_id, file->caption),
                         [this, file_id, done = std::move(done)](const WebApiAnswer& c) {
                           if (!c.ok()) return done(delivery_error("files.completeUploadExternal", c));
                           ++files_sent_;
                           done(file_id);
                         });
            });
      });
}

}  // namespace pincer::channels::slack
