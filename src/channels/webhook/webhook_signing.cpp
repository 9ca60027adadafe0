#include "channels/webhook/webhook_signing.h"

#include <sodium.h>

#include <cctype>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "store/atomic_file.h"

namespace pincer::channels::webhook {

using nlohmann::json;

namespace {

std::string hmac_hex(std::string_view key, std::string_view a, std::string_view b = {}, std::string_view c = {}) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  for (std::string_view part : {a, b, c}) {
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[sizeof mac * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

}  // namespace

std::string signature(std::string_view key, std::string_view timestamp, std::string_view body) {
  return "sha256=" + hmac_hex(key, timestamp, ".", body);
}

bool signature_valid(std::string_view key, std::string_view timestamp, std::string_view body, std::string_view header_value) {
  const std::string expected = signature(key, timestamp, body);
  std::string given(header_value);
  for (auto& c : given) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return given.size() == expected.size() && sodium_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

std::string callback_key(std::string_view secret) { return hmac_hex(secret, kCallbackKeyLabel); }

std::optional<int64_t> parse_timestamp(std::string_view v) {
  if (v.empty() || v.size() > 12) return std::nullopt;
  int64_t out = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    out = out * 10 + (c - '0');
  }
  return out;
}

ReplayGuard::ReplayGuard(std::filesystem::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  auto text = store::read_file(file_, 4u << 20);
  if (!text) {
    if (text.error().code != "NOT_FOUND") spdlog::warn("webhook: replay record {} unreadable: {}", file_.string(), text.error().message);
    return;
  }
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("seen") || !doc["seen"].is_array()) {
    spdlog::warn("webhook: replay record {} is not {{\"seen\":[…]}}; starting empty", file_.string());
    return;
  }
  for (const auto& e : doc["seen"]) {
    if (!e.is_object() || !e.contains("sig") || !e["sig"].is_string() || !e.contains("ts") || !e["ts"].is_number_integer()) continue;
    if (seen_.size() >= kReplayMaxEntries) break;
    seen_[e["sig"].get<std::string>()] = e["ts"].get<int64_t>();
  }
}

void ReplayGuard::prune(int64_t now) {
  std::erase_if(seen_, [now](const auto& kv) { return kv.second + kWebhookWindowS < now; });
}

Result<ReplayGuard::Verdict> ReplayGuard::admit(const std::string& sig, int64_t ts, int64_t now) {
  prune(now);
  if (seen_.count(sig)) return Verdict::Replayed;
  if (seen_.size() >= kReplayMaxEntries) return Verdict::Full;
  seen_[sig] = ts;
  if (!file_.empty()) {
    json list = json::array();
    for (const auto& [s, t] : seen_) list.push_back({{"sig", s}, {"ts", t}});
    if (auto st = store::write_file_atomic(file_, json{{"seen", list}}.dump() + "\n", 0600); !st) {
      seen_.erase(sig);
      return st.error();
    }
  }
  return Verdict::Fresh;
}

}  // namespace pincer::channels::webhook
