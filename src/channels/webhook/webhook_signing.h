// The webhook channel's wire security (issue 22 §8): signatures bound to a timestamp, a replay
// guard that survives restarts, and a callback key that is not the inbound key.
//
// Inbound request: headers `X-Pincer-Timestamp: <Unix time, seconds, decimal digits>` and
// `X-Pincer-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`. The timestamp
// must be within ±kWebhookWindowS of the gateway's clock, and each signature is accepted once:
// a replay inside the window is refused, one outside it is stale.
//
// Callback (mode "callback"): the same two headers, signed with the callback key
// hex(HMAC-SHA256(secret, "pincer-webhook-callback")) — 64 lowercase hex characters used as the
// HMAC key text — so a captured callback never verifies as an inbound request.
//
// Pure functions are thread-safe; ReplayGuard is owned by one channel on the event loop (its
// writes are small, atomic and synchronous: temp file + fsync + rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace pincer::channels::webhook {

/// How far a request's timestamp may be from the gateway's clock, seconds (either way).
inline constexpr int64_t kWebhookWindowS = 300;
/// Signatures remembered at most (each for its window): over that, new requests wait (429).
inline constexpr std::size_t kReplayMaxEntries = 4096;
/// The label the callback key is derived with.
inline constexpr std::string_view kCallbackKeyLabel = "pincer-webhook-callback";

/// "sha256=<hex>" of HMAC-SHA256(key, "<timestamp>.<body>").
std::string signature(std::string_view key, std::string_view timestamp, std::string_view body);
/// Constant-time check of a signature header value (hex case-insensitive) against the timestamp
/// and body.
bool signature_valid(std::string_view key, std::string_view timestamp, std::string_view body, std::string_view header_value);
/// The key callbacks are signed with: hex(HMAC-SHA256(secret, kCallbackKeyLabel)).
std::string callback_key(std::string_view secret);
/// The timestamp header's value as seconds, or nullopt unless it is 1–12 decimal digits.
std::optional<int64_t> parse_timestamp(std::string_view header_value);

/// The signatures accepted within the window, persisted in `file` as
/// {"seen":[{"sig":"<hex>","ts":<seconds>}, …]} (0600), so a request replayed after a restart is
/// still refused. Entries leave once their timestamp is out of the window.
class ReplayGuard {
 public:
  /// Loads `file` ("" = memory only). An unreadable or malformed file is logged and ignored.
  explicit ReplayGuard(std::filesystem::path file);

  enum class Verdict { Fresh, Replayed, Full };
  /// Records signature `sig` of a request stamped `ts` (seconds), at wall time `now` (seconds),
  /// before the request is acted on. Replayed: seen before; Full: kReplayMaxEntries live entries.
  /// Errors: "IO_ERROR" when the record cannot be written (the request must then be refused:
  /// it could be replayed after a restart); nothing is remembered then.
  Result<Verdict> admit(const std::string& sig, int64_t ts, int64_t now);

  std::size_t size() const { return seen_.size(); }

 private:
  void prune(int64_t now);

  std::filesystem::path file_;
  std::map<std::string, int64_t> seen_;  ///< signature hex → its timestamp (s)
};

}  // namespace pincer::channels::webhook
