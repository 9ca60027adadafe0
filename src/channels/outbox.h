// Outbound delivery records (SPEC CH-5 idempotency; LESSONS 5 "duplicate and lost replies"): a
// reply's chunks are written to `<state>/channels/outbox.jsonl` *before* the first is sent, and
// every sent chunk is recorded, so a retry or a restart finishes a reply without sending any chunk
// twice. Append-only JSON lines, one fsync-free append per event (page cache; a torn last line is
// ignored on load):
//   {"op":"queue","id":…,"channel":…,"account":…,"chat":…,"thread":…,"chunks":[…],"edit":…}
//                                   ("edit", optional: chunk 0 replaces that message's text;
//                                    "media", optional: [{root, path, name}] sent after the chunks)
//   {"op":"sent","id":…,"index":n}
//   {"op":"done","id":…}            (all chunks sent, or given up)
// load() keeps the unfinished entries and rewrites the file compactly (atomic rename).
//
// Loop affinity: event-loop thread only.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"

namespace pincer::channels {

/// A file a reply sends after its chunks (channels/reply_media.h): `relative` beneath `root` (an
/// allowed root, canonical), read again when it is sent.
struct OutboxMedia {
  std::string root, relative;
  std::string file_name;  ///< what the chat sees (the reference's base name)
};

struct OutboxEntry {
  std::string id;  ///< unique per reply (run id)
  std::string channel, account_id, chat_id, thread_id;
  std::vector<std::string> chunks;
  std::size_t next = 0;  ///< index of the first chunk not yet sent
  /// Non-empty: chunk 0 is an edit of this platform message (a streamed preview, CH-4) rather
  /// than a new message; the other chunks are sent as new messages.
  std::string edit_message_id{};
  /// Files sent after the chunks, in order: index chunks.size() + i is media[i] (`next` counts both).
  std::vector<OutboxMedia> media{};
  /// The inbound message this reply answers (OutboundMessage::reply_to); "" = none. Not written
  /// to the file: a reply resumed after a restart goes to the chat as an ordinary message.
  std::string reply_to{};
};

class Outbox {
 public:
  explicit Outbox(std::filesystem::path file) : file_(std::move(file)) {}

  /// Reads the file; returns the unfinished entries (also kept in memory) and compacts the file.
  /// Errors: "IO_ERROR" naming the file.
  Result<std::vector<OutboxEntry>> load();

  /// Records a new reply before any chunk is sent. Errors: "IO_ERROR".
  Status queue(const OutboxEntry& entry);
  /// Records that chunk `index` of `id` was delivered.
  Status mark_sent(const std::string& id, std::size_t index);
  /// Records that the reply is finished (all sent, or abandoned).
  Status mark_done(const std::string& id);

  /// In-memory view of unfinished entries.
  const std::map<std::string, OutboxEntry>& pending() const { return pending_; }

 private:
  Status append(const std::string& line);

  std::filesystem::path file_;
  std::map<std::string, OutboxEntry> pending_;
};

}  // namespace pincer::channels
