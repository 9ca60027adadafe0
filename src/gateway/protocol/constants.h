// Protocol constants of the OpenClaw gateway wire protocol that Pincer speaks
// (../shared/research/openclaw-protocol.md §1.1, §1.8; GW-2, GW-3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pincer::gateway {

/// Protocol versions we negotiate (OpenClaw baseline v3, current upstream v4).
inline constexpr int kMinProtocol = 3;
inline constexpr int kMaxProtocol = 4;

/// Largest accepted WebSocket message after the handshake (MAX_PAYLOAD_BYTES, 25 MiB).
inline constexpr std::size_t kMaxPayloadBytes = 25u * 1024 * 1024;
/// A size for people: "25 MiB", "30.4 MiB", "64 KiB", "512 bytes".
inline std::string byte_size_text(std::size_t n) {
  if (n < 1024) return std::to_string(n) + " bytes";
  char text[48];
  const bool mib = n >= 1024 * 1024;
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(n) / (mib ? 1024.0 * 1024.0 : 1024.0));
  std::string s = text;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + (mib ? " MiB" : " KiB");
}
/// "the message is 30 MiB; the gateway accepts at most 25 MiB per message" — what a client and
/// the gateway's log say of a message over `limit` bytes.
inline std::string message_too_large(std::size_t bytes, std::size_t limit = kMaxPayloadBytes) {
  return "the message is " + byte_size_text(bytes) + "; the gateway accepts at most " + byte_size_text(limit) +
         " per message";
}
/// After `connect`, a message over kMaxPayloadBytes but within this is read to its end without
/// being kept and answered with an INVALID_REQUEST error naming both sizes (or, when its request id
/// is not among its first bytes, a close 1009 with that text); a larger one closes the socket 1009
/// mid-message.
inline constexpr std::size_t kMaxDrainedMessageBytes = 4 * kMaxPayloadBytes;
/// Largest message accepted before `hello-ok` (upstream pre-connect cap, 64 KiB).
inline constexpr std::size_t kMaxPreConnectBytes = 64u * 1024;
/// Per-connection send-buffer limit (MAX_BUFFERED_BYTES, 50 MiB): beyond it, droppable events are
/// skipped and anything else closes the socket with 1008 "slow consumer".
inline constexpr std::size_t kMaxBufferedBytes = 50u * 1024 * 1024;
/// `tick` event period (TICK_INTERVAL_MS) in ms.
inline constexpr int64_t kTickIntervalMs = 30'000;
/// Time a client has to complete `connect` after the socket opens (DEFAULT_HANDSHAKE_TIMEOUT_MS).
inline constexpr int64_t kHandshakeTimeoutMs = 10'000;
/// WebSocket ping period in ms (observed on the wire: 25 s).
inline constexpr int64_t kPingIntervalMs = 25'000;
/// Appended to "cannot listen on host:port: Address already in use" (gateway run's probe and the server).
inline constexpr const char* kPortInUseHint =
    " (another process has this port: stop it, or choose another with --port N, PINCER_GATEWAY_PORT or gateway.port)";
/// Presence changes are coalesced into at most one `presence` event per this many ms.
inline constexpr int64_t kPresenceFlushMs = 250;
/// Health snapshot refresh period (HEALTH_REFRESH_INTERVAL_MS).
inline constexpr int64_t kHealthRefreshMs = 60'000;
/// Oldest health snapshot the `health` method answers with before rebuilding it (ms).
inline constexpr int64_t kHealthMaxAgeMs = 1000;
/// Idempotency cache: entry lifetime and capacity (DEDUPE_TTL_MS, DEDUPE_MAX).
inline constexpr int64_t kIdempotencyTtlMs = 300'000;
inline constexpr std::size_t kIdempotencyMaxEntries = 1000;
/// Control-plane write budget: calls per window per client (control-plane-rate-limit, GW-8).
inline constexpr int kWriteBudgetCalls = 3;
inline constexpr int64_t kWriteBudgetWindowMs = 60'000;
/// Close reasons are cut to this many bytes (close-reason.ts).
inline constexpr std::size_t kMaxCloseReasonBytes = 120;
/// Consecutive role-denied calls after which a socket is closed (unauthorized-flood-guard).
inline constexpr int kUnauthorizedFloodLimit = 10;

/// WebSocket close codes used by the gateway (§1.10).
enum CloseCode : uint16_t {
  kCloseNormal = 1000,
  kCloseGoingAway = 1001,      ///< gateway stopping for good (SIGTERM, SIGINT, SIGHUP)
  kCloseProtocolError = 1002,  ///< protocol version mismatch
  kClosePolicy = 1008,         ///< auth, invalid handshake, slow consumer, flood
  kCloseTooBig = 1009,         ///< a message over the connection's limit
  kCloseServiceRestart = 1012, ///< gateway restarting in process (SIGUSR1, config reload)
};

}  // namespace pincer::gateway
