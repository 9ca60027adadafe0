// The webhook channel's messageId record (SPEC QL-4): a retry of the same message — the same
// sender, conversation and messageId — is answered `{ok, duplicate:true}` and never runs the agent
// twice, also after a gateway restart (the inbound pipeline's own dedupe lives in memory only).
//
// Persisted in `file` as {"seen":[{"id":"<hex SHA-256 of the identity>","at":<Unix s>}, …]}
// (0600, temp + fsync + rename, store/atomic_file.h). An entry lives kInboundDedupeTtlMs
// (20 min, as OpenClaw's inbound dedupe) from when it was first seen; at most
// kInboundDedupeMaxEntries are kept, the oldest dropped first.
//
// Owned by one channel on the event loop (writes are small and synchronous).
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
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

  /// Whether `id` was recorded within the TTL, at wall time `now_s`.
  bool seen(const std::string& id, int64_t now_s);
  /// Records `id` at `now_s` and writes the file before returning. Errors: "IO_ERROR" (nothing
  /// is remembered then: the caller refuses the request, so that its retry is not lost).
  Status record(const std::string& id, int64_t now_s);
  /// Forgets `id` (a message that was not accepted after all); best effort on the file.
  void forget(const std::string& id);

  std::size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string id;
    int64_t at_s;
  };
  void prune(int64_t now_s);
  Status save() const;

  std::filesystem::path file_;
  std::list<Entry> order_;  ///< oldest first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace pincer::channels::webhook
