// Provider failure classification (PV-4): every failed model call becomes exactly one
// FailoverReason of a closed set, a one-line message for the user, and a retry decision. The agent
// runner uses the reason to choose between retrying the same model, rotating auth profiles,
// falling back to another model, compacting (context_overflow) or giving up.
//
// Classification order (first match wins), following OpenClaw's failover-error.ts / errors.ts:
//   1. HTTP status: 402 billing; 429 rate_limit (billing when the body says the quota/credits are
//      exhausted, e.g. OpenAI "insufficient_quota"); 401/403 auth, or auth_permanent when the body
//      says the key is invalid/revoked/disabled/deactivated or permission_error / "not allowed for
//      this organization"; 408 timeout; 400 format, unless the body says context overflow
//      (context_overflow), credits exhausted (billing) or unknown model (model_not_found);
//      404 model_not_found; 410 session_expired; 413 context_overflow; 422 format;
//      503 and 529 overloaded (PV-4); other 5xx (500/502/504/521/…) timeout, unless the body says
//      context overflow.
//   2. Provider error codes/types in the JSON body ({error:{type|code|status}}, {type}), e.g.
//      rate_limit_error, overloaded_error (overloaded), UNAVAILABLE (overloaded), insufficient_quota, context_length_exceeded,
//      invalid_api_key, authentication_error, not_found_error, api_error.
//   3. Transport errors (classify_transport): the provider could not be reached — ECONNREFUSED,
//      EHOSTUNREACH, ENETUNREACH, ENETDOWN, DNS failures → network (OpenClaw has no separate
//      reason and calls these "timeout": the log and the user would read "did not answer in time"
//      for a server that is not running; network is retried and failed over exactly like
//      timeout); timeouts and connections cut (ETIMEDOUT, ECONNRESET, EPIPE …) → timeout; the
//      cause names which ("connection refused (ECONNREFUSED)", "could not resolve host");
//      TLS certificate failures → unknown.
//   4. Message heuristics on the provider's message, in OpenClaw's order: image size → format;
//      session expired; model not found; transient HTTP (bad gateway …) → timeout; internal API
//      error → timeout; billing phrases that mention the quota; rate limit and usage-limit or
//      credential-cooldown phrases → rate_limit; overloaded / "high demand" / "service
//      unavailable" → overloaded; context overflow; format; billing; connection refused / host
//      not found → network; timeout ("deadline exceeded", "connection reset", "network error");
//      permanent auth; auth (also missing scopes / permissions).
//   Anything else is unknown.
//
// Errors that arrive as text only (an in-stream error event, a 200 whose body is an error object:
// classify_error_body) go through stages 2 and 4 like an HTTP body.
//
// Retry: rate_limit, overloaded, timeout and network are retryable (same model, after backoff_ms); every other reason
// is not (fail over or report instead).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "llm/messages.h"

namespace pincer::llm {

enum class FailoverReason {
  Billing,          ///< "billing": out of credits / quota (HTTP 402)
  RateLimit,        ///< "rate_limit": throttled (429), or out of a usage allowance for now
  Overloaded,       ///< "overloaded": the provider is busy for everyone (503, 529, "high demand")
  Auth,             ///< "auth": credentials rejected, maybe recoverable (401/403)
  AuthPermanent,    ///< "auth_permanent": key invalid, revoked or disabled
  Timeout,          ///< "timeout": timed out, connection cut (408, 504, 522, 524)
  ServerError,      ///< "server_error": the provider failed on its side (500, 502 and other 5xx; OpenClaw's)
  Network,          ///< "network": could not connect (refused, host/network unreachable, DNS)
  Format,           ///< "format": the request was rejected as malformed (400)
  ModelNotFound,    ///< "model_not_found" (404)
  SessionExpired,   ///< "session_expired" (410)
  ContextOverflow,  ///< "context_overflow": the prompt does not fit the context window
  Unknown,          ///< "unknown"
};

/// "billing", "rate_limit", "overloaded", "auth", "auth_permanent", "timeout", "server_error", "network", "format",
/// "model_not_found", "session_expired", "context_overflow", "unknown".
std::string_view to_string(FailoverReason reason);
std::optional<FailoverReason> failover_reason_from_string(std::string_view s);

/// One classified provider failure.
struct ProviderFailure {
  FailoverReason reason = FailoverReason::Unknown;
  int http_status = 0;  ///< 0 when there was no HTTP response (transport/stream errors)
  /// One clear line for the user, e.g. "mock/mock-model: rate limited (HTTP 429), retry in 2 s";
  /// the provider's own message is appended (single line, ≤ 300 bytes) when it has one; HTML
  /// bodies are never quoted.
  std::string message;
  /// What actually happened, short, for logs: "HTTP 503 (overloaded)", "connection refused
  /// (ECONNREFUSED)", "response cut off" — `reason` is the failover class, which groups several
  /// causes (a 503 and a cut-off stream are both "timeout").
  std::string cause;
  std::optional<int64_t> retry_after_ms;  ///< from Retry-After or a "try again in Ns" hint
  bool retryable = false;
};

/// Classifies a non-2xx HTTP response. `body` is the response body (JSON or not, possibly empty);
/// `retry_after_header` the Retry-After header value ("" when absent): delay-seconds or HTTP-date.
ProviderFailure classify_http(const ModelSpec& model, int status, std::string_view body,
                              std::string_view retry_after_header);
/// Same, with the current wall-clock time (ms since epoch) used for an HTTP-date Retry-After.
ProviderFailure classify_http(const ModelSpec& model, int status, std::string_view body,
                              std::string_view retry_after_header, int64_t now_ms);

/// Classifies a request that got no HTTP response. `sys_errno_or_0` is the OS error when known;
/// `what` the transport's description (e.g. curl's "Could not resolve host: x"); `timed_out` when
/// the client's own deadline expired.
ProviderFailure classify_transport(const ModelSpec& model, int sys_errno_or_0, std::string_view what,
                                   bool timed_out);

/// Classifies a 2xx response whose body is an error object instead of the expected stream
/// ({"error": {...}} or {"type": "error", ...}), as some proxies and gateways answer. nullopt when
/// `body` is not such an object (then the decoder's own error stands).
std::optional<ProviderFailure> classify_error_body(const ModelSpec& model, std::string_view body);

/// Classifies a StreamDecoder error: PROVIDER_STREAM_ERROR by its message ("type: message"),
/// PROVIDER_STREAM_INCOMPLETE as timeout (connection cut), anything else as unknown.
ProviderFailure classify_stream_error(const ModelSpec& model, const Error& error);

/// Milliseconds to wait before retry number `attempt` (1-based), or 0 = do not retry. Honours
/// retry_after_ms (up to kMaxRetryAfterMs; longer waits return 0 so the caller fails over);
/// otherwise 500 ms doubling per attempt, capped at 30 s, with "equal jitter" (half fixed, half
/// random). Not retryable failures and attempts beyond kMaxRetryAttempts return 0.
int64_t backoff_ms(int attempt, const ProviderFailure& failure);
/// Same with the jitter given (0..1) instead of random — for tests.
int64_t backoff_ms(int attempt, const ProviderFailure& failure, double jitter);

inline constexpr int kMaxRetryAttempts = 6;  ///< 0.5 + 1 + 2 + 4 + 8 + 16 s at most (before jitter)
inline constexpr int64_t kMaxRetryAfterMs = 60'000;
inline constexpr int64_t kBackoffBaseMs = 500;
inline constexpr int64_t kBackoffCapMs = 30'000;

/// Parses a Retry-After value: delay-seconds (fractions accepted) or an IMF-fixdate HTTP-date
/// ("Sun, 06 Nov 1994 08:49:37 GMT") relative to `now_ms`. nullopt when unparseable; a date in the
/// past gives 0.
std::optional<int64_t> parse_retry_after(std::string_view value, int64_t now_ms);

}  // namespace pincer::llm
