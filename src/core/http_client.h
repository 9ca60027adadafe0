// Outbound HTTP(S) for LLM providers and channel APIs (docs/architecture.md "Concurrency model"):
// asynchronous on the gateway's event loop, streaming the response body to the caller as it
// arrives (SSE/NDJSON decoders sit on top). TLS via OpenSSL with the system CA store and host-name
// verification. Forward proxies from HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (CONNECT tunnels for
// https, absolute-form requests for http; user:password in the proxy URL becomes
// Proxy-Authorization) unless NO_PROXY exempts the host, as curl reads them. HTTP/1.1 only.
//
// Keep-alive (issue 17 "Connection reuse"): a connection whose response was read to its end
// (Content-Length or last chunk; HTTP/1.1 without `Connection: close`, nothing extra buffered) goes
// back to a small idle pool per origin (scheme + host:port + proxy and its credentials); the next
// request to that origin reuses it instead of a new TCP (+ TLS) handshake. A reused connection found
// dead (EOF/reset before any byte of the response) is replaced once by a new connection and the
// request sent again — never after the server began answering. Not pooled: requests with
// check_address (they connect only to the addresses they checked; they send `Connection: close`),
// bodies ended by EOF, cancelled or failed requests (their connection is closed).
//
// Loop affinity: start() and cancel() on the loop thread; callbacks run on the loop thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event_loop.h"

namespace pincer::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// Longest request header value sent (bytes). Longer ones, and values with CR, LF or NUL (they
/// would inject headers), fail the request through on_done without sending it.
inline constexpr std::size_t kMaxHeaderValueBytes = 16 * 1024;

struct HttpRequestSpec {
  std::string method = "POST";
  std::string url;  ///< http:// or https://, host may be an IPv6 literal in brackets
  Headers headers;
  std::string body;
  int64_t connect_timeout_ms = 30'000;  ///< DNS + TCP + TLS
  int64_t idle_timeout_ms = 120'000;    ///< longest silence while waiting for bytes
  /// When set (the SSRF guard of web_fetch): called with every address the host resolved to
  /// ("127.0.0.1", "::1") before connecting; a returned message refuses the request (on_done gets
  /// it). The connection then goes only to the checked addresses, never through a proxy, so a
  /// DNS answer cannot change between the check and the connect.
  std::function<std::optional<std::string>(const std::string& address)> check_address;
};

struct HttpResponseHead {
  int status = 0;
  Headers headers;  ///< names as sent
  /// First header named `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

/// Why a request failed below HTTP. `sys_errno` is 0 when not an OS error.
struct TransportError {
  int sys_errno = 0;
  std::string what;        ///< one line, e.g. "connect to 127.0.0.1:9: Connection refused"
  bool timed_out = false;
  bool cancelled = false;
};

struct HttpCallbacks {
  std::function<void(const HttpResponseHead&)> on_head;  ///< once, before any data
  std::function<void(std::string_view)> on_data;         ///< body bytes (de-chunked), any split
  /// Exactly once, last: nullopt = the whole body arrived.
  std::function<void(const std::optional<TransportError>&)> on_done;
};

/// Bounds of the keep-alive pool (see the file comment).
struct HttpClientOptions {
  /// An idle pooled connection is closed (by a timer) after this long. 60 s: below the idle
  /// timeouts of common servers and load balancers (nginx keepalive_timeout 75 s, AWS ALB 60 s,
  /// Node.js 5 s — the retry covers the shorter ones), long enough to span an agent's turns.
  int64_t pool_idle_timeout_ms = 60'000;
  /// Idle connections kept per origin: 4 covers the parallel calls one gateway makes to a provider
  /// (a run's model call, a summary, an approval triage, embeddings) without hoarding sockets.
  size_t max_idle_per_origin = 4;
  /// Idle connections kept in total (all origins): 32 bounds the file descriptors and TLS state
  /// (~50 KiB each) an idle gateway holds. The oldest is closed to make room. 0 disables the pool.
  size_t max_idle_total = 32;
};

class HttpClient {
 public:
  explicit HttpClient(EventLoop& loop, HttpClientOptions options = {});
  ~HttpClient();  ///< cancels running requests and closes the idle pooled connections

  using RequestId = uint64_t;
  /// Starts a request. An invalid URL reports through on_done (posted, never inline).
  RequestId start(HttpRequestSpec spec, HttpCallbacks callbacks);
  /// Aborts a request: on_done gets {cancelled:true} unless it already finished.
  void cancel(RequestId id);
  /// Idle keep-alive connections currently pooled (all origins).
  size_t idle_connections() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

/// Splits "scheme://host[:port]/target". Returns nullopt when malformed or not http(s).
struct ParsedUrl {
  bool tls = false;
  std::string host;  ///< without brackets
  std::string port;
  std::string target;  ///< path + query, at least "/"
};
std::optional<ParsedUrl> parse_url(std::string_view url);

}  // namespace pincer::net
