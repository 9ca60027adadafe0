// Provider failure classification; the rules and their order are documented in failover.h (the
// retry timing — Retry-After, "try again in", backoff — is failover_retry.cpp).
#include "llm/failover.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <initializer_list>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/utf8.h"
#include "llm/failover_internal.h"

namespace pincer::llm {

using nlohmann::json;

std::string_view to_string(FailoverReason reason) {
  switch (reason) {
    case FailoverReason::Billing: return "billing";
    case FailoverReason::RateLimit: return "rate_limit";
    case FailoverReason::Overloaded: return "overloaded";
    case FailoverReason::Auth: return "auth";
    case FailoverReason::AuthPermanent: return "auth_permanent";
    case FailoverReason::Timeout: return "timeout";
    case FailoverReason::ServerError: return "server_error";
    case FailoverReason::Network: return "network";
    case FailoverReason::Format: return "format";
    case FailoverReason::ModelNotFound: return "model_not_found";
    case FailoverReason::SessionExpired: return "session_expired";
    case FailoverReason::ContextOverflow: return "context_overflow";
    case FailoverReason::Unknown: return "unknown";
  }
  return "unknown";
}

std::optional<FailoverReason> failover_reason_from_string(std::string_view s) {
  for (auto r : {FailoverReason::Billing, FailoverReason::RateLimit, FailoverReason::Overloaded, FailoverReason::Auth,
                 FailoverReason::AuthPermanent, FailoverReason::Timeout, FailoverReason::ServerError, FailoverReason::Network,
                 FailoverReason::Format,
                 FailoverReason::ModelNotFound, FailoverReason::SessionExpired,
                 FailoverReason::ContextOverflow, FailoverReason::Unknown}) {
    if (to_string(r) == s) return r;
  }
  return std::nullopt;
}

namespace {

using Reason = FailoverReason;
constexpr std::size_t kMaxDetailBytes = 300;

// ---------------------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------------------

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has_any(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return haystack.find(n) != std::string_view::npos; });
}

/// Whitespace runs (incl. line breaks) become one space; trimmed; secrets masked
/// (redact::apply: registered keys and tokens, credential-shaped text — a provider may echo the
/// key it refused); cut to kMaxDetailBytes at a UTF-8 character boundary with "…". Masking
/// happens before the cut, so that a key cut in half cannot escape it. Bytes that are not UTF-8
/// (a proxy's Latin-1 page) become U+FFFD: the message goes into JSON events and platform requests.
std::string one_line(std::string_view raw) {
  const std::string text = utf8::replace_invalid(raw);
  const std::string_view s = text;
  std::string out;
  bool space = false;
  bool bounded = false;
  for (char c : s) {
    // Only the start is ever shown: the patterns run over a bounded text.
    if (out.size() >= 4 * kMaxDetailBytes) {
      bounded = true;
      break;
    }
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '\v' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;  // other control characters
    if (space) out += ' ';
    space = false;
    out += c;
  }
  // At a UTF-8 character boundary at or before `n` (out.size() > n).
  auto cut_at = [&out](std::size_t n) {
    while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
    out.resize(n);
  };
  // A secret cut in half at the bound would escape the masking: drop what could hold one.
  if (bounded) cut_at(out.size() - 256);
  out = redact::apply(out);
  if (out.size() > kMaxDetailBytes) {
    cut_at(kMaxDetailBytes);
    bounded = true;
  }
  if (bounded) out += "\xE2\x80\xA6";  // …
  return out;
}

bool looks_like_html(std::string_view body) {
  const auto start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  const std::string head = lower(body.substr(start, 512));
  return head.front() == '<' || has_any(head, {"<html", "<!doctype", "<body", "<head"});
}

/// What the provider said: its message and its error codes/types (lowercase).
struct BodyInfo {
  std::string message;             ///< provider's message, one line ("" when none or HTML)
  std::vector<std::string> codes;  ///< e.g. "rate_limit_error", "insufficient_quota"
};

void collect_codes(const json& obj, std::vector<std::string>& codes) {
  for (const char* key : {"type", "code", "status"}) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (it->is_string() && !it->get_ref<const std::string&>().empty() && it->get_ref<const std::string&>() != "error") {
      codes.push_back(lower(it->get<std::string>()));
    }
  }
}

BodyInfo read_body(std::string_view body) {
  BodyInfo info;
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    if (!looks_like_html(body)) info.message = one_line(body);
    return info;
  }
  if (j.is_array() && !j.empty()) j = j.front();  // some gateways wrap the error in an array
  if (!j.is_object()) {
    if (j.is_string()) info.message = one_line(j.get<std::string>());
    return info;
  }
  collect_codes(j, info.codes);
  auto err = j.find("error");
  if (err != j.end() && err->is_object()) {
    collect_codes(*err, info.codes);
    // Google: error.details[].reason ("API_KEY_INVALID") says more than status INVALID_ARGUMENT.
    if (auto details = err->find("details"); details != err->end() && details->is_array()) {
      for (const json& d : *details) {
        auto reason = d.is_object() ? d.find("reason") : d.end();
        if (d.is_object() && reason != d.end() && reason->is_string()) info.codes.push_back(lower(reason->get<std::string>()));
      }
    }
    if (auto m = err->find("message"); m != err->end() && m->is_string()) info.message = one_line(m->get<std::string>());
  } else if (err != j.end() && err->is_string()) {
    info.message = one_line(err->get<std::string>());
  }
  for (const char* key : {"message", "detail", "error_description"}) {
    if (!info.message.empty()) break;
    if (auto m = j.find(key); m != j.end() && m->is_string()) info.message = one_line(m->get<std::string>());
  }
  return info;
}

// ---------------------------------------------------------------------------------------------
// Classifiers
// ---------------------------------------------------------------------------------------------

// A credential that will not work again (as OpenClaw 2026.9 tells them apart): revoked, deleted or
// deactivated keys, accounts and workspaces. A key the provider calls "invalid" or "incorrect"
// is not among them: providers and proxies say that of keys that work again (propagation, a
// wrong region, a token the next refresh replaces), so it cools down (auth) instead of being
// disabled for hours.
bool says_permanent_auth(std::string_view t) {
  if (has_any(t, {"key has been disabled", "key has been revoked", "account has been deactivated",
                  "deactivated workspace", "deactivated_workspace", "account_deactivated",
                  "organization_deactivated", "not allowed for this organization"})) {
    return true;
  }
  for (std::string_view key : {"api key", "api_key", "apikey"}) {
    for (std::string_view gone : {"revoked", "deactivated", "deleted"}) {
      for (std::string_view sep : {" ", "_", ""}) {
        if (t.find(std::string(key) + std::string(sep) + std::string(gone)) != std::string_view::npos) return true;
      }
    }
  }
  return false;
}

bool says_context_overflow(std::string_view t) {
  return has_any(t, {"context_length_exceeded", "context length", "context_length", "maximum context",
                     "context window", "context_window", "prompt is too long", "prompt too long",
                     "input is too long", "too many tokens", "exceeds the context", "request_too_large",
                     "request too large", "reduce the length", "maximum number of tokens",
                     "exceed context limit", "context size"});
}

bool says_quota_exhausted(std::string_view t) {
  return has_any(t, {"insufficient_quota", "exceeded your current quota", "credit balance",
                     "insufficient credits", "insufficient_credits", "billing_hard_limit",
                     "payment required", "insufficient balance", "out of credits"});
}

bool says_model_not_found(std::string_view t) {
  if (has_any(t, {"model_not_found", "unknown model", "no such model", "is not a valid model"})) return true;
  return t.find("model") != std::string_view::npos &&
         has_any(t, {"not found", "does not exist", "not exist", "not available"});
}

/// Stage 2: provider error codes. Specific codes first; generic ones only when nothing else fits.
std::optional<Reason> by_specific_code(const std::vector<std::string>& codes) {
  for (const std::string& c : codes) {
    if (has_any(c, {"insufficient_quota", "billing", "payment_required", "insufficient_credits"})) return Reason::Billing;
    if (has_any(c, {"context_length_exceeded", "context_window_exceeded", "request_too_large"})) return Reason::ContextOverflow;
    if (has_any(c, {"rate_limit", "too_many_requests", "resource_exhausted", "throttl"})) return Reason::RateLimit;
    if (has_any(c, {"overloaded"})) return Reason::Overloaded;
    if (says_permanent_auth(c)) return Reason::AuthPermanent;
    if (has_any(c, {"invalid_api_key", "api_key_invalid", "permission_error", "permission_denied",
                    "authentication_error", "unauthorized", "unauthenticated", "invalid_authentication",
                    "expired_token", "token_expired"})) {
      return Reason::Auth;
    }
    if (has_any(c, {"model_not_found", "not_found_error"})) return Reason::ModelNotFound;
  }
  return std::nullopt;
}

std::optional<Reason> by_generic_code(const std::vector<std::string>& codes) {
  for (const std::string& c : codes) {
    if (has_any(c, {"invalid_request", "bad_request", "invalid_argument", "invalid_value"})) return Reason::Format;
    if (has_any(c, {"unavailable"})) return Reason::Overloaded;
    if (has_any(c, {"timeout", "deadline_exceeded"})) return Reason::Timeout;
    if (has_any(c, {"api_error", "internal", "server_error", "upstream_error"})) return Reason::ServerError;
  }
  return std::nullopt;
}

/// Stage 4: message heuristics, in OpenClaw's order. `t` is lowercase.
std::optional<Reason> by_message(std::string_view t) {
  if (t.empty()) return std::nullopt;
  if (t.find("image") != std::string_view::npos && has_any(t, {"too large", "exceeds", "dimension", "size"})) {
    return Reason::Format;
  }
  if (has_any(t, {"session expired", "session has expired", "session_expired", "session not found"})) {
    return Reason::SessionExpired;
  }
  if (says_model_not_found(t)) return Reason::ModelNotFound;
  if (has_any(t, {"overloaded", "over capacity", "at capacity", "server busy", "high demand",
                  "service unavailable", "temporarily unavailable", "maximum pending requests", "529", "503"})) {
    return Reason::Overloaded;
  }
  if (has_any(t, {"gateway timeout", "504"})) return Reason::Timeout;
  if (has_any(t, {"bad gateway", "502", "521", "api_error", "internal server error", "internal error", "server_error",
                  "server error"})) {
    return Reason::ServerError;
  }
  if (says_quota_exhausted(t)) return Reason::Billing;
  if (has_any(t, {"rate limit", "rate_limit", "ratelimit", "rate-limit", "too many requests", "429",
                  "throttl", "resource_exhausted", "resource has been exhausted", "usage limit",
                  "usage cap", "in cooldown", "cooling down", "all profiles unavailable"})) {
    return Reason::RateLimit;
  }
  if (says_context_overflow(t)) return Reason::ContextOverflow;
  if (has_any(t, {"invalid request", "invalid_request", "bad request", "malformed", "validation error",
                  "invalid parameter", "unexpected field", "roles must alternate", "tool_use", "tool_result",
                  "invalid schema"})) {
    return Reason::Format;
  }
  if (has_any(t, {"billing", "payment", "credits", "quota", "balance is too low"})) return Reason::Billing;
  if (has_any(t, {"econnrefused", "connection refused", "eai_again", "enotfound", "could not resolve host",
                  "ehostunreach", "host unreachable", "no route to host", "enetunreach", "network is unreachable"})) {
    return Reason::Network;  // nothing answered at that address: not a slow provider
  }
  if (has_any(t, {"timeout", "timed out", "deadline exceeded", "deadline_exceeded", "etimedout", "econnreset", "socket hang up",
                  "network error", "connection reset", "fetch failed", "premature close", "connection closed"})) {
    return Reason::Timeout;
  }
  if (says_permanent_auth(t)) return Reason::AuthPermanent;
  if (has_any(t, {"unauthorized", "authentication", "forbidden", "api key", "api_key", "invalid token",
                  "token expired", "insufficient scope", "missing scope", "required scope",
                  "insufficient permissions", "permission denied", "not have permission", "401", "403"})) {
    return Reason::Auth;
  }
  return std::nullopt;
}

/// Stage 1: the status code (refined by what the body says where documented).
std::optional<Reason> by_status(int status, std::string_view text, const std::vector<std::string>& codes) {
  const auto code = by_specific_code(codes);
  switch (status) {
    case 402: return Reason::Billing;
    case 429:
      // Google answers every quota 429 — per-minute ones too — with RESOURCE_EXHAUSTED and "You
      // exceeded your current quota": a rate limit (a cooldown), not a billing disable for hours.
      if (std::any_of(codes.begin(), codes.end(), [](const std::string& c) { return c == "resource_exhausted"; })) {
        return Reason::RateLimit;
      }
      return code == Reason::Billing || says_quota_exhausted(text) ? Reason::Billing : Reason::RateLimit;
    case 401:
    case 403:
      return code == Reason::AuthPermanent || says_permanent_auth(text) ? Reason::AuthPermanent : Reason::Auth;
    case 408: return Reason::Timeout;
    case 400:
      if (code == Reason::ContextOverflow || says_context_overflow(text)) return Reason::ContextOverflow;
      // Google answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
      if (code == Reason::AuthPermanent || says_permanent_auth(text)) return Reason::AuthPermanent;
      if (code == Reason::Auth) return Reason::Auth;
      if (code == Reason::Billing || says_quota_exhausted(text)) return Reason::Billing;
      if (code == Reason::ModelNotFound || says_model_not_found(text)) return Reason::ModelNotFound;
      return Reason::Format;
    case 404: return Reason::ModelNotFound;
    case 410: return Reason::SessionExpired;
    case 413: return Reason::ContextOverflow;
    case 422: return Reason::Format;
    case 503:
    case 529:
      return code == Reason::ContextOverflow || says_context_overflow(text) ? Reason::ContextOverflow
                                                                            : Reason::Overloaded;
    default: break;
  }
  if (status >= 500 && status <= 599) {
    if (code == Reason::ContextOverflow || says_context_overflow(text)) return Reason::ContextOverflow;
    // OpenClaw's rule: a gateway timeout (504, Cloudflare's 522/524) is "timeout"; any other 5xx
    // is the provider's own failure, "server_error" (not a slow answer).
    return status == 504 || status == 522 || status == 524 ? Reason::Timeout : Reason::ServerError;
  }
  return std::nullopt;
}

Reason classify_text(int status, const BodyInfo& info) {
  const std::string text = lower(info.message);
  std::string all = text;
  for (const auto& c : info.codes) all += " " + c;
  if (auto r = by_status(status, all, info.codes)) return *r;
  if (auto r = by_specific_code(info.codes)) return *r;
  if (auto r = by_message(text)) return *r;
  if (auto r = by_generic_code(info.codes)) return *r;
  return Reason::Unknown;
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

std::string_view phrase(Reason reason, int status, bool overloaded) {
  switch (reason) {
    case Reason::Billing: return "billing problem (credits or quota exhausted)";
    case Reason::RateLimit: return overloaded ? "overloaded" : "rate limited";
    case Reason::Overloaded: return "overloaded";
    case Reason::Auth: return "authentication failed";
    case Reason::AuthPermanent: return "API key rejected";
    case Reason::Timeout: return "timed out";
    case Reason::ServerError:
      if (status == 502 || status == 503 || status == 521) return "service unavailable";
      return "server error";
    case Reason::Network: return "could not connect";
    case Reason::Format: return "request rejected as invalid";
    case Reason::ModelNotFound: return "model not found";
    case Reason::SessionExpired: return "session expired";
    case Reason::ContextOverflow: return "context window exceeded";
    case Reason::Unknown: return "request failed";
  }
  return "request failed";
}

std::string retry_phrase(int64_t ms) {
  if (ms < 1000) return "retry in " + std::to_string(ms) + " ms";
  return "retry in " + std::to_string((ms + 999) / 1000) + " s";
}

std::string model_label(const ModelSpec& model) {
  if (model.provider.empty()) return model.id;
  return model.provider + "/" + model.id;
}

/// "<provider>/<model>: <what>[: <detail>][, retry in N s]" with the retry part before the detail
/// when there is no detail.
std::string compose(const ModelSpec& model, std::string_view what, const std::string& detail,
                    const std::optional<int64_t>& retry_ms, bool retryable) {
  std::string out = model_label(model) + ": " + std::string(what);
  const std::string retry = retryable && retry_ms ? retry_phrase(*retry_ms) : "";
  if (detail.empty()) return retry.empty() ? out : out + ", " + retry;
  out += ": " + detail;
  return retry.empty() ? out : out + "; " + retry;
}

bool is_retryable(Reason r) {
  return r == Reason::RateLimit || r == Reason::Overloaded || r == Reason::Timeout || r == Reason::ServerError ||
         r == Reason::Network;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ProviderFailure classify_http(const ModelSpec& model, int status, std::string_view body,
                              std::string_view retry_after_header) {
  return classify_http(model, status, body, retry_after_header, now_ms());
}

ProviderFailure classify_http(const ModelSpec& model, int status, std::string_view body,
                              std::string_view retry_after_header, int64_t now) {
  const BodyInfo info = read_body(body);
  ProviderFailure f;
  f.http_status = status;
  f.reason = classify_text(status, info);
  f.retryable = is_retryable(f.reason);
  f.retry_after_ms = parse_retry_after(retry_after_header, now);
  if (!f.retry_after_ms) f.retry_after_ms = failover_retry_hint_ms(lower(info.message));
  const std::string all = lower(info.message) + " " + [&] {
    std::string c;
    for (const auto& code : info.codes) c += code + " ";
    return c;
  }();
  const bool overloaded = status == 529 || status == 503 || all.find("overloaded") != std::string::npos;
  std::string what(phrase(f.reason, status, overloaded));
  if (status > 0) what += " (HTTP " + std::to_string(status) + ")";
  f.cause = what;
  f.message = compose(model, what, info.message, f.retry_after_ms, f.retryable);
  return f;
}

namespace {

struct ErrnoInfo {
  int value;
  std::string_view name;
  std::string_view what;
  Reason reason;  ///< network: no connection was made; timeout: it was made, then cut or timed out
};

constexpr ErrnoInfo kTransportErrnos[] = {
    {ECONNREFUSED, "ECONNREFUSED", "connection refused", Reason::Network},
    {ECONNRESET, "ECONNRESET", "connection reset", Reason::Timeout},
    {ECONNABORTED, "ECONNABORTED", "connection aborted", Reason::Timeout},
    {ETIMEDOUT, "ETIMEDOUT", "timed out", Reason::Timeout},
    {EHOSTUNREACH, "EHOSTUNREACH", "host unreachable", Reason::Network},
    {ENETUNREACH, "ENETUNREACH", "network unreachable", Reason::Network},
    {ENETDOWN, "ENETDOWN", "network down", Reason::Network},
    {EPIPE, "EPIPE", "connection closed", Reason::Timeout},
    {ENOTCONN, "ENOTCONN", "connection closed", Reason::Timeout},
};

}  // namespace

ProviderFailure classify_transport(const ModelSpec& model, int sys_errno_or_0, std::string_view what,
                                   bool timed_out) {
  ProviderFailure f;
  const std::string detail = one_line(what);
  const std::string t = lower(detail);
  std::string phrase_text = "network error";
  f.reason = Reason::Timeout;
  if (timed_out) {
    phrase_text = "timed out";
  } else if (t.rfind("resolve ", 0) == 0 ||  // our own resolver's failures: "resolve HOST: …"
             has_any(t, {"could not resolve", "couldn't resolve", "getaddrinfo", "name or service not known", "enotfound",
                         "eai_again", "name resolution", "no address associated", "host not found"})) {
    phrase_text = "could not resolve host";
    f.reason = Reason::Network;
  } else if (has_any(t, {"certificate", "ssl", "tls"})) {
    f.reason = Reason::Unknown;
    phrase_text = "TLS error";
  } else {
    bool known = false;
    for (const auto& e : kTransportErrnos) {
      if (e.value == sys_errno_or_0) {
        phrase_text = std::string(e.what) + " (" + std::string(e.name) + ")";
        f.reason = e.reason;
        known = true;
      }
    }
    if (!known) {
      if (auto r = by_message(t)) f.reason = *r;
    }
  }
  f.retryable = is_retryable(f.reason);
  f.cause = phrase_text;
  f.message = compose(model, phrase_text, detail, std::nullopt, false);
  return f;
}

std::optional<ProviderFailure> classify_error_body(const ModelSpec& model, std::string_view body) {
  std::size_t start = 0;
  while (start < body.size() && std::isspace(static_cast<unsigned char>(body[start]))) ++start;
  if (start >= body.size() || body[start] != '{') return std::nullopt;
  json doc = json::parse(body.substr(start), nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  const bool has_error = (doc.contains("error") && (doc["error"].is_object() || doc["error"].is_string())) ||
                         (doc.value("type", json()).is_string() && doc["type"].get<std::string>() == "error");
  if (!has_error) return std::nullopt;
  ProviderFailure f = classify_http(model, 0, body, "");
  f.cause = "error body in a 2xx response: " + f.cause;
  return f;
}

ProviderFailure classify_stream_error(const ModelSpec& model, const Error& error) {
  ProviderFailure f;
  const std::string detail = one_line(error.message);
  if (error.code == "PROVIDER_STREAM_INCOMPLETE") {
    f.reason = Reason::Timeout;
    f.retryable = true;
    f.cause = "response cut off";
    f.message = compose(model, "response cut off", "", std::nullopt, false);
    return f;
  }
  if (error.code != "PROVIDER_STREAM_ERROR") {
    f.reason = Reason::Unknown;
    f.cause = "unreadable response";
    f.message = compose(model, "unreadable response", detail, std::nullopt, false);
    return f;
  }
  // "type: message" — the part before ": " is the provider's error type/code when it has no space.
  BodyInfo info;
  info.message = detail;
  const auto colon = detail.find(": ");
  if (colon != std::string::npos && detail.substr(0, colon).find(' ') == std::string::npos) {
    info.codes.push_back(lower(detail.substr(0, colon)));
  }
  f.reason = classify_text(0, info);
  f.retryable = is_retryable(f.reason);
  f.retry_after_ms = failover_retry_hint_ms(lower(detail));
  const bool overloaded = has_any(lower(detail), {"overloaded", "busy"});
  f.cause = "stream error: " + (info.codes.empty() ? std::string(phrase(f.reason, 0, overloaded)) : info.codes.front());
  f.message = compose(model, phrase(f.reason, 0, overloaded), detail, f.retry_after_ms, f.retryable);
  return f;
}

}  // namespace pincer::llm
