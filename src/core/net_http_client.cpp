#include "core/http_client.h"
#include "core/net_http_pool.h"
#include "core/net_http_proxy.h"
#include "core/net_tls.h"

#include "core/result.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <map>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace pincer::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

std::string HttpResponseHead::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() &&
        std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return v;
    }
  }
  return {};
}

std::optional<ParsedUrl> parse_url(std::string_view url) {
  ParsedUrl out;
  if (url.rfind("https://", 0) == 0) {
    out.tls = true;
    url.remove_prefix(8);
  } else if (url.rfind("http://", 0) == 0) {
    url.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  const size_t slash = url.find_first_of("/?");
  std::string_view authority = url.substr(0, slash);
  out.target = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  if (out.target[0] == '?') out.target = "/" + out.target;
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // credentials in URLs: refuse
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty()) {
      if (authority[0] != ':') return std::nullopt;
      out.port = std::string(authority.substr(1));
    }
  } else {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) out.port = std::string(authority.substr(colon + 1));
  }
  if (out.host.empty()) return std::nullopt;
  if (out.port.empty()) out.port = out.tls ? "443" : "80";
  if (!std::all_of(out.port.begin(), out.port.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      out.port.size() > 5) {
    return std::nullopt;
  }
  return out;
}

ssl::context& client_tls_context() {
  static ssl::context ctx = [] {
    ssl::context c(ssl::context::tls_client);
    c.set_default_verify_paths();
    error_code ignored;
    c.load_verify_file("/etc/ssl/certs/ca-certificates.crt", ignored);  // Debian's bundle
    c.set_verify_mode(ssl::verify_peer);
    return c;
  }();
  return ctx;
}

namespace {

TransportError make_error(const error_code& ec, const std::string& step) {
  TransportError e;
  e.what = step + ": " + ec.message();
  if (ec.category() == asio::error::get_system_category()) e.sys_errno = ec.value();
  e.timed_out = ec == beast::error::timeout;
  e.cancelled = ec == asio::error::operation_aborted;
  return e;
}

}  // namespace

/// Shared state of all requests of one client (so that in-flight requests can outlive it safely).
struct HttpClient::Impl {
  Impl(EventLoop& l, HttpClientOptions o) : loop(l), pool(std::make_shared<HttpConnectionPool>(l, o)) {}
  EventLoop& loop;
  RequestId next_id = 1;
  std::map<RequestId, std::function<void()>> cancellers;
  std::shared_ptr<HttpConnectionPool> pool;  ///< idle keep-alive connections (core/net_http_pool.h)
};

namespace {

/// One request over a plain or TLS stream: a pooled keep-alive connection to the same origin when
/// one is idle, else a new one.
template <class Stream>
class Exchange : public std::enable_shared_from_this<Exchange<Stream>> {
 public:
  Exchange(std::shared_ptr<HttpClient::Impl> client, HttpClient::RequestId id, ParsedUrl url, HttpRequestSpec spec,
           HttpCallbacks cb)
      : client_(std::move(client)), id_(id), url_(std::move(url)), spec_(std::move(spec)), cb_(std::move(cb)),
        resolver_(client_->loop.context()) {
    // Beast reads at most the buffer's free capacity (at least 512 bytes): room for a whole
    // streamed reply's pending chunks in one read, so they are decoded (and their events sent)
    // together instead of one 512-byte read and one wake-up each.
    buffer_.reserve(chunk_.size());
  }

  void start(std::optional<Proxy> proxy) {
    proxy_ = std::move(proxy);
    client_->cancellers[id_] = [weak = this->weak_from_this()] {
      if (auto s = weak.lock()) s->cancel();
    };
    // Requests with check_address (the SSRF guard) never use or feed the pool: their connection
    // must go to the addresses they checked themselves.
    poolable_ = !spec_.check_address;
    if (poolable_) {
      origin_ = std::string(url_.tls ? "https://" : "http://") + authority();
      if (proxy_) origin_ += " via " + proxy_->url.host + ":" + proxy_->url.port + " " + proxy_->authorization;
      if (auto pooled = client_->pool->take<Stream>(origin_)) {
        stream_ = std::move(pooled);
        reused_ = true;
        return send_request();
      }
    }
    connect_fresh();
  }

  void cancel() {
    if (done_) return;
    cancelled_ = true;
    resolver_.cancel();
    if (stream_) {
      error_code ignored;
      tcp().socket().close(ignored);
    }
  }

 private:
  beast::tcp_stream& tcp() { return beast::get_lowest_layer(*stream_); }

  void connect_fresh() {
    auto& ioc = client_->loop.context();
    if constexpr (std::is_same_v<Stream, PlainStream>) {
      stream_ = std::make_unique<Stream>(ioc);
    } else {
      stream_ = std::make_unique<Stream>(ioc, client_tls_context());
    }
    auto self = this->shared_from_this();
    // With a proxy, the TCP connection goes to the proxy (HTTP_PROXY / HTTPS_PROXY, as curl).
    const std::string& host = proxy_ ? proxy_->url.host : url_.host;
    const std::string& port = proxy_ ? proxy_->url.port : url_.port;
    resolver_.async_resolve(host, port, [self, host, port](error_code ec, tcp::resolver::results_type results) {
      if (ec) return self->fail(ec, "resolve " + host);
      if (self->spec_.check_address) {
        for (const auto& r : results) {
          if (auto refused = self->spec_.check_address(r.endpoint().address().to_string())) {
            TransportError e;
            e.what = *refused;
            return self->finish(e);
          }
        }
      }
      if (self->done_) return;
      self->tcp().expires_after(std::chrono::milliseconds(self->spec_.connect_timeout_ms));
      self->tcp().async_connect(results, [self, host, port](error_code ec, const tcp::endpoint&) {
        if (ec) return self->fail(ec, "connect to " + host + ":" + port);
        if (self->proxy_ && self->url_.tls) return self->open_tunnel();
        self->after_connect();
      });
    });
  }

  /// HTTPS through a proxy: `CONNECT host:port`, then TLS inside the tunnel.
  void open_tunnel() {
    auto self = this->shared_from_this();
    auto connect = std::make_shared<http::request<http::empty_body>>(http::verb::connect, authority(), 11);
    connect->set(http::field::host, authority());
    if (!proxy_->authorization.empty()) connect->set(http::field::proxy_authorization, proxy_->authorization);
    http::async_write(tcp(), *connect, [self, connect](error_code ec, std::size_t) {
      if (ec) return self->fail(ec, "send CONNECT to proxy " + self->proxy_->url.host);
      auto res = std::make_shared<http::response_parser<http::empty_body>>();
      res->skip(true);  // a CONNECT answer has no body
      http::async_read(self->tcp(), self->buffer_, *res, [self, res](error_code ec, std::size_t) {
        if (ec) return self->fail(ec, "read CONNECT answer from proxy " + self->proxy_->url.host);
        if (res->get().result_int() != 200) {
          TransportError e;
          e.what = "proxy " + self->proxy_->url.host + " refused CONNECT " + self->authority() + ": HTTP " +
                   std::to_string(res->get().result_int());
          return self->finish(e);
        }
        self->after_connect();
      });
    });
  }

  std::string authority() const {
    const std::string host = url_.host.find(':') != std::string::npos ? "[" + url_.host + "]" : url_.host;
    return host + ":" + url_.port;
  }

  void after_connect() {
    if constexpr (std::is_same_v<Stream, PlainStream>) {
      send_request();
    } else {
      if (!SSL_set_tlsext_host_name(stream_->native_handle(), url_.host.c_str())) {
        return fail(error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category()), "TLS SNI");
      }
      stream_->set_verify_callback(ssl::host_name_verification(url_.host));
      auto self = this->shared_from_this();
      stream_->async_handshake(ssl::stream_base::client, [self](error_code ec) {
        if (ec) return self->fail(ec, "TLS handshake with " + self->url_.host);
        self->send_request();
      });
    }
  }

  void build_request() {
    req_.method_string(spec_.method);
    // Plain HTTP through a proxy uses the absolute form of the target.
    req_.target(proxy_ && !url_.tls ? "http://" + authority() + url_.target : url_.target);
    if (proxy_ && !url_.tls && !proxy_->authorization.empty()) req_.set(http::field::proxy_authorization, proxy_->authorization);
    req_.version(11);
    const bool default_port = url_.port == (url_.tls ? "443" : "80");
    const std::string host = url_.host.find(':') != std::string::npos ? "[" + url_.host + "]" : url_.host;
    req_.set(http::field::host, default_port ? host : host + ":" + url_.port);
    req_.set(http::field::user_agent, "pincer/" PINCER_VERSION);
    // HTTP/1.1 keeps the connection open by default; unpooled requests say they will close it.
    if (!poolable_) req_.set(http::field::connection, "close");
    for (const auto& [k, v] : spec_.headers) req_.set(k, v);
    req_.body() = std::move(spec_.body);
    req_.prepare_payload();
    if (!req_.keep_alive()) poolable_ = false;  // the caller asked for Connection: close
  }

  void send_request() {
    if (!request_built_) {
      build_request();
      request_built_ = true;
    }
    parser_.emplace();
    parser_->body_limit(boost::none);  // streams may be long; the caller bounds what it keeps
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_write(*stream_, req_, [self](error_code ec, std::size_t) {
      if (ec) {
        if (self->retry_fresh(ec)) return;
        return self->fail(ec, "send request to " + self->url_.host);
      }
      self->read_header();
    });
  }

  /// A pooled connection that turns out dead (EOF or reset before any byte of the response) is
  /// replaced once by a new connection and the request sent again: the server never saw it, or
  /// saw it and dropped it without answering (idempotency is then the same as a new connection's).
  bool retry_fresh(const error_code& ec) {
    if (!reused_ || retried_ || cancelled_ || done_) return false;
    if (parser_->got_some() || buffer_.size() > 0) return false;
    const bool dead = ec == http::error::end_of_stream || ec == asio::error::eof ||
                      ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
                      ec == asio::error::connection_aborted || ec == ssl::error::stream_truncated;
    if (!dead) return false;
    retried_ = true;
    reused_ = false;
    error_code ignored;
    tcp().socket().close(ignored);
    buffer_.clear();
    connect_fresh();
    return true;
  }

  void read_header() {
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_read_header(*stream_, buffer_, *parser_, [self](error_code ec, std::size_t) {
      if (ec) {
        if (self->retry_fresh(ec)) return;
        return self->fail(ec, "read response from " + self->url_.host);
      }
      HttpResponseHead head;
      head.status = static_cast<int>(self->parser_->get().result_int());
      for (const auto& f : self->parser_->get()) head.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
      if (self->cb_.on_head) self->cb_.on_head(head);
      if (self->done_ || !self->parse_buffered()) return;
      self->read_body();
    });
  }

  void read_body() {
    if (parser_->is_done()) return finish(std::nullopt);
    parser_->get().body().data = chunk_.data();
    parser_->get().body().size = chunk_.size();
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_read_some(*stream_, buffer_, *parser_, [self](error_code ec, std::size_t) {
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = self->chunk_.size() - self->parser_->get().body().size;
      if (!ec) {  // with what else this read brought, in one hand-over
        if (!self->parse_buffered(got)) return;
        return self->read_body();
      }
      self->deliver_body();
      if (self->done_) return;
      // A server that closes without a length ends the body at EOF.
      if (ec == http::error::end_of_stream || ec == asio::error::eof) {
        self->poolable_ = false;
        return self->finish(std::nullopt);
      }
      self->fail(ec, "read response body from " + self->url_.host);
    });
  }

  /// Hands what the parser wrote into chunk_ to on_data.
  void deliver_body() {
    const size_t got = chunk_.size() - parser_->get().body().size;
    if (got > 0 && cb_.on_data && !done_) cb_.on_data(std::string_view(chunk_.data(), got));
  }

  /// Parses what is already buffered here, in this handler, and hands the body bytes to on_data
  /// in one call: Beast's read_some stops at each chunk of a chunked body and completes through
  /// the scheduler even when the next chunks are already in the buffer (a streamed model reply
  /// arrives as one read of many SSE chunks: each would cost a trip through the event loop and a
  /// decoder pass of its own). Returns false when the exchange ended (finished or failed).
  /// `filled`: body bytes already in chunk_ (from the read that just completed).
  bool parse_buffered(std::size_t filled = 0) {
    const auto hand_over = [&] {
      if (filled > 0 && cb_.on_data && !done_) cb_.on_data(std::string_view(chunk_.data(), filled));
      filled = 0;
    };
    while (!done_ && !parser_->is_done() && buffer_.size() > 0) {
      if (filled == chunk_.size()) hand_over();
      if (done_) return false;
      parser_->get().body().data = chunk_.data() + filled;
      parser_->get().body().size = chunk_.size() - filled;
      error_code ec;
      const std::size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t wrote = chunk_.size() - filled - parser_->get().body().size;
      filled += wrote;
      if (ec == http::error::need_more) break;  // a partial element: read more bytes
      if (ec) {
        hand_over();
        if (!done_) fail(ec, "read response body from " + url_.host);
        return false;
      }
      if (used == 0 && wrote == 0) break;  // no progress: read more
    }
    hand_over();
    return !done_;
  }

  void fail(const error_code& ec, const std::string& step) {
    TransportError e = make_error(ec, step);
    if (cancelled_) {
      e.cancelled = true;
      e.what = "request cancelled";
    }
    finish(e);
  }

  /// Whether the connection may carry another request: the response was read to its end (length
  /// or last chunk, not EOF), both sides keep it alive, and nothing more is buffered.
  bool reusable() {
    if (!poolable_ || cancelled_ || !stream_ || !parser_ || !parser_->is_done()) return false;
    const auto& res = parser_->get();
    return res.keep_alive() && !parser_->need_eof() && res.result_int() != 101 && buffer_.size() == 0 &&
           tcp().socket().is_open();
  }

  void finish(const std::optional<TransportError>& error) {
    if (done_) return;
    done_ = true;
    client_->cancellers.erase(id_);
    // Back to the pool before on_done, so that a request started from on_done can reuse it.
    if (!error && reusable()) {
      client_->pool->put<Stream>(origin_, std::move(stream_));
    } else if (stream_) {
      error_code ignored;
      tcp().socket().close(ignored);
    }
    if (cb_.on_done) cb_.on_done(error);
  }

  std::shared_ptr<HttpClient::Impl> client_;
  HttpClient::RequestId id_;
  ParsedUrl url_;
  HttpRequestSpec spec_;
  HttpCallbacks cb_;
  std::unique_ptr<Stream> stream_;
  tcp::resolver resolver_;
  std::optional<Proxy> proxy_;
  std::string origin_;  ///< pool key: scheme, host:port and the proxy with its credentials
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  std::array<char, 16 * 1024> chunk_;  // not zeroed: the parser writes what is read (16 KB per model call)
  bool done_ = false;
  bool cancelled_ = false;
  bool poolable_ = false;
  bool reused_ = false;   ///< stream_ came from the pool
  bool retried_ = false;  ///< the one fresh-connection retry was used
  bool request_built_ = false;
};

}  // namespace

HttpClient::HttpClient(EventLoop& loop, HttpClientOptions options) : impl_(std::make_shared<Impl>(loop, options)) {}

HttpClient::~HttpClient() {
  // Cancel what is still running; the exchanges hold their own reference to impl_.
  auto cancellers = impl_->cancellers;
  for (auto& [id, cancel] : cancellers) cancel();
  impl_->pool->clear();
}

size_t HttpClient::idle_connections() const { return impl_->pool->size(); }

HttpClient::RequestId HttpClient::start(HttpRequestSpec spec, HttpCallbacks callbacks) {
  const RequestId id = impl_->next_id++;
  auto url = parse_url(spec.url);
  if (!url) {
    TransportError e;
    e.what = "invalid URL \"" + spec.url + "\" (expected http://host[:port]/path or https://…)";
    asio::post(impl_->loop.context(), [cb = std::move(callbacks.on_done), e] {
      if (cb) cb(e);
    });
    return id;
  }
  // A header value with a line break would inject headers of its own, and Beast throws (taking the
  // process down) on one over 64 KiB: refuse the request instead, naming the header, not its value.
  for (const auto& [name, value] : spec.headers) {
    std::string problem;
    if (name.empty() || name.size() > 256) problem = "has an invalid name";
    else if (value.size() > kMaxHeaderValueBytes) problem = "is longer than " + std::to_string(kMaxHeaderValueBytes) + " bytes";
    else if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) problem = "contains a line break or NUL";
    if (problem.empty()) continue;
    TransportError e;
    e.what = "request header " + name + " " + problem + " (a misconfigured API key or header?); the request was not sent";
    asio::post(impl_->loop.context(), [cb = std::move(callbacks.on_done), e] {
      if (cb) cb(e);
    });
    return id;
  }
  auto proxy = spec.check_address ? pincer::Result<std::optional<Proxy>>(std::optional<Proxy>{}) : proxy_for(*url);
  if (!proxy) {
    TransportError e;
    e.what = proxy.error().message;
    asio::post(impl_->loop.context(), [cb = std::move(callbacks.on_done), e] {
      if (cb) cb(e);
    });
    return id;
  }
  if (url->tls) {
    auto ex = std::make_shared<Exchange<TlsStream>>(impl_, id, *url, std::move(spec), std::move(callbacks));
    ex->start(std::move(*proxy));
  } else {
    auto ex = std::make_shared<Exchange<PlainStream>>(impl_, id, *url, std::move(spec), std::move(callbacks));
    ex->start(std::move(*proxy));
  }
  return id;
}

void HttpClient::cancel(RequestId id) {
  auto it = impl_->cancellers.find(id);
  if (it == impl_->cancellers.end()) return;
  auto cancel = it->second;
  cancel();
}

}  // namespace pincer::net
