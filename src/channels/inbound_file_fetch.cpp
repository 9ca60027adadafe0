// fetch_inbound_file (inbound_file_fetch.h).
#include "channels/inbound_file_fetch.h"

#include <spdlog/spdlog.h>

#include <vector>

namespace pincer::channels {

namespace {

std::string inbound_file_label(const InboundFile& f) {
  return (f.file_name.empty() ? std::string("a file") : f.file_name) + (f.content_type.empty() ? "" : ", " + f.content_type);
}

}  // namespace

void add_fetched_file(InboundMessage& message, FetchedFile got) {
  if (auto* a = std::get_if<agent::Attachment>(&got)) {
    message.media.push_back(std::move(*a));
  } else {
    message.text += (message.text.empty() ? "" : "\n") + std::get<std::string>(got);
  }
}

void fetch_inbound_file(net::HttpClient& http, const InboundFile& file, std::weak_ptr<bool> alive,
                        const std::string& log_prefix, std::function<void(FetchedFile)> done) {
  const auto cap = static_cast<int64_t>(agent::kMaxAttachmentBytes);
  if (file.size > cap) {
    return done("[file omitted: " + inbound_file_label(file) + ", " + std::to_string(file.size) +
                " bytes — over the limit of " + std::to_string(cap) + " bytes]");
  }
  if (file.url.rfind("https://", 0) != 0 && file.url.rfind("http://", 0) != 0) {
    return done("[attachment could not be downloaded: " + inbound_file_label(file) + "]");
  }
  net::HttpRequestSpec spec;
  spec.method = "GET";
  spec.url = file.url;
  spec.headers = file.headers;
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = 60'000;
  auto status = std::make_shared<int>(0);
  auto bytes = std::make_shared<std::string>();
  auto too_large = std::make_shared<bool>(false);
  http.start(std::move(spec),
             {[status](const net::HttpResponseHead& h) { *status = h.status; },
              [bytes, too_large](std::string_view d) {
                if (bytes->size() + d.size() > agent::kMaxAttachmentBytes) *too_large = true;
                else if (!*too_large) bytes->append(d);
              },
              [alive, file, log_prefix, status, bytes, too_large, done = std::move(done)](
                  const std::optional<net::TransportError>& e) {
                const auto run = alive.lock();  // a ChannelRun token: false once that run stopped
                if (!run || !*run) return;
                if (e || *status != 200 || *too_large) {
                  spdlog::warn("{}: attachment {} not downloaded ({})", log_prefix, file.file_name,
                               e ? e->what : *too_large ? "over the size limit" : "HTTP " + std::to_string(*status));
                  return done(*too_large ? "[file omitted: " + inbound_file_label(file) + " — over the limit of " +
                                               std::to_string(agent::kMaxAttachmentBytes) + " bytes]"
                                         : "[attachment could not be downloaded: " + inbound_file_label(file) + "]");
                }
                const bool image = file.content_type.rfind("image/", 0) == 0;
                std::vector<agent::Attachment> one{
                    {image ? "image" : "file", file.content_type, file.file_name, std::move(*bytes)}};
                if (auto st = agent::check_attachments(one); !st) {
                  return done("[attachment refused: " + inbound_file_label(file) + ": " + st.error().message + "]");
                }
                done(std::move(one.front()));
              }});
}

}  // namespace pincer::channels
