// Unit tests for provider failure classification (src/llm/failover.h, PV-4): real provider error
// bodies by status, transport errors, stream errors, the user-facing message, Retry-After and
// backoff.
#include "llm/failover.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "core/redact.h"

namespace pincer::llm {
namespace {

using R = FailoverReason;

ModelSpec mock_model() {
  ModelSpec m;
  m.provider = "mock";
  m.id = "mock-model";
  return m;
}

TEST(LlmFailover, ReasonNamesAreTheClosedSet) {
  const char* names[] = {"billing", "rate_limit", "overloaded", "auth", "auth_permanent", "timeout", "server_error", "network",
                         "format", "model_not_found", "session_expired", "context_overflow", "unknown"};
  for (const char* name : names) {
    auto r = failover_reason_from_string(name);
    ASSERT_TRUE(r.has_value()) << name;
    EXPECT_EQ(to_string(*r), name);
  }
  EXPECT_FALSE(failover_reason_from_string("busy").has_value());
}

// Issue 22 item 6: a provider that quotes the key it refused. The registered key is masked in
// the message, also where the 300-byte cut would fall inside it (a prefix must not escape), and
// in the stream-error and transport paths.
TEST(LlmFailover, ProviderMessagesNeverCarryARegisteredSecret) {
  const std::string key = "Prov1derKey0fTheOwner7730xyz";
  redact::clear_secrets();
  redact::add_secret(key);
  for (std::size_t pad : {0, 100, 280, 290, 299, 2000}) {
    const std::string text = std::string(pad, 'a') + " " + key + " more";
    const std::string body = R"({"error":{"message":")" + text + R"(","type":"invalid_request_error"}})";
    for (const std::string& b : {body, text}) {  // JSON and plain-text bodies
      const ProviderFailure f = classify_http(mock_model(), 401, b, "");
      EXPECT_EQ(f.message.find(key.substr(0, 6)), std::string::npos) << pad << ": " << f.message;
      EXPECT_EQ(f.reason, R::Auth) << f.message;
    }
  }
  const ProviderFailure s = classify_stream_error(mock_model(), Error{"PROVIDER_STREAM_ERROR", "api_error: bad " + key});
  EXPECT_EQ(s.message.find(key.substr(0, 6)), std::string::npos) << s.message;
  const ProviderFailure t = classify_transport(mock_model(), ECONNREFUSED, "connect to https://x/?k=" + key, false);
  EXPECT_EQ(t.message.find(key.substr(0, 6)), std::string::npos) << t.message;
  // A long body without spaces is no trouble for the patterns (bounded input).
  const ProviderFailure big = classify_http(mock_model(), 500, "sk-" + std::string(60000, 'a'), "");
  EXPECT_LT(big.message.size(), 400u);
  redact::clear_secrets();
}

struct HttpCase {
  int status;
  const char* body;
  R reason;
  bool retryable;
};

TEST(LlmFailover, HttpStatusAndBodies) {
  const HttpCase cases[] = {
      // OpenAI
      {429, R"({"error":{"message":"Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}})", R::RateLimit, true},
      {429, R"({"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})", R::Billing, false},
      {401, R"({"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})", R::Auth, false},
      {400, R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})", R::ContextOverflow, false},
      {400, R"({"error":{"message":"Invalid 'messages[2].tool_calls[0].id': string too long.","type":"invalid_request_error","param":"messages","code":"string_above_max_length"}})", R::Format, false},
      {404, R"({"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}})", R::ModelNotFound, false},
      {500, R"({"error":{"message":"The server had an error while processing your request.","type":"server_error"}})", R::ServerError, true},
      // Anthropic
      {401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})", R::Auth, false},
      {403, R"({"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}})", R::Auth, false},
      // Only a credential that is gone is disabled (OpenClaw 2026.9's permanent patterns).
      {401, R"({"error":{"message":"This API key has been revoked.","type":"invalid_request_error","code":"invalid_api_key"}})", R::AuthPermanent, false},
      {403, R"({"error":{"message":"Your account has been deactivated.","code":"account_deactivated"}})", R::AuthPermanent, false},
      {401, R"({"error":{"message":"api_key_deleted"}})", R::AuthPermanent, false},
      {401, "", R::Auth, false},
      {400, R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}})", R::ContextOverflow, false},
      {400, R"({"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}})", R::Billing, false},
      {400, R"({"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content: Field required"}})", R::Format, false},
      {413, R"({"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}})", R::ContextOverflow, false},
      {429, R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}})", R::RateLimit, true},
      {500, R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})", R::ServerError, true},
      {529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", R::Overloaded, true},
      // Google Gemini (generativelanguage.googleapis.com)
      {400, R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}})", R::Auth, false},
      {403, R"({"error":{"code":403,"message":"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.","status":"PERMISSION_DENIED"}})", R::Auth, false},
      {401, R"({"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}})", R::Auth, false},
      {429, R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}})", R::RateLimit, true},
      {503, R"({"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}})", R::Overloaded, true},
      {500, R"({"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}})", R::ServerError, true},
      {400, R"({"error":{"code":400,"message":"The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})", R::ContextOverflow, false},
      {400, R"([{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"foo\": Cannot find field.","status":"INVALID_ARGUMENT"}}])", R::Format, false},
      {404, R"({"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}})", R::ModelNotFound, false},
      // Ollama / gateways / bare statuses
      {404, R"({"error":"model \"llama9\" not found, try pulling it first"})", R::ModelNotFound, false},
      {400, R"({"error":"model \"llama9\" not found, try pulling it first"})", R::ModelNotFound, false},
      {401, R"({"error":{"message":"OAuth token has expired"}})", R::Auth, false},
      {402, "", R::Billing, false},
      {403, "", R::Auth, false},
      {408, "", R::Timeout, true},
      {410, "", R::SessionExpired, false},
      {422, "", R::Format, false},
      {502, "<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>", R::ServerError, true},
      {503, "upstream connect error", R::Overloaded, true},
      {504, "", R::Timeout, true},
      {521, "", R::ServerError, true},
      {500, "", R::ServerError, true},
      {524, "", R::Timeout, true},
      {500, R"({"error":{"message":"the request exceeds the available context size, try increasing it"}})", R::ContextOverflow, false},
      {418, "I'm a teapot", R::Unknown, false},
      {409, R"({"error":{"message":"Too many requests, slow down"}})", R::RateLimit, true},
  };
  for (const auto& c : cases) {
    const ProviderFailure f = classify_http(mock_model(), c.status, c.body, "");
    EXPECT_EQ(to_string(f.reason), to_string(c.reason)) << c.status << " " << c.body;
    EXPECT_EQ(f.retryable, c.retryable) << c.status << " " << c.body;
    EXPECT_EQ(f.http_status, c.status);
    EXPECT_EQ(f.message.find('\n'), std::string::npos);
    EXPECT_EQ(f.message.find('<'), std::string::npos) << f.message;
  }
}

TEST(LlmFailover, AnHttp500IsAServerErrorNotATimeout) {
  // OpenClaw's classification: a 5xx is "server_error" unless it is a gateway timeout (504, 522,
  // 524); the log and the user's message name the status. It was "timeout" before.
  const ProviderFailure f = classify_http(mock_model(), 500, R"({"error":{"message":"boom"}})", "");
  EXPECT_EQ(to_string(f.reason), "server_error");
  EXPECT_TRUE(f.retryable);
  EXPECT_EQ(f.cause, "server error (HTTP 500)");
  EXPECT_EQ(f.message, "mock/mock-model: server error (HTTP 500): boom");
  EXPECT_EQ(to_string(classify_http(mock_model(), 504, "", "").reason), "timeout");
  EXPECT_EQ(classify_http(mock_model(), 504, "", "").cause, "timed out (HTTP 504)");
  EXPECT_EQ(failover_reason_from_string("server_error"), FailoverReason::ServerError);
}

TEST(LlmFailover, MessagesAreOneClearLine) {
  EXPECT_EQ(classify_http(mock_model(), 429, "", "2").message, "mock/mock-model: rate limited (HTTP 429), retry in 2 s");
  EXPECT_EQ(classify_http(mock_model(), 502, "<!DOCTYPE html><html>...</html>", "").message,
            "mock/mock-model: service unavailable (HTTP 502)");
  EXPECT_EQ(classify_http(mock_model(), 529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", "")
                .message,
            "mock/mock-model: overloaded (HTTP 529): Overloaded");
  EXPECT_EQ(classify_http(mock_model(), 400, "bad\r\n\tthing  here\n", "").message,
            "mock/mock-model: request rejected as invalid (HTTP 400): bad thing here");
  EXPECT_EQ(classify_http(mock_model(), 429,
                          R"({"error":{"message":"Rate limit reached. Please try again in 1.5s.","code":"rate_limit_exceeded"}})", "")
                .message,
            "mock/mock-model: rate limited (HTTP 429): Rate limit reached. Please try again in 1.5s.; retry in 2 s");
  const std::string long_body(5000, 'x');
  const std::string message = classify_http(mock_model(), 400, long_body, "").message;
  EXPECT_LT(message.size(), 400u);
  EXPECT_EQ(message.substr(message.size() - 3), "\xE2\x80\xA6");
  // A cut never splits a UTF-8 character.
  std::string utf8 = "a";  // puts a continuation byte at the cut position
  for (int i = 0; i < 200; ++i) utf8 += "\xC3\xA9";  // é
  const std::string cut = classify_http(mock_model(), 400, utf8, "").message;
  EXPECT_EQ(cut.find("\xC3\xE2"), std::string::npos);
}

TEST(LlmFailover, RetryAfterHeaderAndHints) {
  EXPECT_EQ(classify_http(mock_model(), 429, "", "7").retry_after_ms, 7000);
  const int64_t date_ms = 1445412480000;  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(classify_http(mock_model(), 503, "", "Wed, 21 Oct 2015 07:28:00 GMT", date_ms - 5000).retry_after_ms, 5000);
  EXPECT_EQ(classify_http(mock_model(), 429, R"({"error":{"message":"Please try again in 250ms."}})", "").retry_after_ms, 250);
  EXPECT_FALSE(classify_http(mock_model(), 429, "", "").retry_after_ms.has_value());
}

TEST(LlmFailover, ParseRetryAfter) {
  const int64_t now = 1445412480000;
  EXPECT_EQ(parse_retry_after("2", now), 2000);
  EXPECT_EQ(parse_retry_after(" 1.5 ", now), 1500);
  EXPECT_EQ(parse_retry_after("0", now), 0);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), 30000);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), 0);  // in the past
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777000), 0);
  EXPECT_FALSE(parse_retry_after("", now).has_value());
  EXPECT_FALSE(parse_retry_after("-1", now).has_value());
  EXPECT_FALSE(parse_retry_after("soon", now).has_value());
  EXPECT_FALSE(parse_retry_after("Wed, 21 Foo 2015 07:28:00 GMT", now).has_value());
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 PST", now).has_value());
}

struct TransportCase {
  int err;
  const char* what;
  bool timed_out;
  R reason;
  const char* message;
};

TEST(LlmFailover, TransportErrors) {
  const TransportCase cases[] = {
      {ECONNREFUSED, "Failed to connect to 127.0.0.1 port 11434: Connection refused", false, R::Network,
       "mock/mock-model: connection refused (ECONNREFUSED): Failed to connect to 127.0.0.1 port 11434: Connection refused"},
      {ECONNRESET, "Recv failure: Connection reset by peer", false, R::Timeout,
       "mock/mock-model: connection reset (ECONNRESET): Recv failure: Connection reset by peer"},
      {ETIMEDOUT, "", false, R::Timeout, "mock/mock-model: timed out (ETIMEDOUT)"},
      {0, "Could not resolve host: api.openai.com", false, R::Network,
       "mock/mock-model: could not resolve host: Could not resolve host: api.openai.com"},
      {0, "Operation timed out after 30000 milliseconds with 0 bytes received", true, R::Timeout,
       "mock/mock-model: timed out: Operation timed out after 30000 milliseconds with 0 bytes received"},
      {0, "SSL certificate problem: unable to get local issuer certificate", false, R::Unknown,
       "mock/mock-model: TLS error: SSL certificate problem: unable to get local issuer certificate"},
      {0, "something odd", false, R::Timeout, "mock/mock-model: network error: something odd"},
  };
  for (const auto& c : cases) {
    const ProviderFailure f = classify_transport(mock_model(), c.err, c.what, c.timed_out);
    EXPECT_EQ(to_string(f.reason), to_string(c.reason)) << c.what;
    EXPECT_EQ(f.message, c.message);
    EXPECT_EQ(f.http_status, 0);
    EXPECT_EQ(f.retryable, c.reason == R::Timeout || c.reason == R::Network);
  }
}

TEST(LlmFailover, StreamErrors) {
  const std::pair<Error, R> cases[] = {
      {{"PROVIDER_STREAM_ERROR", "overloaded_error: Overloaded"}, R::Overloaded},
      {{"PROVIDER_STREAM_ERROR", "rate_limit_exceeded: Slow down"}, R::RateLimit},
      {{"PROVIDER_STREAM_ERROR", "context_length_exceeded: Your input exceeds the context window of this model."}, R::ContextOverflow},
      {{"PROVIDER_STREAM_ERROR", "server_error: boom"}, R::ServerError},
      {{"PROVIDER_STREAM_ERROR", "api_error: Internal server error"}, R::ServerError},
      {{"PROVIDER_STREAM_ERROR", "insufficient_quota: You exceeded your current quota"}, R::Billing},
      {{"PROVIDER_STREAM_ERROR", "model requires more system memory (9.2 GiB) than is available"}, R::Unknown},
      {{"PROVIDER_STREAM_ERROR", "server busy, please try again.  maximum pending requests exceeded"}, R::Overloaded},
      // Errors that arrive only as text (issue 17): usage limits, cooldowns, demand, deadlines, scopes.
      {{"PROVIDER_STREAM_ERROR", "You've hit your usage limit. Upgrade or try again later."}, R::RateLimit},
      {{"PROVIDER_STREAM_ERROR", "Provider anthropic is in cooldown (all profiles unavailable)"}, R::RateLimit},
      {{"PROVIDER_STREAM_ERROR", "The model is experiencing high demand right now"}, R::Overloaded},
      {{"PROVIDER_STREAM_ERROR", "UNAVAILABLE: The service is currently unavailable."}, R::Overloaded},
      {{"PROVIDER_STREAM_ERROR", "DEADLINE_EXCEEDED: Deadline exceeded"}, R::Timeout},
      {{"PROVIDER_STREAM_ERROR", "You have insufficient permissions for this operation. Missing scopes: api.responses.write"}, R::Auth},
      // Gemini in-stream errors ("STATUS: message", google_generative_ai.cpp)
      {{"PROVIDER_STREAM_ERROR", "RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota)."}, R::RateLimit},
      {{"PROVIDER_STREAM_ERROR", "UNAVAILABLE: The model is overloaded. Please try again later."}, R::Overloaded},
      {{"PROVIDER_STREAM_ERROR", "PERMISSION_DENIED: The caller does not have permission"}, R::Auth},
      {{"PROVIDER_STREAM_ERROR", "UNAUTHENTICATED: Request had invalid authentication credentials."}, R::Auth},
      {{"PROVIDER_STREAM_ERROR", "INVALID_ARGUMENT: The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."}, R::ContextOverflow},
      {{"PROVIDER_STREAM_ERROR", "INVALID_ARGUMENT: Request contains an invalid argument."}, R::Format},
      {{"PROVIDER_STREAM_ERROR", "INTERNAL: An internal error has occurred."}, R::ServerError},
      {{"PROVIDER_STREAM_INCOMPLETE", "anthropic-messages stream ended before the response was complete"}, R::Timeout},
      {{"PROVIDER_STREAM_INVALID", "ollama stream: line 2: syntax error"}, R::Unknown},
  };
  for (const auto& [error, reason] : cases) {
    const ProviderFailure f = classify_stream_error(mock_model(), error);
    EXPECT_EQ(to_string(f.reason), to_string(reason)) << error.message;
  }
  EXPECT_EQ(classify_stream_error(mock_model(), {"PROVIDER_STREAM_ERROR", "overloaded_error: Overloaded"}).message,
            "mock/mock-model: overloaded: overloaded_error: Overloaded");
  EXPECT_EQ(classify_stream_error(mock_model(), {"PROVIDER_STREAM_INCOMPLETE", "x"}).message,
            "mock/mock-model: response cut off");
}

TEST(LlmFailover, Backoff) {
  ProviderFailure f;
  f.reason = R::Timeout;
  f.retryable = true;
  EXPECT_EQ(backoff_ms(1, f, 0.0), 250);
  EXPECT_EQ(backoff_ms(1, f, 1.0), 500);
  EXPECT_EQ(backoff_ms(2, f, 0.0), 500);
  EXPECT_EQ(backoff_ms(3, f, 1.0), 2000);
  EXPECT_EQ(backoff_ms(6, f, 1.0), 16000);
  EXPECT_EQ(backoff_ms(kMaxRetryAttempts + 1, f, 1.0), 0);
  EXPECT_EQ(backoff_ms(0, f, 1.0), 0);
  for (int attempt = 1; attempt <= kMaxRetryAttempts; ++attempt) {
    const int64_t d = backoff_ms(attempt, f);
    EXPECT_GE(d, 1);
    EXPECT_LE(d, kBackoffCapMs);
  }
  f.retry_after_ms = 2000;
  EXPECT_EQ(backoff_ms(1, f, 0.5), 2000);
  EXPECT_EQ(backoff_ms(3, f, 0.5), 2000);
  f.retry_after_ms = kMaxRetryAfterMs + 1;
  EXPECT_EQ(backoff_ms(1, f, 0.5), 0);  // too long: fail over instead
  f.retry_after_ms.reset();
  f.retryable = false;
  EXPECT_EQ(backoff_ms(1, f, 0.5), 0);
}

TEST(LlmFailover, GoogleQuotaRateLimitsAreNotBillingDisables) {
  const char* body = R"({"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}})";
  EXPECT_EQ(classify_http(mock_model(), 429, body, "").reason, FailoverReason::RateLimit);
  // OpenAI's exhausted credits keep their billing class.
  EXPECT_EQ(classify_http(mock_model(), 429, R"({"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}})", "").reason,
            FailoverReason::Billing);
}

TEST(LlmFailover, AnErrorObjectInA2xxBodyIsClassifiedLikeAnHttpError) {
  auto f = classify_error_body(mock_model(), R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reason, FailoverReason::RateLimit);
  EXPECT_TRUE(f->retryable);
  EXPECT_NE(f->cause.find("2xx"), std::string::npos) << f->cause;
  f = classify_error_body(mock_model(), R"(  {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reason, FailoverReason::Overloaded);
  EXPECT_FALSE(classify_error_body(mock_model(), "data: {\"choices\":[]}\n\n").has_value()) << "a stream, not an error";
  EXPECT_FALSE(classify_error_body(mock_model(), R"({"id":"x","choices":[]})").has_value());
}

TEST(FailoverCause, TheLogNamesWhatHappenedNotOnlyTheFailoverClass) {
  // A 504 and a cut-off stream are both failover reason "timeout" (a refused connection is
  // "network"); the cause (what the retry log prints) tells them apart.
  const ProviderFailure http = classify_http(mock_model(), 504, "", "");
  const ProviderFailure refused = classify_transport(mock_model(), ECONNREFUSED, "connect", false);
  const ProviderFailure cut = classify_stream_error(mock_model(), Error{"PROVIDER_STREAM_INCOMPLETE", "eof"});
  for (const auto* f : {&http, &cut}) EXPECT_EQ(f->reason, FailoverReason::Timeout);
  EXPECT_EQ(refused.reason, FailoverReason::Network);
  EXPECT_NE(http.cause.find("HTTP 504"), std::string::npos) << http.cause;
  EXPECT_NE(refused.cause.find("ECONNREFUSED"), std::string::npos) << refused.cause;
  EXPECT_EQ(cut.cause, "response cut off");
  EXPECT_NE(classify_http(mock_model(), 429, "", "").cause.find("HTTP 429"), std::string::npos);
}

TEST(FailoverCause, RefusedConnectionsAndDnsFailuresAreNamedAsSuch) {
  // OpenClaw calls these "timeout"; Pincer's class is "network" (retried and failed over the same
  // way), and the cause says which network failure it was, never "timed out".
  const ProviderFailure refused =
      classify_transport(mock_model(), ECONNREFUSED, "connect to 127.0.0.1:1: Connection refused", false);
  EXPECT_EQ(refused.reason, FailoverReason::Network);
  EXPECT_EQ(refused.cause, "connection refused (ECONNREFUSED)");
  EXPECT_TRUE(refused.retryable);
  // Our resolver's failure ("resolve HOST: …", no errno) and curl-style texts.
  for (const char* what : {"resolve no-such-host.invalid: Host not found (authoritative)",
                           "resolve flaky.example: Host not found (non-authoritative), try again later",
                           "Could not resolve host: api.example.com", "getaddrinfo ENOTFOUND api.example.com"}) {
    const ProviderFailure dns = classify_transport(mock_model(), 0, what, false);
    EXPECT_EQ(dns.reason, FailoverReason::Network) << what;
    EXPECT_EQ(dns.cause, "could not resolve host") << what;
    EXPECT_EQ(dns.message.find("timed out"), std::string::npos) << dns.message;
  }
  EXPECT_EQ(classify_transport(mock_model(), 0, "connect", true).cause, "timed out");
  EXPECT_EQ(classify_transport(mock_model(), 0, "connect", true).reason, FailoverReason::Timeout);
  // Host and network unreachable are network too; a connection reset (it was made) stays timeout.
  EXPECT_EQ(classify_transport(mock_model(), EHOSTUNREACH, "connect", false).reason, FailoverReason::Network);
  EXPECT_EQ(classify_transport(mock_model(), ENETUNREACH, "connect", false).reason, FailoverReason::Network);
  EXPECT_EQ(classify_transport(mock_model(), ECONNRESET, "recv", false).reason, FailoverReason::Timeout);
  // The same in text only (a CLI backend's or a proxy's message).
  EXPECT_EQ(classify_stream_error(mock_model(), Error{"PROVIDER_STREAM_ERROR", "connect ECONNREFUSED 127.0.0.1:443"}).reason,
            FailoverReason::Network);
}

}  // namespace
}  // namespace pincer::llm
