// One HTTP connection of the gateway's Beast transport (net_http_session.h): reads a request
// (header first, then a body within its target's limit), answers probes, the web UI and routes
// (at once, later, or streamed as chunks), watches a pending route answer for the client going
// away, and hands WebSocket upgrades to net_ws_session.cpp. Loop thread only.
#include "gateway/net_http_session.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>

#include "gateway/protocol/constants.h"
#include "gateway/protocol/route_guard.h"
#include "gateway/web_assets.h"
#include "core/json_dump.h"

namespace pincer::gateway::transport {

// A request's header must arrive within kHttpHeaderTimeout (a slow or silent sender holds a
// descriptor no longer), its body within kHttpBodyTimeout.
constexpr auto kHttpHeaderTimeout = std::chrono::seconds(10);
constexpr auto kHttpBodyTimeout = std::chrono::seconds(30);
constexpr std::size_t kHttpHeaderLimit = 16 * 1024;  // larger: 431
// Connections still sending their request: past this many the oldest is dropped to admit a new
// one. A complete request arrives in one packet and leaves at once; what stays is slow or silent.
constexpr std::size_t kMaxReadingSessions = 512;
// WebSocket upgrades that have not completed `connect` yet (each holds a descriptor for up to
// 10 s): at the cap, or at the per-client cap, a new upgrade is answered 503 — plain HTTP (probes,
// routes) and connected clients are not affected.
constexpr std::size_t kMaxPendingHandshakes = 256;
constexpr std::size_t kMaxPendingHandshakesPerClient = 32;
constexpr std::size_t kHttpBodyLimit = 64 * 1024;
/// Largest body any route may take (each route sets its own limit up to this).
constexpr std::size_t kHttpRouteBodyLimit = 8 * 1024 * 1024;

namespace {

/// The embedded web UI file `asset` as a GET answer (or 304 when If-None-Match matches): revalidated
/// on every use (no-cache + strong ETag), never sniffed, framed or given a referrer, and locked to
/// this origin by the Content-Security-Policy.
void answer_asset(const http::request<http::string_body>& req, const WebAsset& asset,
                  http::response<http::string_body>& res) {
  const auto host = req.find(http::field::host);
  res.set("Content-Security-Policy",
          web_ui_csp(host == req.end() ? std::string_view() : std::string_view(host->value().data(), host->value().size())));
  res.set("Cross-Origin-Opener-Policy", "same-origin");
  res.set("Cross-Origin-Resource-Policy", "same-origin");
  res.set(http::field::etag, asset.etag);
  res.set(http::field::cache_control, "no-cache");
  const auto inm = req.find(http::field::if_none_match);
  if (inm != req.end() && etag_matches(std::string_view(inm->value().data(), inm->value().size()), asset.etag)) {
    res.result(http::status::not_modified);
    return;
  }
  res.result(http::status::ok);
  res.set(http::field::content_type, asset.content_type);
  res.body().assign(asset.bytes());
}

}  // namespace

/// Plain HTTP on the same port: probes, the web chat UI, routes of other layers (webhooks), and
/// the WebSocket upgrade.
class HttpSession final : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(Socket socket, Gateway& gateway, std::shared_ptr<ReadingSessions> reading, const ControlUi& control_ui)
      : stream_(std::move(socket)), gateway_(gateway), reading_(std::move(reading)), control_ui_(control_ui) {}

  void start() { read_next(); }
  /// Closes the socket now (the pending read ends with operation_aborted).
  void evict() {
    untrack();
    stream_.close();
  }

 private:
  void track() {
    if (!tracked_) tracked_ = reading_->sessions.insert(reading_->sessions.end(), weak_from_this());
  }
  void untrack() {
    if (tracked_) reading_->sessions.erase(*tracked_);
    tracked_.reset();
  }

  void read_next() {
    parser_.emplace();
    parser_->header_limit(kHttpHeaderLimit);
    parser_->body_limit(kHttpRouteBodyLimit);  // checked against Content-Length when the header ends
    track();
    stream_.expires_after(kHttpHeaderTimeout);
    // The header first: the body limit depends on where the request goes (a webhook route's
    // own limit, else kHttpBodyLimit), so no request is buffered beyond what its target accepts.
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec) return self->on_read(ec);
      self->on_header();
    });
  }

  void on_header() {
    const auto& req = parser_->get();
    const std::string path(req.target().substr(0, req.target().find('?')));
    const net::HttpRoute* route = gateway_.http_routes().find(path);
    if (route && !websocket::is_upgrade(req)) {
      // Web pages never reach a route: refused before its body is read (route_guard.h).
      if (auto refused = check_route_request(std::string(req.method_string()), header_map(req), route->body_type,
                                             gateway_.settings().auth)) {
        return respond(route_refusal(route, refused->status, refused->error, req.version()));
      }
    }
    const std::size_t limit = route ? std::min(route->max_body_bytes, kHttpRouteBodyLimit) : kHttpBodyLimit;
    if (const auto length = parser_->content_length(); length && *length > limit) {
      return on_read(http::error::body_limit);  // 413 without reading the body
    }
    parser_->body_limit(limit);  // for bodies without Content-Length (chunked)
    stream_.expires_after(kHttpBodyTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  /// The transport's refusal of a request for `route` (nullptr: no route), in the route's error
  /// shape when it has one (HttpRoute::format_error).
  static http::response<http::string_body> route_refusal(const net::HttpRoute* route, int status, const std::string& error,
                                                         unsigned version) {
    if (!route || !route->format_error) return error_response(static_cast<http::status>(status), error, version);
    net::HttpRouteResponse r = route->format_error(status, error);
    http::response<http::string_body> res{static_cast<http::status>(r.status), version};
    res.set(http::field::server, "pincer/" PINCER_VERSION);
    res.set("X-Content-Type-Options", "nosniff");
    res.set(http::field::cache_control, "no-store");
    res.set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res.set(k, v);
    res.body() = std::move(r.body);
    res.keep_alive(false);
    res.prepare_payload();
    return res;
  }

  static http::response<http::string_body> error_response(http::status status, const std::string& error, unsigned version,
                                                          bool keep_alive = false) {
    http::response<http::string_body> res{status, version};
    res.set(http::field::server, "pincer/" PINCER_VERSION);
    res.set(http::field::content_type, "application/json; charset=utf-8");  // as every other API error
    res.set("X-Content-Type-Options", "nosniff");
    res.set(http::field::cache_control, "no-store");
    res.body() = json_dump::compact(nlohmann::json{{"ok", false}, {"error", error}});
    res.keep_alive(keep_alive);
    res.prepare_payload();
    return res;
  }

  void on_read(error_code ec) {
    const unsigned version = parser_->get().version() ? parser_->get().version() : 11;
    if (ec == http::error::body_limit) {
      const std::string path(parser_->get().target().substr(0, parser_->get().target().find('?')));
      return respond(route_refusal(gateway_.http_routes().find(path), 413, "body too large", version));
    }
    if (ec == http::error::header_limit) {
      return respond(error_response(static_cast<http::status>(431),
                                    "request header fields too large (at most " + std::to_string(kHttpHeaderLimit / 1024) +
                                        " KiB)",
                                    version));
    }
    if (ec) {
      untrack();
      error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    untrack();
    auto req = parser_->release();
    if (websocket::is_upgrade(req)) return upgrade(std::move(req));
    const std::string path(req.target().substr(0, req.target().find('?')));
    if (const net::HttpRoute* route = gateway_.http_routes().find(path)) return dispatch(*route, std::move(req));
    respond(handle(req));
  }

  void upgrade(http::request<http::string_body> req) {
    if (gateway_.shutting_down()) return;
    PeerInfo peer = peer_info(stream_.socket(), req, gateway_.settings().auth);
    if (peer.forwarded && peer.proxied_client_ip.empty() && !reading_->proxy_hint_given) {
      // Behind a proxy that is not listed, all its clients share one address (and one rate limit).
      reading_->proxy_hint_given = true;
      spdlog::warn("connections from {} carry forwarding headers (X-Forwarded-For …) but {} is not in "
                   "gateway.trustedProxies: its clients are treated as one client {}; list the proxy there",
                   peer.remote_ip, peer.remote_ip, peer.remote_ip);
    }
    const bool full = gateway_.pending_handshakes() >= kMaxPendingHandshakes;
    if (full || gateway_.pending_handshakes_from(peer.client_ip()) >= kMaxPendingHandshakesPerClient) {
      warn_throttled(reading_->last_warning,
                     full ? "refusing WebSocket upgrades: " + std::to_string(kMaxPendingHandshakes) + " connections have not completed connect"
                          : "refusing WebSocket upgrades from " + peer.client_ip() + ": " +
                                std::to_string(kMaxPendingHandshakesPerClient) + " of its connections have not completed connect");
      auto res = error_response(http::status::service_unavailable, "too many pending WebSocket handshakes; retry later",
                                req.version());
      res.set(http::field::retry_after, "10");
      return respond(std::move(res));
    }
    start_websocket(stream_.release_socket(), gateway_, std::move(req), std::move(peer));
  }

  // A route added by another layer (webhooks): it answers now or later through the responder.
  void dispatch(const net::HttpRoute& route, http::request<http::string_body> req) {
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive();
    auto make = [version, keep_alive](net::HttpRouteResponse r) {
      http::response<http::string_body> res{static_cast<http::status>(r.status), version};
      res.keep_alive(keep_alive);
      res.set(http::field::server, "pincer/" PINCER_VERSION);
      res.set("X-Content-Type-Options", "nosniff");
      res.set(http::field::cache_control, "no-store");
      res.set(http::field::content_type, r.content_type);
      for (const auto& [k, v] : r.headers) res.set(k, v);
      res.body() = std::move(r.body);
      res.prepare_payload();
      return res;
    };
    if (req.body().size() > route.max_body_bytes) return respond(route_refusal(&route, 413, "body too large", version));
    net::HttpRouteRequest in;
    in.method = std::string(req.method_string());
    const std::string_view target(req.target().data(), req.target().size());
    in.path = std::string(target.substr(0, target.find('?')));
    if (auto q = target.find('?'); q != std::string_view::npos) in.query = std::string(target.substr(q + 1));
    const PeerInfo peer = peer_info(stream_.socket(), req, gateway_.settings().auth);
    in.remote_address = peer.client_ip();
    in.headers = header_map(req);
    in.body = std::move(req.body());
    in.authorize_bearer = [this, self = shared_from_this(), peer](std::string_view bearer) {
      return gateway_.authorize_http_bearer(peer, bearer);
    };
    answer_pending_ = true;
    in.on_client_gone = [weak = weak_from_this()](std::function<void()> fn) {
      auto self = weak.lock();
      if (!self || !self->answer_pending_) return;
      if (self->client_gone_) return fn();
      self->gone_callbacks_.push_back(std::move(fn));
      self->watch_client();
    };
    // Exactly one answer: later calls are ignored; a responder dropped unanswered gives 500.
    struct Once {
      std::shared_ptr<HttpSession> session;  // kept open until answered
      std::function<http::response<http::string_body>(net::HttpRouteResponse)> make;
      bool done = false;
      ~Once() {
        if (!done) session->respond(make({500, "application/json; charset=utf-8", R"({"ok":false,"error":"no answer"})", {}}));
      }
    };
    auto once = std::make_shared<Once>();  // built in place: a moved-from copy would answer 500
    once->session = shared_from_this();
    once->make = make;
    in.begin_stream = [once, version, keep_alive](net::HttpRouteResponse head) -> std::shared_ptr<net::HttpStream> {
      if (once->done) return nullptr;
      once->done = true;
      return once->session->begin_stream(std::move(head), version, keep_alive);
    };
    route.handle(in, [once](net::HttpRouteResponse r) {
      if (once->done) return;
      once->done = true;
      once->session->respond(once->make(std::move(r)));
    });
  }

  http::response<http::string_body> handle(const http::request<http::string_body>& req) {
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    const bool live = path == "/health" || path == "/healthz";
    const bool ready = path == "/ready" || path == "/readyz";
    if (!live && !ready) {
      if (auto answer = control_ui_.handle({std::string(req.method_string()), std::string(target), header_map(req)},
                                           [&](std::string_view bearer) {
                                             return gateway_.authorize_http_bearer(
                                                 peer_info(stream_.socket(), req, gateway_.settings().auth), bearer);
                                           })) {
        return control_ui_response(req, std::move(*answer));
      }
    }
    // Pincer's web chat: at "/", or under web_chat_prefix() while the Control UI takes "/".
    const std::string_view prefix = control_ui_.web_chat_prefix();
    if (!prefix.empty() && path == prefix) {
      return control_ui_response(req, {302, {{"Location", std::string(prefix) + "/"}}, ""});
    }
    const bool under_prefix = path.size() > prefix.size() && path.starts_with(prefix) && path[prefix.size()] == '/';
    // approval.get's urlPath (/approve/<id>, OpenClaw's approval page): the web chat, which shows
    // the pending approvals with their buttons.
    if ((prefix.empty() || under_prefix) && path.substr(prefix.size()).starts_with("/approve/") &&
        path.size() > prefix.size() + 9) {
      return control_ui_response(req, {302, {{"Location", std::string(prefix) + "/"}}, ""});
    }
    const WebAsset* asset = live || ready || (!prefix.empty() && !under_prefix) ? nullptr : find_web_asset(path.substr(prefix.size()));
    http::response<http::string_body> res;
    res.version(req.version());
    res.keep_alive(req.keep_alive());
    res.set(http::field::server, "pincer/" PINCER_VERSION);
    res.set("X-Content-Type-Options", "nosniff");
    res.set("Referrer-Policy", "no-referrer");
    res.set("X-Frame-Options", "DENY");
    if (!live && !ready && !asset) {
      res.result(http::status::not_found);
      res.set(http::field::content_type, "text/plain; charset=utf-8");
      res.body() = "Not Found\n";
    } else if (req.method() != http::verb::get && req.method() != http::verb::head) {
      res.result(http::status::method_not_allowed);
      res.set(http::field::allow, "GET, HEAD");
      res.set(http::field::content_type, "text/plain; charset=utf-8");
      res.body() = "Method Not Allowed\n";
    } else if (asset) {
      answer_asset(req, *asset, res);
    } else {
      const bool shutting_down = gateway_.shutting_down();
      res.result(ready && shutting_down ? http::status::service_unavailable : http::status::ok);
      res.set(http::field::content_type, "application/json; charset=utf-8");
      res.set(http::field::cache_control, "no-store");
      if (live) res.body() = R"({"ok":true,"status":"live"})";
      else res.body() = shutting_down ? R"({"ok":false,"status":"stopping"})" : R"({"ok":true,"status":"ready"})";
    }
    if (res.result() == http::status::not_modified) return res;  // no body, no Content-Length
    res.prepare_payload();
    if (req.method() == http::verb::head) res.body().clear();  // Content-Length stays that of GET
    return res;
  }

  http::response<http::string_body> control_ui_response(const http::request<http::string_body>& req, ControlUiAnswer answer) {
    http::response<http::string_body> res{static_cast<http::status>(answer.status), req.version()};
    res.keep_alive(req.keep_alive());
    res.set(http::field::server, "pincer/" PINCER_VERSION);
    for (const auto& [k, v] : answer.headers) res.set(k, v);
    if (answer.status == 304) return res;  // no body, no Content-Length
    res.body() = std::move(answer.body);
    res.prepare_payload();
    if (req.method() == http::verb::head) res.body().clear();  // Content-Length stays that of GET
    return res;
  }

  void respond(http::response<http::string_body> res) {
    auto sp = std::make_shared<http::response<http::string_body>>(std::move(res));
    stream_.expires_after(kHttpBodyTimeout);  // a route may answer long after the request was read
    http::async_write(stream_, *sp, [self = shared_from_this(), sp](error_code ec, std::size_t) {
      if (ec) {
        self->untrack();
        error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        return;
      }
      self->answer_done(sp->keep_alive());
    });
  }

 public:
  // ---- a route's answer still pending: the client going away, streamed answers (http_route.h) ----

  /// Reads while a route's answer is pending, to notice the client closing (EOF or an error
  /// calls the on_client_gone callbacks). Bytes that arrive (a pipelined request) are kept for
  /// the next read_next(); the watch then ends.
  void watch_client() {
    if (watching_ || client_gone_) return;
    watching_ = true;
    stream_.expires_never();  // a turn may take minutes; the answer's writes have their own timeout
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, std::size_t n) {
      self->buffer_.commit(n);
      self->watching_ = false;
      if (ec && ec != asio::error::operation_aborted) self->client_went_away();
      if (auto next = std::exchange(self->after_watch_, nullptr); next && !self->client_gone_) next();
    });
  }

  void client_went_away() {
    if (client_gone_) return;
    client_gone_ = true;
    auto callbacks = std::exchange(gone_callbacks_, {});
    for (auto& fn : callbacks) fn();
    untrack();
    stream_.close();
  }

  /// The answer is out: the connection goes on (keep-alive) or ends, once the watch read stopped.
  void answer_done(bool keep_alive) {
    answer_pending_ = false;
    gone_callbacks_.clear();
    auto next = [self = shared_from_this(), keep_alive] { keep_alive ? self->read_next() : self->linger(); };
    if (!watching_) return next();
    after_watch_ = std::move(next);
    stream_.cancel();
  }

  std::shared_ptr<net::HttpStream> begin_stream(net::HttpRouteResponse head, unsigned version, bool keep_alive);

  /// Queues one piece of a streamed answer (already framed); false when the client is gone or
  /// stopped reading.
  bool stream_out(std::string bytes) {
    if (client_gone_) return false;
    if (out_bytes_ + bytes.size() > net::HttpStream::kMaxQueuedBytes) {
      client_went_away();
      return false;
    }
    out_bytes_ += bytes.size();
    out_.push_back(std::move(bytes));
    pump();
    return true;
  }
  void stream_end() {
    if (stream_ended_) return;
    stream_ended_ = true;
    if (chunked_) stream_out("0\r\n\r\n");
    pump();
  }
  bool chunked_ = true, stream_keep_alive_ = false, stream_ended_ = false;
  uint64_t stream_gen_ = 0;  // which begin_stream the current stream is: an older RouteStream is inert

 private:
  void pump() {
    if (writing_ || client_gone_) return;
    if (out_.empty()) {
      if (stream_ended_ && answer_pending_) answer_done(stream_keep_alive_);
      return;
    }
    writing_ = true;
    stream_.expires_after(kHttpBodyTimeout);  // only the write's: a pending watch read keeps no timeout
    asio::async_write(stream_, asio::buffer(out_.front()), [self = shared_from_this()](error_code ec, std::size_t) {
      self->writing_ = false;
      self->out_bytes_ -= self->out_.front().size();
      self->out_.pop_front();
      if (ec) return self->client_went_away();
      self->pump();
    });
  }

  // The answer is out and the connection ends: read and drop what the peer still sends (the rest
  // of a refused request), so that closing does not reset the connection before it read the answer.
  void linger() {
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    track();
    stream_.expires_after(kLingerTimeout);
    drain_ = std::make_unique<std::array<char, 16 * 1024>>();
    drain_next();
  }
  void drain_next() {
    stream_.async_read_some(asio::buffer(*drain_), [self = shared_from_this()](error_code ec, std::size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > kLingerBytes) {
        self->untrack();
        self->stream_.close();
        return;
      }
      self->drain_next();
    });
  }

  Stream stream_;
  Gateway& gateway_;
  std::shared_ptr<ReadingSessions> reading_;
  const ControlUi& control_ui_;
  std::optional<std::list<std::weak_ptr<HttpSession>>::iterator> tracked_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::unique_ptr<std::array<char, 16 * 1024>> drain_;
  std::size_t drained_ = 0;
  // A route's pending answer (watch_client, begin_stream).
  bool answer_pending_ = false, watching_ = false, client_gone_ = false, writing_ = false;
  std::vector<std::function<void()>> gone_callbacks_;
  std::function<void()> after_watch_;
  std::deque<std::string> out_;
  std::size_t out_bytes_ = 0;
};

/// A streamed answer of a route (http_route.h): HTTP/1.1 chunks on the session's socket.
class RouteStream final : public net::HttpStream {
 public:
  explicit RouteStream(std::shared_ptr<HttpSession> session) : session_(std::move(session)), gen_(session_->stream_gen_) {}
  ~RouteStream() override { end(); }
  bool write(std::string bytes) override {
    if (gen_ != session_->stream_gen_ || session_->stream_ended_) return false;
    if (bytes.empty()) return true;  // an empty chunk would end the stream
    if (!session_->chunked_) return session_->stream_out(std::move(bytes));
    char size[20];
    const int n = std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
    bytes.insert(0, size, static_cast<std::size_t>(n));
    bytes.append("\r\n");
    return session_->stream_out(std::move(bytes));
  }
  void end() override {
    if (gen_ == session_->stream_gen_) session_->stream_end();
  }

 private:
  std::shared_ptr<HttpSession> session_;
  uint64_t gen_;
};

std::shared_ptr<net::HttpStream> HttpSession::begin_stream(net::HttpRouteResponse head, unsigned version, bool keep_alive) {
  // HTTP/1.0 has no chunked encoding: the body then ends with the connection.
  stream_ended_ = false;  // a keep-alive connection's earlier stream ended
  ++stream_gen_;
  chunked_ = version >= 11;
  stream_keep_alive_ = chunked_ && keep_alive;
  const auto status = static_cast<http::status>(head.status);
  std::string out = "HTTP/1." + std::string(version >= 11 ? "1 " : "0 ") + std::to_string(head.status) + " " +
                    std::string(http::obsolete_reason(status)) + "\r\nServer: pincer/" PINCER_VERSION +
                    "\r\nX-Content-Type-Options: nosniff\r\nContent-Type: " + head.content_type + "\r\n";
  bool cache_control = false;
  for (const auto& [k, v] : head.headers) {
    cache_control = cache_control || beast::iequals(k, "cache-control");
    out += k + ": " + v + "\r\n";
  }
  if (!cache_control) out += "Cache-Control: no-store\r\n";
  if (chunked_) out += "Transfer-Encoding: chunked\r\n";
  if (!stream_keep_alive_) out += "Connection: close\r\n";
  out += "\r\n";
  stream_out(std::move(out));
  auto stream = std::make_shared<RouteStream>(shared_from_this());
  stream->write(std::move(head.body));
  return stream;
}

void ReadingSessions::make_room() {
  if (sessions.size() < kMaxReadingSessions) return;
  warn_throttled(last_warning, std::to_string(sessions.size()) +
                                   " connections are still sending a request (slow or silent clients); dropping the oldest");
  while (sessions.size() >= kMaxReadingSessions) {
    if (auto oldest = sessions.front().lock()) oldest->evict();  // untracks itself
    else sessions.pop_front();
  }
}

void start_http_session(Socket socket, Gateway& gateway, std::shared_ptr<ReadingSessions> reading, const ControlUi& control_ui) {
  std::make_shared<HttpSession>(std::move(socket), gateway, std::move(reading), control_ui)->start();
}

}  // namespace pincer::gateway::transport
