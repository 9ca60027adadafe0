// HTTP endpoints that other layers add to the gateway's port (GW-9), Asio-free: the transport
// (gateway/net_server.cpp) parses the request, finds the route by path prefix, and writes the
// response the route hands back — at once or later (e.g. when an agent's reply is ready).
//
// Loop affinity: routes are called on the event-loop thread; `respond` may be called from it
// later, exactly once (a second call is ignored; a dropped responder answers 500).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pincer::net {

struct HttpRouteRequest {
  std::string method;                         ///< "POST"
  std::string path;                           ///< without the query
  std::string query;                          ///< after '?', "" when none
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;                           ///< at most the route's body limit
  std::string remote_address;                 ///< the client's IP (behind gateway.trustedProxies: the one they name)
};

struct HttpRouteResponse {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpResponder = std::function<void(HttpRouteResponse)>;

/// One endpoint. Before `handle` runs, the transport refuses (gateway/protocol/route_guard.h)
/// browser requests from other sites (403) and bodies not of `body_type` (415): a route never has
/// to guard itself against web pages.
struct HttpRoute {
  std::string path_prefix;             ///< e.g. "/webhook": matches "/webhook" and "/webhook/…"
  std::size_t max_body_bytes = 1 << 20;  ///< larger bodies are answered 413 without calling `handle`
  std::function<void(const HttpRouteRequest&, HttpResponder)> handle;
  /// The media type a request body must have ("" = any); anything else is answered 415.
  std::string body_type = "application/json";
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
