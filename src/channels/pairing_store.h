// Channel pairing (SPEC CH-3): an unknown sender's direct message under `dmPolicy: "pairing"`
// gets a short code; the owner approves it with `pincer pairing approve <channel> <code>`, after
// which the sender is allowed like an `allowFrom` entry. State: `<state>/channels/pairing.json`
//   {"pending":[{"channel","account","senderId","username","code","createdAt"}],
//    "approved":{"<channel>:<account>":["<senderId>", …]}}
// written atomically (0600). The gateway and the CLI both edit it; each re-reads before a change.
// Pending codes expire after 1 hour (OpenClaw PAIRING_PENDING_TTL_MS); at most 3 pending per
// channel account (OpenClaw PAIRING_PENDING_MAX).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::channels {

inline constexpr int64_t kPairingTtlMs = 60 * 60 * 1000;
inline constexpr std::size_t kPairingMaxPending = 3;

struct PendingPairing {
  std::string channel, account_id, sender_id, username, code;
  int64_t created_at_ms = 0;
};

class PairingStore {
 public:
  explicit PairingStore(std::filesystem::path file) : file_(std::move(file)) {}

  /// Approved sender ids of one channel account.
  std::vector<std::string> approved(const std::string& channel, const std::string& account_id) const;
  /// The pending request of this sender (existing or new). Errors: "PAIRING_FULL" when the
  /// account already has kPairingMaxPending live requests; "IO_ERROR".
  Result<PendingPairing> request(const std::string& channel, const std::string& account_id, const std::string& sender_id,
                                 const std::string& username, int64_t now_ms);
  /// Live pending requests (expired ones dropped).
  std::vector<PendingPairing> pending(int64_t now_ms) const;
  /// Approves / rejects by code (case-insensitive). Errors: "NOT_FOUND", "IO_ERROR".
  Result<PendingPairing> approve(const std::string& channel, const std::string& code, int64_t now_ms);
  Result<PendingPairing> reject(const std::string& channel, const std::string& code, int64_t now_ms);

 private:
  nlohmann::json read() const;
  Status write(const nlohmann::json& doc) const;
  Result<PendingPairing> resolve(const std::string& channel, const std::string& code, int64_t now_ms, bool approve);

  std::filesystem::path file_;
};

nlohmann::json to_json(const PendingPairing& p);

}  // namespace pincer::channels
