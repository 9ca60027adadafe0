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

/// Hex SHA-256 of the length-prefixed parts.
std::string webhook_dedupe_hash(std::initializer_list<std::string_view> parts) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  for (std::string_view part : parts) {
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

bool webhook_dedupe_is_hex_id(const std::string& id) {
  return id.size() == 64 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}
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
    // Ids name reply files: only what identity() makes is taken.
    if (index_.count(id) || !webhook_dedupe_is_hex_id(id)) continue;
    const auto answer = e.find("answer");
    const auto replied = e.find("replied");
    order_.push_back({id, e["at"].get<int64_t>(), answer != e.end() && answer->is_string() ? answer->get<std::string>() : "",
                      replied != e.end() && replied->is_boolean() && replied->get<bool>()});
    index_[id] = std::prev(order_.end());
  }
  while (index_.size() > routing::kInboundDedupeMaxEntries) drop(order_.begin());
}

std::string MessageIdRecord::identity(std::string_view sender, std::string_view conversation, std::string_view message_id) {
  if (message_id.empty()) return "";
  return webhook_dedupe_hash({sender, conversation, message_id});
}

std::string MessageIdRecord::answer_key(std::string_view conversation, std::string_view message_id) {
  if (message_id.empty()) return "";
  return webhook_dedupe_hash({"answer", conversation, message_id});
}

std::filesystem::path MessageIdRecord::reply_file(const std::string& id) const {
  return file_.parent_path() / (file_.stem().string() + ".replies") / (id + ".json");
}

void MessageIdRecord::drop(std::list<Entry>::iterator it) {
  if (it->replied && !file_.empty()) {
    std::error_code ec;
    std::filesystem::remove(reply_file(it->id), ec);
  }
  replies_.erase(it->id);
  index_.erase(it->id);
  order_.erase(it);
}

void MessageIdRecord::prune(int64_t now_s) {
  // Entries are in the order they were recorded, so the expired ones are at the front.
  while (!order_.empty() && (order_.front().at_s + kTtlS < now_s || index_.size() >= routing::kInboundDedupeMaxEntries)) {
    drop(order_.begin());
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
  for (const auto& e : order_) {
    json entry = {{"id", e.id}, {"at", e.at_s}};
    if (!e.answer.empty()) entry["answer"] = e.answer;
    if (e.replied) entry["replied"] = true;
    list.push_back(std::move(entry));
  }
  return store::write_file_atomic(file_, json{{"seen", list}}.dump() + "\n", 0600);
}

Status MessageIdRecord::record(const std::string& id, int64_t now_s, const std::string& answer) {
  if (id.empty()) return Ok{};
  if (auto it = index_.find(id); it != index_.end()) drop(it->second);  // expired: recorded anew
  prune(now_s);
  order_.push_back({id, now_s, answer});
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
  drop(it->second);
  if (auto st = save(); !st) spdlog::warn("webhook: messageId record {}: {}", file_.string(), st.error().message);
}

std::string MessageIdRecord::awaiting_reply(const std::string& answer) const {
  if (answer.empty()) return "";
  for (const auto& e : order_) {
    if (e.answer == answer && !e.replied) return e.id;
  }
  return "";
}

Status MessageIdRecord::store_reply(const std::string& id, const std::string& conversation, const std::string& reply) {
  auto it = index_.find(id);
  if (it == index_.end()) return Error{"NOT_FOUND", "no message " + id + " in the messageId record"};
  replies_[id] = {conversation, reply};
  it->second->replied = true;
  if (file_.empty()) return Ok{};
  // The reply's file first: a record that says "replied" always has it.
  if (auto st = store::write_file_atomic(reply_file(id), json{{"conversationId", conversation}, {"reply", reply}}.dump() + "\n", 0600);
      !st) {
    it->second->replied = false;
    return st;
  }
  return save();
}

std::optional<MessageIdRecord::StoredReply> MessageIdRecord::reply(const std::string& id) const {
  if (auto r = replies_.find(id); r != replies_.end()) return r->second;
  auto it = index_.find(id);
  if (it == index_.end() || !it->second->replied || file_.empty()) return std::nullopt;
  auto text = store::read_file(reply_file(id), 8u << 20);
  if (!text) {
    spdlog::warn("webhook: the stored reply {}: {}", reply_file(id).string(), text.error().message);
    return std::nullopt;
  }
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("reply") || !doc["reply"].is_string()) {
    spdlog::warn("webhook: the stored reply {} is not {{\"conversationId\", \"reply\"}}", reply_file(id).string());
    return std::nullopt;
  }
  StoredReply out{doc.value("conversationId", ""), doc["reply"].get<std::string>()};
  replies_[id] = out;
  return out;
}

}  // namespace pincer::channels::webhook
