// Inbound message dedupe (SPEC QL-4; LESSONS.md 5 "Duplicate replies"; OpenClaw
// src/auto-reply/reply/inbound-dedupe.ts over src/infra/dedupe.ts).
//
// A platform may deliver the same message twice (webhook retries, a poller restarted before it
// acknowledged an update, a reconnect replaying history). The inbound pipeline asks
// `InboundDedupe::seen()` before routing; true means "already handled: drop it".
//
// Identity of a message: channel (trimmed, lowercased) + account (normalised, "" = "default") +
// peer (kind and id) + thread id + platform message id. A message without a message id is never
// a duplicate (there is nothing to compare).
//
// Expiry (OpenClaw createDedupeCache): an entry lives `ttl_ms` (default 20 min) from the last time
// it was seen (a repeat refreshes it), measured on Clock::steady_ms(); at most `max_entries`
// (default 5000) are kept, the least recently seen evicted first. A TTL of 0 keeps entries until
// evicted by size; max_entries 0 remembers nothing.
//
// Not thread-safe: owned by the event loop like the rest of the inbound pipeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"
#include "routing/session_routing.h"

namespace pincer::routing {

/// OpenClaw DEFAULT_INBOUND_DEDUPE_TTL_MS (20 minutes).
inline constexpr std::int64_t kInboundDedupeTtlMs = 20 * 60'000;
/// OpenClaw DEFAULT_INBOUND_DEDUPE_MAX.
inline constexpr std::size_t kInboundDedupeMaxEntries = 5000;

/// What identifies one inbound message.
struct InboundMessageId {
  std::string_view channel;
  std::string_view account_id;
  Peer peer;
  std::string_view thread_id;   ///< "" = not in a thread
  std::string_view message_id;  ///< platform message id; "" = cannot dedupe
};

/// Remembers recently seen inbound messages.
class InboundDedupe {
 public:
  explicit InboundDedupe(const Clock& clock, std::int64_t ttl_ms = kInboundDedupeTtlMs,
                         std::size_t max_entries = kInboundDedupeMaxEntries);

  /// True when the message was already seen within the TTL (and refreshes it); otherwise
  /// records it and returns false. Always false for an empty message id.
  bool seen(const InboundMessageId& id);
  /// Like seen() without recording or refreshing anything.
  bool peek(const InboundMessageId& id) const;

  std::size_t size() const { return index_.size(); }
  void clear();

  /// The dedupe key of `id` (length-prefixed parts, so no id can imitate another), or "" when
  /// it has no message id. Exposed for tests and logs.
  static std::string key_of(const InboundMessageId& id);

 private:
  struct Entry {
    std::string key;
    std::int64_t seen_at_ms;
  };
  bool expired(const Entry& e, std::int64_t now) const;
  void prune(std::int64_t now);

  const Clock& clock_;
  std::int64_t ttl_ms_;
  std::size_t max_entries_;
  std::list<Entry> order_;  ///< least recently seen first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace pincer::routing
