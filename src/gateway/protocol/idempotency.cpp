#include "gateway/protocol/idempotency.h"

namespace pincer::gateway {

std::optional<std::string> IdempotencyCache::find(const std::string& key, int64_t now_ms) {
  evict(now_ms);
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return it->second->response;
}

void IdempotencyCache::store(const std::string& key, std::string response, int64_t now_ms) {
  if (auto it = index_.find(key); it != index_.end()) {
    order_.erase(it->second);
    index_.erase(it);
  }
  order_.push_back(Entry{key, std::move(response), now_ms});
  index_[key] = std::prev(order_.end());
  evict(now_ms);
}

void IdempotencyCache::evict(int64_t now_ms) {
  while (!order_.empty() && (now_ms - order_.front().stored_ms >= ttl_ms_ || order_.size() > max_entries_)) {
    index_.erase(order_.front().key);
    order_.pop_front();
  }
}

}  // namespace pincer::gateway
