// Idempotency cache for side-effecting methods (GW-6; openclaw-protocol.md §1.6): a retried
// `idempotencyKey` gets the first response again and nothing runs twice. Entries live
// kIdempotencyTtlMs (5 min); at most kIdempotencyMaxEntries (1000), oldest evicted first.
// Loop-affine (no locking): owned by the gateway's event loop.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>

#include "gateway/protocol/constants.h"

namespace pincer::gateway {

class IdempotencyCache {
 public:
  explicit IdempotencyCache(int64_t ttl_ms = kIdempotencyTtlMs, std::size_t max_entries = kIdempotencyMaxEntries)
      : ttl_ms_(ttl_ms), max_entries_(max_entries) {}

  /// The cached response body (the JSON of `res` minus its id: `{"ok":…,"payload"|"error":…}`)
  /// for `key` ("<method>:<idempotencyKey>") if stored within the TTL. `now_ms` is steady time.
  std::optional<std::string> find(const std::string& key, int64_t now_ms);

  /// Stores (or replaces) the response for `key`, evicting expired and then oldest entries.
  void store(const std::string& key, std::string response, int64_t now_ms);

  std::size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string key;
    std::string response;
    int64_t stored_ms;
  };
  void evict(int64_t now_ms);

  int64_t ttl_ms_;
  std::size_t max_entries_;
  std::list<Entry> order_;  // oldest first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace pincer::gateway
