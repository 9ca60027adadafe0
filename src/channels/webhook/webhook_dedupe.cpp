#include "channels/webhook/webhook_dedupe.h"

#include <sodium.h>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "routing/dedupe.h"
#include "store/atomic_file.h"

namespace pincer::channels::webhook {

using nlohmann::json;

namespace {
constexpr int64_t kTtlS = routing::kInboundDedupeTtlMs / 1000;
}  // namespace

MessageIdRecord::MessageIdRecord(std::filesystem::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  auto text = store::read_file(file_, 4u << 20);
  if (!text) {
    if (text.error().code != "NOT_FOUND") spdlog::warn("webhook: messageId record {} unreadable: {}", file_.string(), text.error().message);
    return;
  }
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("seen") || !doc["seen"].is_array()) {
    spdlog::warn("webhook: messageId record {} is not {{\"seen\":[…]}}; starting empty", file_.string());
    return;
  }
  for (const auto& e : doc["seen"]) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string() || !e.contains("at") || !e["at"].is_number_integer()) continue;
    const std::string id = e["id"].get<std::string>();
    if (index_.count(id)) continue;
    order_.push_back({id, e["at"].get<int64_t>()});
    index_[id] = std::prev(order_.end());
  }
  while (index_.size() > routing::kInboundDedupeMaxEntries) {
    index_.erase(order_.front().id);
    order_.pop_front();
  }
}

std::string MessageIdRecord::identity(std::string_view sender, std::string_view conversation, std::string_view message_id) {
  if (message_id.empty()) return "";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  for (std::string_view part : {sender, conversation, message_id}) {
    const std::string len = std::to_string(part.size()) + ":";
    crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(len.data()), len.size());
    crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&st, out);
  char hex[sizeof out * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, out, sizeof out);
  return hex;
}

void MessageIdRecord::prune(int64_t now_s) {
  // Entries are in the order they were recorded, so the expired ones are at the front.
  while (!order_.empty() && (order_.front().at_s + kTtlS < now_s || index_.size() >= routing::kInboundDedupeMaxEntries)) {
    index_.erase(order_.front().id);
    order_.pop_front();
  }
}

bool MessageIdRecord::seen(const std::string& id, int64_t now_s) {
  if (id.empty()) return false;
  auto it = index_.find(id);
  return it != index_.end() && it->second->at_s + kTtlS >= now_s;
}

Status MessageIdRecord::save() const {
  if (file_.empty()) return Ok{};
  json list = json::array();
  for (const auto& e : order_) list.push_back({{"id", e.id}, {"at", e.at_s}});
  return store::write_file_atomic(file_, json{{"seen", list}}.dump() + "\n", 0600);
}

Status MessageIdRecord::record(const std::string& id, int64_t now_s) {
  if (id.empty()) return Ok{};
  if (auto it = index_.find(id); it != index_.end()) {  // expired: recorded anew
    order_.erase(it->second);
    index_.erase(it);
  }
  prune(now_s);
  order_.push_back({id, now_s});
  index_[id] = std::prev(order_.end());
  if (auto st = save(); !st) {
    forget(id);
    return st;
  }
  return Ok{};
}

void MessageIdRecord::forget(const std::string& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  order_.erase(it->second);
  index_.erase(it);
  if (auto st = save(); !st) spdlog::warn("webhook: messageId record {}: {}", file_.string(), st.error().message);
}

}  // namespace pincer::channels::webhook
