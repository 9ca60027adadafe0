// Files from the agent to a Matrix room (SPEC CH-1 "media out"): the bytes go to the media
// repository (POST /_matrix/media/v3/upload?filename=…, Content-Type the file's type) and come
// back as an mxc:// URI, then one m.room.message event names it — msgtype m.image for an image,
// m.file otherwise — {body: the caption or the file name, filename, url, info: {mimetype, size}},
// in the thread when the reply is in one. Upload errors: transport and 5xx UNAVAILABLE, 429
// RATE_LIMITED (retry_after), 413 M_TOO_LARGE and other 4xx REJECTED with the homeserver's reason.
#include <algorithm>

#include "channels/matrix/matrix_channel.h"

namespace pincer::channels::matrix {

using nlohmann::json;

void MatrixChannel::send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) {
  if (!run_.running()) return done(Error{"UNAVAILABLE", "matrix[" + settings_.account_id + "]: not running"});
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = settings_.homeserver + "/_matrix/media/v3/upload?filename=" + encode_uri_component(media.media.file_name);
  spec.headers = {{"Authorization", "Bearer " + settings_.access_token}, {"Content-Type", media.media.mime_type}};
  spec.body = media.media.bytes;
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = 120'000;
  auto head = std::make_shared<net::HttpResponseHead>();
  auto buffer = std::make_shared<std::string>();
  std::weak_ptr<bool> alive = run_.token();
  json content = {{"msgtype", media.media.kind == "image" ? "m.image" : "m.file"},
                  {"body", media.caption.empty() ? media.media.file_name : media.caption},
                  {"filename", media.media.file_name},
                  {"info", {{"mimetype", media.media.mime_type}, {"size", media.media.bytes.size()}}}};
  if (!media.thread_id.empty()) {
    content["m.relates_to"] = {{"rel_type", "m.thread"},
                               {"event_id", media.thread_id},
                               {"is_falling_back", true},
                               {"m.in_reply_to", {{"event_id", media.thread_id}}}};
  }
  http_.start(
      std::move(spec),
      {[head](const net::HttpResponseHead& h) { *head = h; },
       [buffer](std::string_view d) {
         if (buffer->size() < (1u << 20)) buffer->append(d);
       },
       [this, alive, head, buffer, chat = media.chat_id, content = std::move(content),
        done = std::move(done)](const std::optional<net::TransportError>& e) mutable {
         if (!ChannelRun::live(alive)) return;
         if (e) return done(Error{"UNAVAILABLE", "matrix: upload: " + e->what});
         json answer = buffer->empty() ? json() : json::parse(*buffer, nullptr, false);
         if (answer.is_discarded()) answer = json();
         int64_t retry_after = -1;
         try {
           if (const std::string h = head->header("Retry-After"); !h.empty()) retry_after = std::stoll(h);
         } catch (const std::exception&) {
         }
         if (auto err = parse_error(head->status, answer, retry_after)) {
           if (head->status == 429 || err->errcode == "M_LIMIT_EXCEEDED") {
             return done(Error{"RATE_LIMITED", std::to_string(std::max<int64_t>(1, (err->retry_after_ms + 999) / 1000))});
           }
           return done(Error{head->status >= 500 ? "UNAVAILABLE" : "REJECTED", "matrix: upload: " + error_text(*err)});
         }
         const std::string uri = answer.is_object() ? answer.value("content_uri", "") : "";
         if (!uri.starts_with("mxc://")) return done(Error{"UNAVAILABLE", "matrix: the upload answered no content_uri"});
         content["url"] = uri;
         resolve_room(chat, [this, content = std::move(content), done = std::move(done)](Result<std::string> room) mutable {
           if (!room) return done(room.error());
           const std::string path =
               "/rooms/" + encode_uri_component(*room) + "/send/m.room.message/" + encode_uri_component(next_txn_id());
           call_limited("PUT", path, content, 0, [this, done = std::move(done)](Result<json> sent) {
             if (!sent) return done(sent.error());
             const std::string id = sent->is_object() ? sent->value("event_id", "") : "";
             if (id.empty()) return done(Error{"UNAVAILABLE", "matrix: the homeserver answered no event_id"});
             ++messages_sent_;
             done(id);
           });
         });
       }});
}

}  // namespace pincer::channels::matrix
