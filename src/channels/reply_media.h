// Files in an agent's reply (SPEC CH-1 "media out", CH-2): the `MEDIA:` lines of the reply
// (delivery/media_directives.h) become uploads through Channel::send_media, after the reply's text.
//
// Which files may be sent: only regular files beneath the roots of the run's agent — its
// workspace and its media folder (`<state>/agents/<id>/sessions/media`, where received images
// are kept) — resolved as the file tools resolve workspace paths (tools/workspace_path.h: no
// `..` or symlink leads out, the file is opened beneath its root with RESOLVE_BENEATH). A
// relative reference is relative to the workspace, "~/" is the gateway user's home (then it must
// still be beneath a root); URLs are not fetched. Anything else is never read: the chat gets a
// line "[file <name> not sent: <reason>]" in the reply instead, as it does for a file over the
// channel's media_max_bytes (and over kMaxReplyMediaBytes whatever the channel says) and on a
// channel without capabilities().media_out ("[file <name> not sent: <channel> cannot send files]").
//
// Delivery (reply_delivery.h): prepare_reply_media() runs when the reply is queued — the notices
// join the text, the accepted files are recorded in the outbox entry (OutboxMedia, by root and
// relative path, never by bytes); send_reply_media() reads each file again when it is sent, so a
// file removed meanwhile (or a restart) gives a notice rather than an upload of something else.
// A platform's refusal (REJECTED: too large, a type it refuses) is answered with the same notice;
// RATE_LIMITED and UNAVAILABLE go back to the delivery, which retries and parks as for text.
//
// Loop affinity: event-loop thread (the reads block briefly: files are at most
// kMaxReplyMediaBytes).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/attachments.h"
#include "channels/channel.h"
#include "channels/outbox.h"
#include "core/result.h"

namespace pincer::channels {

/// Whatever a channel says, no reply file above this is read (OpenClaw's document cap, 100 MB).
inline constexpr std::size_t kMaxReplyMediaBytes = 100'000'000;

/// Where a run's reply may take files from.
struct MediaRoots {
  std::filesystem::path workspace;           ///< relative references resolve here ("" = none)
  std::vector<std::filesystem::path> extra;  ///< further roots (the agent's media folder)
};

/// The roots of agent `agent_id` (the default agent when unknown) under the effective `config`:
/// its workspace and `<sessions dir>/media` beneath `state_dir`. Empty roots when the agents
/// config does not resolve (every file is then refused with a notice).
MediaRoots media_roots_for_agent(const nlohmann::json& config, const std::filesystem::path& state_dir,
                                 const std::string& agent_id);

/// A reply made ready for the outbox.
struct PreparedReplyMedia {
  std::string markdown;            ///< the text without directives, notices appended
  std::vector<OutboxMedia> media;  ///< the files to send after it, in order
};

/// Splits the directives out of `markdown` and checks each file for `channel` (capability,
/// roots, existence, size). Never fails: every refusal is a notice line of `markdown`.
PreparedReplyMedia prepare_reply_media(const std::string& markdown, const MediaRoots& roots, const Channel& channel);

/// Where `reference` leads beneath `roots`, checked as a regular file of at most `max_bytes`.
/// Errors (message short enough for a chat notice): MEDIA_REFUSED "outside the workspace and the
/// media folder" | "URLs are not fetched" | "not a regular file" | "12.0 MB, over the 10.0 MB
/// limit"; MEDIA_MISSING "no such file".
Result<OutboxMedia> resolve_reply_media(const MediaRoots& roots, const std::string& reference, std::size_t max_bytes);

/// Reads a recorded file again (beneath its root, no symlinks) as an attachment: kind "image"
/// when the bytes are PNG/JPEG/GIF/WebP, mime type by the bytes, else by the extension
/// (application/octet-stream when unknown). Errors as resolve_reply_media's.
Result<agent::Attachment> load_reply_media(const OutboxMedia& media, std::size_t max_bytes);

/// The MIME type of a file name's extension ("report.pdf" → "application/pdf"), "" when unknown.
std::string mime_for_file_name(const std::string& file_name);

/// "[file <name> not sent: <reason>]" (the name cut to 200 bytes).
std::string media_not_sent_notice(const std::string& file_name, const std::string& reason);

/// Sends file `media` of a reply to chat/thread: send_media(), or the notice as a text message
/// when the file cannot be read, the channel cannot send files, or the platform refuses it.
/// `reply_to`: the inbound message the reply answers (OutboxEntry::reply_to), given to the file and
/// the notice alike, so a private command reply's file stays private (OutboundMedia::reply_to).
/// `done` gets Ok, or RATE_LIMITED / UNAVAILABLE to retry (from either call), or REJECTED when
/// even the notice was refused.
void send_reply_media(Channel& channel, const std::string& chat_id, const std::string& thread_id,
                      const std::string& reply_to, const OutboxMedia& media, std::function<void(Status)> done);

}  // namespace pincer::channels
