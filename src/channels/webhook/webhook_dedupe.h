// The webhook channel's messageId record (SPEC QL-4): a retry of the same message — the same
// sender, conversation and messageId — is answered `{ok, duplicate:true}` and never runs the agent
// twice, also after a gateway restart (the inbound pipeline's own dedupe lives in memory only).
//
// Persisted in `file` as {"seen":[{"id":"<hex SHA-256 of the identity>","at":<Unix s>,
// "answer":"<hex SHA-256 of conversation + messageId>","replied":true?}, …]} (0600, temp + fsync
// + rename, store/atomic_file.h). An entry lives kInboundDedupeTtlMs (20 min, as OpenClaw's
// inbound dedupe) from when it was first seen; at most kInboundDedupeMaxEntries are kept, the
// oldest dropped first.
//
// The reply a sync request got (or would have got: its caller gave up with a 504) is kept with
// its entry, so that a retry with the same messageId gets it: one file per reply,
// `<file stem>.replies/<id>.json` = {"conversationId", "reply"} (0600, atomic), removed with its
// entry.
//
// Owned by one channel on the event loop (writes are small and synchronous).
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"

namespace pincer::channels::webhook {

class MessageIdRecord {
 public:
  /// Loads `file` ("" = memory only). An unreadable or malformed file is logged and ignored.
  explicit MessageIdRecord(std::filesystem::path file);

  /// The identity of one message (length-prefixed parts, hashed): "" when `message_id` is empty.
  static std::string identity(std::string_view sender, std::string_view conversation, std::string_view message_id);

  /// What a reply names of the message it answers (its conversation and messageId, hashed; the
  /// sender is not known to a reply): "" when `message_id` is empty.
  static std::string answer_key(std::string_view conversation, std::string_view message_id);

  /// Whether `id` was recorded within the TTL, at wall time `now_s`.
  bool seen(const std::string& id, int64_t now_s);
  /// Records `id` at `now_s` (with `answer`, its answer_key) and writes the file before
  /// returning. Errors: "IO_ERROR" (nothing is remembered then: the caller refuses the request,
  /// so that its retry is not lost).
  Status record(const std::string& id, int64_t now_s, const std::string& answer = "");
  /// Forgets `id` (a message that was not accepted after all); best effort on the file.
  void forget(const std::string& id);

  /// The id of the oldest recorded message with answer key `answer` that has no reply yet; ""
  /// when none.
  std::string awaiting_reply(const std::string& answer) const;
  /// Keeps `reply`, the answer to `id` in `conversation` (memory, and its file when the record
  /// has one). Errors: "NOT_FOUND" (`id` not recorded), "IO_ERROR" (kept in memory only).
  Status store_reply(const std::string& id, const std::string& conversation, const std::string& reply);
  struct StoredReply {
    std::string conversation_id, reply;
  };
  /// The reply kept for `id`, or nullopt.
  std::optional<StoredReply> reply(const std::string& id) const;
  std::size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string id;
    int64_t at_s;
    std::string answer = {};
    bool replied = false;
  };
  void prune(int64_t now_s);
  /// Drops one entry and its reply (memory and file).
  void drop(std::list<Entry>::iterator it);
  std::filesystem::path reply_file(const std::string& id) const;
  Status save() const;

  std::filesystem::path file_;
  std::list<Entry> order_;  ///< oldest first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  mutable std::unordered_map<std::string, StoredReply> replies_;  ///< by id (loaded from files on demand)
};

}  // namespace pincer::channels::webhook
