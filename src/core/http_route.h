// HTTP endpoints that other layers add to the gateway's port (GW-9), Asio-free: the transport
// (gateway/net_server.cpp) parses the request, finds the route by path prefix, and writes the
// response the route hands back — at once or later (e.g. when an agent's reply is ready).
//
// Loop affinity: routes are called on the event-loop thread; `respond` may be called from it
// later, exactly once (a second call is ignored; a dropped responder answers 500).
//
// Streamed answers (GW-9, the OpenAI-compatible API's SSE): instead of `respond`, a route may call
// the request's `begin_stream` once; the transport sends the status and headers at once, then each
// HttpStream::write as it comes (one HTTP/1.1 chunk each, nothing buffered to coalesce), and the
// last chunk on end(). `on_client_gone` tells a route whose answer is still pending (streamed or
// not) that the client closed its connection, so that it can stop the work (abort a run).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pincer::net {

struct HttpRouteResponse {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class HttpStream;

struct HttpRouteRequest {
  std::string method;                         ///< "POST"
  std::string path;                           ///< without the query
  std::string query;                          ///< after '?', "" when none
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;                           ///< at most the route's body limit
  std::string remote_address;                 ///< the client's IP (behind gateway.trustedProxies: the one they name)
  /// Checks a Bearer credential ("" = none sent) as a WebSocket connect's is checked: the gateway's
  /// token or password (or an operator device token), counted in the same per-client auth rate
  /// limit (gateway/gateway_http_auth.cpp). Set by the transport; unset (tests) = refuse.
  std::function<bool(std::string_view bearer)> authorize_bearer;
  /// Starts a streamed answer (see above) instead of calling the responder; at most once. The
  /// head's `body` is sent as the first chunk. Set by the transport.
  std::function<std::shared_ptr<HttpStream>(HttpRouteResponse head)> begin_stream;
  /// Registers `fn`, called once on the loop if the client closes the connection before the answer
  /// (streamed or not) was sent completely; never called after that. Set by the transport.
  std::function<void(std::function<void()> fn)> on_client_gone;
};

using HttpResponder = std::function<void(HttpRouteResponse)>;

/// A streamed answer under way (begin_stream). Loop thread only. Dropping the last reference
/// without end() ends it as end() would.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  /// Queues `bytes` as one chunk, written and flushed in order. False (nothing queued) once the
  /// client is gone or more than kMaxQueuedBytes wait unsent (a client that stopped reading:
  /// the connection is then closed and on_client_gone fires).
  virtual bool write(std::string bytes) = 0;
  /// Sends the last chunk; later writes are refused. Idempotent.
  virtual void end() = 0;
  /// Bytes a stream may hold unsent before the client counts as gone.
  static constexpr std::size_t kMaxQueuedBytes = 4u << 20;
};

/// One endpoint. Before `handle` runs, the transport refuses (gateway/protocol/route_guard.h)
/// browser requests from other sites (403) and bodies not of `body_type` (415): a route never has
/// to guard itself against web pages.
struct HttpRoute {
  std::string path_prefix;             ///< e.g. "/webhook": matches "/webhook" and "/webhook/…"
  std::size_t max_body_bytes = 1 << 20;  ///< larger bodies are answered 413 without calling `handle`
  std::function<void(const HttpRouteRequest&, HttpResponder)> handle;
  /// The media type a request body must have ("" = any); anything else is answered 415.
  std::string body_type = "application/json";
  /// Optional: the body of the transport's own refusals of this route's requests (403, 413, 415;
  /// `message` says why) in the route's error shape; unset = {"ok":false,"error":message}.
  std::function<HttpRouteResponse(int status, const std::string& message)> format_error = nullptr;
};

/// The routes of one gateway, matched by the longest path prefix.
class HttpRoutes {
 public:
  void add(HttpRoute route) { routes_.push_back(std::move(route)); }
  /// Removes the route added with exactly this prefix (a channel stopped by a reload); requests
  /// already dispatched to it keep their responder.
  void remove(const std::string& path_prefix) {
    std::erase_if(routes_, [&](const HttpRoute& r) { return r.path_prefix == path_prefix; });
  }
  const HttpRoute* find(const std::string& path) const {
    const HttpRoute* best = nullptr;
    for (const auto& r : routes_) {
      const bool match = path == r.path_prefix ||
                         (path.size() > r.path_prefix.size() && path.compare(0, r.path_prefix.size(), r.path_prefix) == 0 &&
                          path[r.path_prefix.size()] == '/');
      if (match && (!best || r.path_prefix.size() > best->path_prefix.size())) best = &r;
    }
    return best;
  }

 private:
  std::vector<HttpRoute> routes_;
};

}  // namespace pincer::net
