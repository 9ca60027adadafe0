#include "channels/pairing_store.h"

#include <algorithm>
#include <cctype>

#include <sodium.h>

#include "store/atomic_file.h"

namespace pincer::channels {

using nlohmann::json;

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// 8 characters from an alphabet without look-alikes (0/O, 1/I/L).
std::string new_code() {
  static constexpr char kAlphabet[] = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
  std::string code;
  for (int i = 0; i < 8; ++i) code += kAlphabet[randombytes_uniform(sizeof(kAlphabet) - 1)];
  return code;
}

PendingPairing from_json(const json& j) {
  const int64_t created = j.value("createdAt", int64_t{0});
  return {j.value("channel", ""), j.value("account", ""), j.value("senderId", ""), j.value("username", ""),
          j.value("code", ""), created, j.value("origin", ""), j.value("notifiedAt", created)};
}

}  // namespace

json to_json(const PendingPairing& p) {
  json j = {{"channel", p.channel}, {"account", p.account_id}, {"senderId", p.sender_id},
            {"username", p.username}, {"code", p.code}, {"createdAt", p.created_at_ms}};
  if (!p.origin.empty()) j["origin"] = p.origin;
  if (p.notified_at_ms != 0 && p.notified_at_ms != p.created_at_ms) j["notifiedAt"] = p.notified_at_ms;
  return j;
}

json PairingStore::read() const {
  auto text = store::read_file(file_);
  json doc = text ? json::parse(*text, nullptr, false) : json::object();
  if (!doc.is_object()) doc = json::object();
  if (!doc.contains("pending") || !doc["pending"].is_array()) doc["pending"] = json::array();
  if (!doc.contains("approved") || !doc["approved"].is_object()) doc["approved"] = json::object();
  return doc;
}

Status PairingStore::write(const json& doc) const {
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  return store::write_file_atomic(file_, doc.dump(2) + "\n", 0600);
}

std::vector<std::string> PairingStore::approved(const std::string& channel, const std::string& account_id) const {
  json doc = read();
  std::vector<std::string> out;
  for (const auto& id : doc["approved"].value(channel + ":" + account_id, json::array())) {
    if (id.is_string()) out.push_back(id.get<std::string>());
  }
  return out;
}

std::vector<PendingPairing> PairingStore::pending(int64_t now_ms) const {
  std::vector<PendingPairing> out;
  const json doc = read();  // keep the document alive while iterating it
  for (const auto& p : doc["pending"]) {
    auto pp = from_json(p);
    if (now_ms - pp.created_at_ms < kPairingTtlMs) out.push_back(std::move(pp));
  }
  return out;
}

Result<PairingRequest> PairingStore::request(const std::string& channel, const std::string& account_id,
                                             const std::string& sender_id, const std::string& username, int64_t now_ms,
                                             const std::string& origin, bool asked) {
  json doc = read();
  json live = json::array();
  std::size_t same_account = 0;
  std::optional<std::size_t> existing;  ///< index in `live`
  bool origin_busy = false;
  for (const auto& p : doc["pending"]) {
    auto pp = from_json(p);
    if (now_ms - pp.created_at_ms >= kPairingTtlMs) continue;  // expired
    if (pp.channel == channel && pp.account_id == account_id) {
      ++same_account;
      if (pp.sender_id == sender_id) existing = live.size();
      else if (!origin.empty() && pp.origin == origin) origin_busy = true;
    }
    live.push_back(p);
  }
  const bool expired_dropped = live.size() != doc["pending"].size();
  if (existing) {
    PairingRequest r{from_json(live[*existing]), false, false};
    const int64_t interval = asked ? kPairingAskResendMs : kPairingResendMs;
    r.notify = now_ms - r.pending.notified_at_ms >= interval;
    if (r.notify) {
      r.pending.notified_at_ms = now_ms;
      live[*existing] = to_json(r.pending);
    }
    if (r.notify || expired_dropped) {
      doc["pending"] = live;
      if (auto st = write(doc); !st) return st.error();
    }
    return r;
  }
  if (origin_busy) {
    return Error{"PAIRING_ORIGIN_BUSY", "a pairing request from " + origin + " already waits on " + channel + ":" + account_id};
  }
  if (same_account >= kPairingMaxPending) {
    return Error{"PAIRING_FULL", "too many pending pairing requests on " + channel + ":" + account_id};
  }
  const PendingPairing p{channel, account_id, sender_id, username, new_code(), now_ms, origin, now_ms};
  live.push_back(to_json(p));
  doc["pending"] = live;
  if (auto st = write(doc); !st) return st.error();
  return PairingRequest{p, true, true};
}

Result<PendingPairing> PairingStore::resolve(const std::string& channel, const std::string& code, int64_t now_ms, bool approve) {
  json doc = read();
  json keep = json::array();
  std::optional<PendingPairing> found;
  for (const auto& p : doc["pending"]) {
    auto pp = from_json(p);
    if (now_ms - pp.created_at_ms >= kPairingTtlMs) continue;
    if (!found && pp.channel == channel && upper(pp.code) == upper(code)) {
      found = pp;
      continue;
    }
    keep.push_back(p);
  }
  if (!found) return Error{"NOT_FOUND", "no pending pairing request with code " + code + " on " + channel};
  doc["pending"] = keep;
  if (approve) {
    json& list = doc["approved"][found->channel + ":" + found->account_id];
    if (!list.is_array()) list = json::array();
    if (std::find(list.begin(), list.end(), found->sender_id) == list.end()) list.push_back(found->sender_id);
  }
  if (auto st = write(doc); !st) return st.error();
  return *found;
}

Result<PendingPairing> PairingStore::approve(const std::string& channel, const std::string& code, int64_t now_ms) {
  return resolve(channel, code, now_ms, true);
}

Result<PendingPairing> PairingStore::reject(const std::string& channel, const std::string& code, int64_t now_ms) {
  return resolve(channel, code, now_ms, false);
}

}  // namespace pincer::channels
