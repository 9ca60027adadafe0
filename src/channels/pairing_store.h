// Channel pairing (SPEC CH-3): an unknown sender's direct message under `dmPolicy: "pairing"`
// gets a short code; the owner approves it with `pincer pairing approve <channel> <code>`, after
// which the sender is allowed like an `allowFrom` entry. State: `<state>/channels/pairing.json`
//   {"pending":[{"channel","account","senderId","username","code","createdAt","origin"?,"notifiedAt"?}],
//    "approved":{"<channel>:<account>":["<senderId>", …]}}
// written atomically (0600). The gateway and the CLI both edit it; each re-reads before a change.
// Pending codes expire after 1 hour (OpenClaw PAIRING_PENDING_TTL_MS); at most 3 pending per
// channel account (OpenClaw PAIRING_PENDING_MAX).
//
// Flood limits (issue 22 §11): one request per sender, and one per origin — where a sender can
// mint new ids for free (an IRC nick change), the channel names where it connects from (the host
// of nick!user@host), so one host cannot fill the account's three slots; the code is sent when the
// request is made and again only after kPairingResendMs (kPairingAskResendMs when the sender asks
// with /start or /pair), never once per message.
#pragma once
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::channels {

inline constexpr int64_t kPairingTtlMs = 60 * 60 * 1000;
inline constexpr std::size_t kPairingMaxPending = 3;
/// A sender who keeps writing gets the code again at most this often…
inline constexpr int64_t kPairingResendMs = 10 * 60 * 1000;
/// …or this often when the message asks for it (/start, /pair).
inline constexpr int64_t kPairingAskResendMs = 60 * 1000;

struct PendingPairing {
  std::string channel, account_id, sender_id, username, code;
  int64_t created_at_ms = 0;
  std::string origin;         ///< where the sender connects from ("" = not known / not needed)
  int64_t notified_at_ms = 0;  ///< when the code was last sent (0 = created_at_ms)
};

/// What request() did.
struct PairingRequest {
  PendingPairing pending;
  bool created = false;  ///< a new request (the code is new)
  bool notify = false;   ///< send the code now: new, or the resend interval has passed
};

class PairingStore {
 public:
  explicit PairingStore(std::filesystem::path file) : file_(std::move(file)) {}

  /// Approved sender ids of one channel account.
  std::vector<std::string> approved(const std::string& channel, const std::string& account_id) const;
  /// The pending request of this sender (existing or new), and whether to send its code now (see
  /// the flood limits above; `asked`: the message asks for the code). `origin` ("" = none): a
  /// new request is refused while another sender of the same origin has one. Errors:
  /// "PAIRING_FULL" when the account already has kPairingMaxPending live requests,
  /// "PAIRING_ORIGIN_BUSY" when the origin has one; "IO_ERROR".
  Result<PairingRequest> request(const std::string& channel, const std::string& account_id, const std::string& sender_id,
                                 const std::string& username, int64_t now_ms, const std::string& origin = "",
                                 bool asked = false);
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
