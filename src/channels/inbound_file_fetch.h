// Downloading the files of an inbound chat message (SPEC CH-2 "media in"), shared by the channels
// whose platforms hand a message's files as URLs (Discord's CDN, Slack's url_private): one file is
// fetched at a time, at most agent::kMaxAttachmentBytes (a reported size above that is not fetched;
// a download that grows past it is cut), and checked by agent::check_attachments (an image/*
// content type is kind "image" and must be one by its bytes, anything else kind "file"). A file that
// cannot be had becomes a line of the message's text instead, so the model and the user still know
// it was there.
//
// Loop affinity: the event-loop thread of `http`; `done` runs there, never after `alive` expired.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "agent/attachments.h"
#include "channels/channel.h"
#include "core/http_client.h"

namespace pincer::channels {

/// One file of an inbound message, to download.
struct InboundFile {
  std::string url;            ///< http(s) URL of the file's bytes
  std::string file_name;      ///< "" = unnamed
  std::string content_type;   ///< "" = not given
  int64_t size = -1;          ///< bytes as the platform reports them; -1 = not reported
  net::Headers headers = {};  ///< sent with the GET (Slack: Authorization: Bearer <bot token>)
};

/// The attachment, or the line to append to the message's text in its place:
/// "[file omitted: <name>, <type>, <size> bytes — over the limit of <cap> bytes]",
/// "[attachment could not be downloaded: <name>, <type>]", "[attachment refused: <name>: <why>]".
using FetchedFile = std::variant<agent::Attachment, std::string>;

/// Puts what fetch_inbound_file got into `message`: the attachment into media, a notice as a line
/// of its text.
void add_fetched_file(InboundMessage& message, FetchedFile got);

/// Downloads and checks `file` (see above). `log_prefix` names the account in warnings
/// ("discord[main]"). `alive`: the channel run's token (ChannelRun::token()); `done` is called
/// exactly once unless that run has stopped by then.
void fetch_inbound_file(net::HttpClient& http, const InboundFile& file, std::weak_ptr<bool> alive,
                        const std::string& log_prefix, std::function<void(FetchedFile)> done);

}  // namespace pincer::channels
