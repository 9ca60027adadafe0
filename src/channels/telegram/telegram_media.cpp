// Photos and documents of inbound Telegram messages (issue 17 item 4): each is fetched through the
// Bot API — getFile {file_id} → result.file_path → GET <apiRoot>/file/bot<token>/<file_path> —
// after its `file_size` was checked against agent::kMaxAttachmentBytes (and the download is cut at
// the same cap), checked by agent::check_attachments (an image must be one by its bytes), and
// becomes InboundMessage::media. A file that is too large or cannot be fetched becomes a line of the
// message's text instead, so the model and the user still know it was there. One file at a time,
// in update order: the batch goes on (and its offset is stored) when every file was handled.
#include <memory>

#include <spdlog/spdlog.h>

#include "channels/telegram/telegram_channel.h"

namespace pincer::channels::telegram {

using nlohmann::json;

namespace detail_telegram_media {

void add_notice(InboundMessage& m, const std::string& notice) { m.text += (m.text.empty() ? "" : "\n") + notice; }

std::string file_label(const Update::File& f) {
  return (f.file_name.empty() ? std::string("a file") : f.file_name) + (f.mime_type.empty() ? "" : ", " + f.mime_type);
}

}  // namespace detail_telegram_media

using namespace detail_telegram_media;

void TelegramChannel::fetch_files(std::shared_ptr<std::vector<Update>> updates, std::size_t index, std::function<void()> done) {
  while (index < updates->size() && (!(*updates)[index].message || (*updates)[index].files.empty())) ++index;
  if (index >= updates->size()) return done();
  Update& u = (*updates)[index];
  const Update::File file = u.files.front();
  u.files.erase(u.files.begin());
  auto next = [this, updates, index, done]() mutable { fetch_files(updates, index, std::move(done)); };
  const int64_t cap = static_cast<int64_t>(agent::kMaxAttachmentBytes);
  if (file.file_size > cap) {
    add_notice(*u.message, "[file omitted: " + file_label(file) + ", " + std::to_string(file.file_size) +
                               " bytes — over the limit of " + std::to_string(cap) + " bytes]");
    return next();
  }
  call("getFile", json{{"file_id", file.file_id}}, 30'000,
       [this, updates, index, file, next](int status, const json& answer, const std::string& transport) mutable {
         InboundMessage& m = *(*updates)[index].message;
         const json result = answer.is_object() ? answer.value("result", json::object()) : json::object();
         const std::string path = result.is_object() ? result.value("file_path", "") : "";
         if (!transport.empty() || status != 200 || path.empty() || path.find("..") != std::string::npos) {
           spdlog::warn("telegram[{}]: getFile failed for a {} ({})", settings_.account_id, file.kind,
                        transport.empty() ? "HTTP " + std::to_string(status) : transport);
           add_notice(m, "[attachment could not be downloaded: " + file_label(file) + "]");
           return next();
         }
         std::string root = settings_.api_root;
         while (!root.empty() && root.back() == '/') root.pop_back();
         net::HttpRequestSpec spec;
         spec.method = "GET";
         spec.url = root + "/file/bot" + settings_.token + "/" + path;
         spec.connect_timeout_ms = 15'000;
         spec.idle_timeout_ms = 60'000;
         auto got_status = std::make_shared<int>(0);
         auto bytes = std::make_shared<std::string>();
         auto too_large = std::make_shared<bool>(false);
         std::weak_ptr<bool> alive = run_.token();
         http_.start(std::move(spec),
                     {[got_status](const net::HttpResponseHead& h) { *got_status = h.status; },
                      [bytes, too_large](std::string_view d) {
                        if (bytes->size() + d.size() > agent::kMaxAttachmentBytes) *too_large = true;
                        else bytes->append(d);
                      },
                      [alive, updates, index, file, next, got_status, bytes, too_large](
                          const std::optional<net::TransportError>& e) mutable {
                        if (!ChannelRun::live(alive)) return;
                        InboundMessage& msg = *(*updates)[index].message;
                        if (e || *got_status != 200 || *too_large) {
                          add_notice(msg, *too_large ? "[file omitted: " + file_label(file) + " — over the limit of " +
                                                           std::to_string(agent::kMaxAttachmentBytes) + " bytes]"
                                                     : "[attachment could not be downloaded: " + file_label(file) + "]");
                          return next();
                        }
                        std::vector<agent::Attachment> one{{file.kind, file.mime_type, file.file_name, std::move(*bytes)}};
                        if (auto st = agent::check_attachments(one); !st) {
                          add_notice(msg, "[attachment refused: " + file_label(file) + ": " + st.error().message + "]");
                        } else {
                          msg.media.push_back(std::move(one.front()));
                        }
                        next();
                      }});
       });
}

}  // namespace pincer::channels::telegram
