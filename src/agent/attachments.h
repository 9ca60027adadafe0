// Images and files sent with a user message (issue 17 item 4; openclaw-protocol.md "Attachments").
// Shapes: chat.send's `attachments: [{type?, mimeType?, fileName?, content: <base64>}]` (OpenClaw's
// src/gateway/chat-attachments.ts) and a channel's InboundMessage::media both become `Attachment`s;
// a run turns them into content blocks of its user message:
//   - an image (PNG/JPEG/GIF/WebP, recognised by its bytes, never by its label) → llm::ImageContent,
//     its bytes stored once at `<sessions dir>/media/<sha256>.<ext>` (0600, atomic) and the
//     transcript holding only the reference (`ImageContent::ref`, "media/<sha256>.<ext>");
//   - a text-like file (text/*, JSON, Markdown, CSV, ≤ kMaxInlineTextBytes) → a fenced text block
//     named by its file;
//   - anything else → a one-line notice naming the file, its type and size.
// A model whose `input` lacks "image" gets a notice instead of each image (images_for_model).
// Pure functions apart from the media files; any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/result.h"
#include "llm/messages.h"

namespace pincer::agent {

/// Decoded bytes per attachment: OpenClaw's image cap (chat-attachments.ts, 5,000,000 bytes).
inline constexpr std::size_t kMaxAttachmentBytes = 5'000'000;
/// Decoded bytes of all attachments of one message: all of them base64-encoded (24,000,000 bytes)
/// fit in one gateway message (25 MiB, gateway/protocol/constants.h kMaxPayloadBytes) with room
/// for the text. (OpenClaw has no total; its frame limit is the same 25 MiB.)
inline constexpr std::size_t kMaxAttachmentsTotalBytes = 18'000'000;
/// Attachments per message.
inline constexpr std::size_t kMaxAttachments = 10;
/// A text-like file larger than this is not inlined (a notice names it instead).
inline constexpr std::size_t kMaxInlineTextBytes = 100'000;

/// One attachment, decoded. `kind`: "image" | "file"; `mime_type` of an image is the sniffed one.
struct Attachment {
  std::string kind = "file";
  std::string mime_type;  ///< "" = unknown (application/octet-stream)
  std::string file_name;  ///< "" = none given
  std::string bytes;      ///< decoded content
};

/// "image/png" | "image/jpeg" | "image/gif" | "image/webp" by the magic bytes; "" otherwise.
std::string sniff_image_mime(std::string_view bytes);

/// chat.send's `attachments` (null/absent = none) → decoded attachments. Errors (code
/// INVALID_REQUEST) name the index and field: "attachments[1].content: not valid base64",
/// "attachments[0].mimeType: says image/png but the bytes are image/jpeg", "… exceeds 5000000 bytes".
/// `type` "image" (or an image/* mimeType) requires image bytes; a `type` "file" or a non-image
/// mimeType is a file. `content` may be a data URL ("data:<mime>;base64,…").
Result<std::vector<Attachment>> parse_chat_attachments(const nlohmann::json& attachments);

/// Checks decoded attachments (a channel's media): count, per-item and total caps, an image's
/// bytes must be an image. Same error wording, "media[i]" instead of "attachments[i]".
Status check_attachments(std::vector<Attachment>& attachments, const std::string& what = "media");

/// The user message's blocks for `attachments`: images stored under `media_dir` (created 0700)
/// as content-addressed files. With `session_id`, each image is also hard-linked as
/// `media_dir/by-session/<session_id>/<file>`: the links count the sessions that use a file
/// (release_session_media). Error MEDIA_WRITE when a file cannot be written.
Result<std::vector<llm::ContentBlock>> attachment_blocks(const std::vector<Attachment>& attachments,
                                                         const std::filesystem::path& media_dir,
                                                         const std::string& session_id = "");

/// Retention of media files: when session `session_id`'s transcript is deleted or archived by a
/// reset, its links under `<sessions_dir>/media/by-session/<session_id>/` are removed, and so is
/// each file no other session links any more (its link count back at 1). Cost: the files of that
/// session only — no scan of other transcripts. Files written before links existed (no session
/// links them) are kept. Returns how many media files were deleted; errors are logged and skipped.
int release_session_media(const std::filesystem::path& sessions_dir, const std::string& session_id);

/// The run journal's record of attachments (agent/run_journal.h): each one's bytes stored under
/// `media_dir` as `<sha256>.<ext>` (an image's extension, "bin" for any other file; 0600, atomic,
/// written once) and described by reference, never by its bytes:
///   [{"kind":"image"|"file","mimeType","fileName","ref":"media/<sha256>.<ext>","bytes":<size>}]
/// Error MEDIA_WRITE when a file cannot be written.
Result<nlohmann::json> store_attachment_refs(const std::vector<Attachment>& attachments,
                                             const std::filesystem::path& media_dir);
/// The attachments of a store_attachment_refs() record, read back from beneath `sessions_dir`. A
/// reference whose file is missing (or not of that form) becomes a text file saying so
/// ("[attachment unavailable: <name> (media/…) is missing]"), so the turn still runs.
std::vector<Attachment> load_attachment_refs(const nlohmann::json& refs, const std::filesystem::path& sessions_dir);
/// Deletes the files of a record that only the journal uses: the non-image ones ("….bin"; a
/// run's transcript refers to images, never to these). Missing files are fine.
void remove_journal_only_refs(const nlohmann::json& refs, const std::filesystem::path& sessions_dir);

/// "media/<sha256>.<ext>" → the file beneath `sessions_dir`; "" path for a reference that is not
/// of that form (no "..", no absolute paths).
std::filesystem::path media_file(const std::filesystem::path& sessions_dir, const std::string& ref);

/// Whether an image block has only a `ref` (resolve_image_refs would read its file).
bool has_unresolved_image_refs(const std::vector<llm::ContentBlock>& blocks);
/// Fills `data` of every image block that has only a `ref`, reading the file beneath
/// `sessions_dir`; a missing or unreadable file becomes a text notice "[image unavailable: …]".
void resolve_image_refs(std::vector<llm::ContentBlock>& blocks, const std::filesystem::path& sessions_dir);
/// The same on pi-format JSON messages (chat.history): `{type:"image", ref}` gains `data`.
void resolve_image_refs(nlohmann::json& message, const std::filesystem::path& sessions_dir);

/// For a model without "image" in its input: every image block of a user message becomes
/// "[image omitted: model <provider>/<id> does not accept images]" (in a copy of that message:
/// the history's own stays as it is). Returns how many.
int images_for_model(llm::MessageList& messages, const llm::ModelSpec& model);

using pincer::base64_encode;  // core/base64.h
/// Standard or URL-safe base64, padding optional, whitespace ignored; nullopt when not base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace pincer::agent
