// Boost.Beast transport for the gateway: accepts TCP connections, answers HTTP probes, upgrades
// WebSocket requests and bridges each socket to Gateway through ClientLink. All handlers run on
// one io_context thread (docs/architecture.md "Concurrency model").
#include "gateway/net_server.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include "gateway/protocol/constants.h"
#include "gateway/web_assets.h"

namespace pincer::gateway {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using boost::system::error_code;
// Concrete io_context executors instead of the type-erased default: less work per operation on
// the hot path (docs/benchmarks.md, health RPC/s).
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using Stream = beast::basic_stream<tcp, Executor>;

constexpr auto kHttpReadTimeout = std::chrono::seconds(30);
constexpr int64_t kAcceptBackoffMs = 200;
// Sockets that have not completed `connect` yet (each holds a descriptor for up to 10 s).
constexpr std::size_t kMaxPendingHandshakes = 256;
constexpr std::size_t kHttpBodyLimit = 64 * 1024;
/// Largest body any route may take (each route sets its own limit up to this).
constexpr std::size_t kHttpRouteBodyLimit = 8 * 1024 * 1024;

bool is_loopback(const asio::ip::address& a) {
  if (a.is_loopback()) return true;
  return a.is_v6() && a.to_v6().is_v4_mapped() &&
         asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).is_loopback();
}

PeerInfo peer_info(const Socket& socket, const http::request<http::string_body>& req) {
  PeerInfo peer;
  error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (!ec) {
    peer.remote_ip = ep.address().to_string();
    peer.loopback = is_loopback(ep.address());
  }
  for (const auto& field : req) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    peer.headers[name] = std::string(field.value());
  }
  if (auto it = req.find(http::field::host); it != req.end()) peer.host = std::string(it->value());
  if (auto it = req.find(http::field::origin); it != req.end()) peer.origin = std::string(it->value());
  return peer;
}

/// One upgraded WebSocket connection; the Gateway talks to it as a ClientLink.
class WsSession final : public ClientLink, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(Socket socket, Gateway& gateway) : ws_(std::move(socket)), gateway_(gateway), timer_(ws_.get_executor()) {}

  void start(http::request<http::string_body> req) {
    PeerInfo peer = peer_info(beast::get_lowest_layer(ws_).socket(), req);
    beast::get_lowest_layer(ws_).expires_never();
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(10);
    // Beast pings after half the idle timeout: a ping every kPingIntervalMs, and a peer silent for
    // twice that is dropped.
    timeouts.idle_timeout = std::chrono::milliseconds(2 * kPingIntervalMs);
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "pincer/" PINCER_VERSION); }));
    ws_.text(true);
    ws_.auto_fragment(false);
    ws_.read_message_max(kMaxPreConnectBytes);
    ws_.async_accept(req, [self = shared_from_this(), peer = std::move(peer)](error_code ec) mutable {
      if (ec) return;  // upgrade failed; the socket simply goes away
      self->on_accepted(std::move(peer));
    });
  }

  // ClientLink
  void send(std::string text) override {
    if (close_started_) return;
    buffered_ += text.size();
    queue_.push_back(std::move(text));
    if (!writing_) write_next();
  }
  std::size_t buffered_bytes() const override { return buffered_; }
  void close(uint16_t code, std::string reason) override {
    if (close_requested_) return;
    close_requested_ = true;
    close_reason_ = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
    if (!writing_) start_close();
  }
  void set_max_message_bytes(std::size_t bytes) override { ws_.read_message_max(bytes); }

 private:
  void on_accepted(PeerInfo peer) {
    id_ = gateway_.open(*this, std::move(peer));
    registered_ = true;
    timer_.expires_after(std::chrono::milliseconds(kHandshakeTimeoutMs));
    timer_.async_wait([weak = weak_from_this()](error_code ec) {
      auto self = weak.lock();
      if (!ec && self && self->registered_) self->gateway_.on_handshake_timeout(self->id_);
    });
    read_next();
  }

  void read_next() {
    ws_.async_read(buffer_, [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    if (ec) return finish(ec);
    const auto data = buffer_.cdata();
    gateway_.on_message(id_, std::string_view(static_cast<const char*>(data.data()), data.size()));
    buffer_.consume(buffer_.size());
    // One large message must not pin its buffer for the connection's lifetime (LESSONS 7).
    if (buffer_.capacity() > 256 * 1024) buffer_.shrink_to_fit();
    read_next();  // keep one read pending until the socket dies: it also completes the close handshake
  }

  void write_next() {
    writing_ = true;
    ws_.async_write(asio::buffer(queue_.front()), [self = shared_from_this()](error_code ec, std::size_t) {
      self->on_write(ec);
    });
  }

  void on_write(error_code ec) {
    writing_ = false;
    buffered_ -= queue_.front().size();
    queue_.pop_front();
    if (ec) {
      queue_.clear();
      buffered_ = 0;
      beast::get_lowest_layer(ws_).socket().close(ec);
      return;
    }
    if (!queue_.empty()) return write_next();
    if (close_requested_) start_close();
  }

  void start_close() {
    if (close_started_) return;
    close_started_ = true;
    ws_.async_close(close_reason_, [self = shared_from_this()](error_code ec) {
      if (ec) {
        error_code ignored;
        beast::get_lowest_layer(self->ws_).socket().close(ignored);
      }
    });
  }

  void finish(error_code ec) {
    timer_.cancel();
    if (registered_) {
      registered_ = false;
      gateway_.on_closed(id_);
    }
    if (ec != websocket::error::closed && ec != asio::error::operation_aborted && ec != asio::error::eof) {
      spdlog::debug("conn {}: socket ended: {}", id_, ec.message());
    }
  }

  websocket::stream<Stream> ws_;
  Gateway& gateway_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  std::size_t buffered_ = 0;
  bool writing_ = false;
  bool close_requested_ = false;
  bool close_started_ = false;
  websocket::close_reason close_reason_;
  ConnId id_ = 0;
  bool registered_ = false;
};

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

/// Plain HTTP on the same port: probes and the web chat UI; HTTP APIs later (GW-9).
class HttpSession final : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(Socket socket, Gateway& gateway) : stream_(std::move(socket)), gateway_(gateway) {}

  void start() { read_next(); }

 private:
  void read_next() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(kHttpRouteBodyLimit);  // checked against Content-Length when the header ends
    stream_.expires_after(kHttpReadTimeout);
    // The header first: the body limit depends on where the request goes (a webhook route's
    // own limit, else kHttpBodyLimit), so no request is buffered beyond what its target accepts.
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec) return self->on_read(ec);
      const auto target = self->parser_->get().target();
      const std::string path(target.substr(0, target.find('?')));
      const net::HttpRoute* route = self->gateway_.http_routes().find(path);
      const std::size_t limit = route ? std::min(route->max_body_bytes, kHttpRouteBodyLimit) : kHttpBodyLimit;
      if (const auto length = self->parser_->content_length(); length && *length > limit) {
        return self->on_read(http::error::body_limit);  // 413 without reading the body
      }
      self->parser_->body_limit(limit);  // for bodies without Content-Length (chunked)
      http::async_read(self->stream_, self->buffer_, *self->parser_,
                       [self](error_code ec2, std::size_t) { self->on_read(ec2); });
    });
  }

  void on_read(error_code ec) {
    if (ec == http::error::body_limit) {
      http::response<http::string_body> res{http::status::payload_too_large, 11};
      res.set(http::field::content_type, "application/json; charset=utf-8");  // as every other API error
      res.body() = R"({"ok":false,"error":"body too large"})";
      res.keep_alive(false);
      res.prepare_payload();
      return respond(std::move(res));
    }
    if (ec == http::error::end_of_stream || ec) {
      error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    auto req = parser_->release();
    if (websocket::is_upgrade(req)) {
      if (gateway_.shutting_down()) return;
      auto ws = std::make_shared<WsSession>(stream_.release_socket(), gateway_);
      ws->start(std::move(req));
      return;
    }
    const std::string path(req.target().substr(0, req.target().find('?')));
    if (const net::HttpRoute* route = gateway_.http_routes().find(path)) return dispatch(*route, std::move(req));
    respond(handle(req));
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
    if (req.body().size() > route.max_body_bytes) {
      return respond(make({413, "application/json; charset=utf-8", R"({"ok":false,"error":"body too large"})", {}}));
    }
    net::HttpRouteRequest in;
    in.method = std::string(req.method_string());
    const std::string_view target(req.target().data(), req.target().size());
    in.path = std::string(target.substr(0, target.find('?')));
    if (auto q = target.find('?'); q != std::string_view::npos) in.query = std::string(target.substr(q + 1));
    for (const auto& f : req) {
      std::string name(f.name_string());
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      in.headers[name] = std::string(f.value());
    }
    in.body = std::move(req.body());
    error_code ignored;
    in.remote_address = stream_.socket().remote_endpoint(ignored).address().to_string();
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
    const WebAsset* asset = live || ready ? nullptr : find_web_asset(path);
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

  void respond(http::response<http::string_body> res) {
    auto sp = std::make_shared<http::response<http::string_body>>(std::move(res));
    http::async_write(stream_, *sp, [self = shared_from_this(), sp](error_code ec, std::size_t) {
      if (ec || !sp->keep_alive()) {
        error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        return;
      }
      self->read_next();
    });
  }

  Stream stream_;
  Gateway& gateway_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
};

/// How soon clients may expect the gateway back after an in-process restart (the shutdown event).
constexpr int64_t kRestartExpectedMs = 1500;

/// Accept loop, periodic timers and signal handling.
class Server {
 public:
  Server(asio::io_context& ioc, Gateway& gateway)
      : ioc_(ioc), gateway_(gateway), acceptor_(ioc.get_executor()), tick_(ioc), health_(ioc), presence_(ioc), accept_retry_(ioc), stop_(ioc), signals_(ioc, SIGTERM, SIGINT, SIGHUP) {
    signals_.add(SIGUSR1);  // restart in process (as OpenClaw), also raised by a config reload
  }

  Status listen(const ServerOptions& options) {
    error_code ec;
    auto address = asio::ip::make_address(options.host, ec);
    if (ec) return Error{"LISTEN_FAILED", "invalid bind address \"" + options.host + "\": " + ec.message()};
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    auto where = options.host + ":" + std::to_string(options.port);
    if (acceptor_.open(endpoint.protocol(), ec); ec) return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message()};
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (acceptor_.bind(endpoint, ec); ec) return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message()};
    if (acceptor_.listen(asio::socket_base::max_listen_connections, ec); ec) {
      return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message()};
    }
    return Ok{};
  }

  int port() const { return acceptor_.local_endpoint().port(); }

  void start() {
    accept_next();
    schedule(tick_, kTickIntervalMs, [this] { gateway_.tick(); });
    schedule(health_, kHealthRefreshMs, [this] {
      gateway_.refresh_health();
      ::malloc_trim(0);  // give memory freed after a burst back to the system
    });
    schedule(presence_, kPresenceFlushMs, [this] { gateway_.flush_presence(); });
    signals_.async_wait([this](error_code ec, int signo) {
      if (ec) return;
      restart_ = signo == SIGUSR1;
      begin_shutdown(signo == SIGTERM ? "SIGTERM" : signo == SIGHUP ? "SIGHUP" : restart_ ? "SIGUSR1" : "SIGINT");
    });
  }

  bool restart_requested() const { return restart_; }

 private:
  void accept_next() {
    acceptor_.async_accept([this](error_code ec, Socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
        // Out of descriptors (EMFILE/ENFILE) or similar: the pending connection stays in the
        // backlog, so accepting again at once would spin. Pause, and log once per pause.
        spdlog::warn("accept failed: {}; pausing accepts for {} ms", ec.message(), kAcceptBackoffMs);
        accept_retry_.expires_after(std::chrono::milliseconds(kAcceptBackoffMs));
        accept_retry_.async_wait([this](error_code wait_ec) {
          if (!wait_ec && !gateway_.shutting_down()) accept_next();
        });
        return;
      }
      if (gateway_.pending_handshakes() >= kMaxPendingHandshakes) {
        // Unauthenticated sockets are capped so that they cannot take every descriptor.
        error_code ignored;
        socket.close(ignored);
      } else {
        socket.set_option(tcp::no_delay(true), ec);  // small frames, pipelined: no Nagle delays
        std::make_shared<HttpSession>(std::move(socket), gateway_)->start();
      }
      accept_next();
    });
  }

  template <class Fn>
  void schedule(asio::steady_timer& timer, int64_t period_ms, Fn fn) {
    timer.expires_after(std::chrono::milliseconds(period_ms));
    timer.async_wait([this, &timer, period_ms, fn](error_code ec) {
      if (ec) return;
      fn();
      schedule(timer, period_ms, fn);
    });
  }

  void begin_shutdown(const char* why) {
    if (restart_) spdlog::info("restart requested ({}); stopping to start again", why);
    else spdlog::info("received {}; shutting down", why);
    error_code ignored;
    acceptor_.close(ignored);
    tick_.cancel();
    health_.cancel();
    presence_.cancel();
    accept_retry_.cancel();
    gateway_.shutdown(std::string(restart_ ? "gateway restarting (" : "gateway stopping (") + why + ")",
                      restart_ ? std::optional<int64_t>(kRestartExpectedMs) : std::nullopt);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(800);
    wait_for_clients();
  }

  // Polls until every client has finished its close handshake, bounded by the deadline.
  void wait_for_clients() {
    if (gateway_.client_count() == 0 || std::chrono::steady_clock::now() >= deadline_) {
      ioc_.stop();
      return;
    }
    stop_.expires_after(std::chrono::milliseconds(5));
    stop_.async_wait([this](error_code) { wait_for_clients(); });
  }

  asio::io_context& ioc_;
  Gateway& gateway_;
  Acceptor acceptor_;
  asio::steady_timer tick_, health_, presence_, accept_retry_, stop_;
  asio::signal_set signals_;
  std::chrono::steady_clock::time_point deadline_;
  bool restart_ = false;
};

}  // namespace

Status run_server(EventLoop& loop, Gateway& gateway, const ServerOptions& options, bool* restart) {
  asio::io_context& ioc = loop.context();
  Server server(ioc, gateway);
  if (auto st = server.listen(options); !st) return st;
  server.start();
  if (options.on_listening) options.on_listening(server.port());
  loop.run();
  if (restart) *restart = server.restart_requested();
  return Ok{};
}

}  // namespace pincer::gateway
