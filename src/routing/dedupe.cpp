#include "routing/dedupe.h"

#include <algorithm>

#include "routing/text_util.h"
#include "store/session_keys.h"

namespace pincer::routing {
namespace {

void append_part(std::string& key, std::string_view part) {
  key += std::to_string(part.size());
  key += ':';
  key += part;
}

}  // namespace

InboundDedupe::InboundDedupe(const Clock& clock, std::int64_t ttl_ms, std::size_t max_entries)
    : clock_(clock), ttl_ms_(std::max<std::int64_t>(0, ttl_ms)), max_entries_(max_entries) {}

std::string InboundDedupe::key_of(const InboundMessageId& id) {
  const std::string_view message = text::trim(id.message_id);
  if (message.empty()) return {};
  std::string key;
  append_part(key, text::token(id.channel));
  append_part(key, store::normalize_account_id(id.account_id));
  append_part(key, to_string(id.peer.kind));
  append_part(key, text::trim(id.peer.id));
  append_part(key, text::trim(id.thread_id));
  append_part(key, message);
  return key;
}

bool InboundDedupe::expired(const Entry& e, std::int64_t now) const {
  return ttl_ms_ > 0 && now - e.seen_at_ms >= ttl_ms_;
}

void InboundDedupe::prune(std::int64_t now) {
  // Entries are ordered by last sighting, so the expired ones are at the front.
  while (!order_.empty() && expired(order_.front(), now)) {
    index_.erase(order_.front().key);
    order_.pop_front();
  }
  while (order_.size() > max_entries_) {
    index_.erase(order_.front().key);
    order_.pop_front();
  }
}

bool InboundDedupe::seen(const InboundMessageId& id) {
  std::string key = key_of(id);
  if (key.empty()) return false;
  const std::int64_t now = clock_.steady_ms();
  prune(now);
  if (const auto it = index_.find(key); it != index_.end()) {
    it->second->seen_at_ms = now;
    order_.splice(order_.end(), order_, it->second);
    return true;
  }
  if (max_entries_ == 0) return false;
  order_.push_back(Entry{key, now});
  index_.emplace(std::move(key), std::prev(order_.end()));
  prune(now);
  return false;
}

bool InboundDedupe::peek(const InboundMessageId& id) const {
  const std::string key = key_of(id);
  if (key.empty()) return false;
  const auto it = index_.find(key);
  return it != index_.end() && !expired(*it->second, clock_.steady_ms());
}

void InboundDedupe::clear() {
  order_.clear();
  index_.clear();
}

}  // namespace pincer::routing
