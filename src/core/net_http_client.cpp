#include "core/http_client.h"

#include <algorithm>
#include <array>
#include <cctype>
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

namespace {

ssl::context& tls_context() {
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
  explicit Impl(EventLoop& l) : loop(l) {}
  EventLoop& loop;
  RequestId next_id = 1;
  std::map<RequestId, std::function<void()>> cancellers;
};

namespace {

/// One request over a plain or TLS stream.
template <class Stream>
class Exchange : public std::enable_shared_from_this<Exchange<Stream>> {
 public:
  Exchange(std::shared_ptr<HttpClient::Impl> client, HttpClient::RequestId id, ParsedUrl url, HttpRequestSpec spec,
           HttpCallbacks cb, Stream stream)
      : client_(std::move(client)), id_(id), url_(std::move(url)), spec_(std::move(spec)), cb_(std::move(cb)),
        stream_(std::move(stream)), resolver_(client_->loop.context()) {}

  void start() {
    auto self = this->shared_from_this();
    client_->cancellers[id_] = [weak = this->weak_from_this()] {
      if (auto s = weak.lock()) s->cancel();
    };
    resolver_.async_resolve(url_.host, url_.port, [self](error_code ec, tcp::resolver::results_type results) {
      if (ec) return self->fail(ec, "resolve " + self->url_.host);
      self->tcp().expires_after(std::chrono::milliseconds(self->spec_.connect_timeout_ms));
      self->tcp().async_connect(results, [self](error_code ec, const tcp::endpoint&) {
        if (ec) return self->fail(ec, "connect to " + self->url_.host + ":" + self->url_.port);
        self->after_connect();
      });
    });
  }

  void cancel() {
    if (done_) return;
    cancelled_ = true;
    resolver_.cancel();
    error_code ignored;
    tcp().socket().close(ignored);
  }

 private:
  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream_); }

  void after_connect() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      send_request();
    } else {
      if (!SSL_set_tlsext_host_name(stream_.native_handle(), url_.host.c_str())) {
        return fail(error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category()), "TLS SNI");
      }
      stream_.set_verify_callback(ssl::host_name_verification(url_.host));
      auto self = this->shared_from_this();
      stream_.async_handshake(ssl::stream_base::client, [self](error_code ec) {
        if (ec) return self->fail(ec, "TLS handshake with " + self->url_.host);
        self->send_request();
      });
    }
  }

  void send_request() {
    req_.method_string(spec_.method);
    req_.target(url_.target);
    req_.version(11);
    const bool default_port = url_.port == (url_.tls ? "443" : "80");
    const std::string host = url_.host.find(':') != std::string::npos ? "[" + url_.host + "]" : url_.host;
    req_.set(http::field::host, default_port ? host : host + ":" + url_.port);
    req_.set(http::field::user_agent, "pincer/" PINCER_VERSION);
    req_.set(http::field::connection, "close");
    for (const auto& [k, v] : spec_.headers) req_.set(k, v);
    req_.body() = std::move(spec_.body);
    req_.prepare_payload();
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_write(stream_, req_, [self](error_code ec, std::size_t) {
      if (ec) return self->fail(ec, "send request to " + self->url_.host);
      self->parser_.body_limit(boost::none);  // streams may be long; the caller bounds what it keeps
      self->read_header();
    });
  }

  void read_header() {
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_read_header(stream_, buffer_, parser_, [self](error_code ec, std::size_t) {
      if (ec) return self->fail(ec, "read response from " + self->url_.host);
      HttpResponseHead head;
      head.status = static_cast<int>(self->parser_.get().result_int());
      for (const auto& f : self->parser_.get()) head.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
      if (self->cb_.on_head) self->cb_.on_head(head);
      if (self->done_) return;
      self->read_body();
    });
  }

  void read_body() {
    if (parser_.is_done()) return finish(std::nullopt);
    parser_.get().body().data = chunk_.data();
    parser_.get().body().size = chunk_.size();
    tcp().expires_after(std::chrono::milliseconds(spec_.idle_timeout_ms));
    auto self = this->shared_from_this();
    http::async_read_some(stream_, buffer_, parser_, [self](error_code ec, std::size_t) {
      if (ec == http::error::need_buffer) ec = {};
      const size_t got = self->chunk_.size() - self->parser_.get().body().size;
      if (got > 0 && self->cb_.on_data && !self->done_) {
        self->cb_.on_data(std::string_view(self->chunk_.data(), got));
      }
      if (self->done_) return;
      if (ec) {
        // A server that closes without a length ends the body at EOF.
        if (ec == http::error::end_of_stream || ec == asio::error::eof) return self->finish(std::nullopt);
        return self->fail(ec, "read response body from " + self->url_.host);
      }
      self->read_body();
    });
  }

  void fail(const error_code& ec, const std::string& step) {
    TransportError e = make_error(ec, step);
    if (cancelled_) {
      e.cancelled = true;
      e.what = "request cancelled";
    }
    finish(e);
  }

  void finish(const std::optional<TransportError>& error) {
    if (done_) return;
    done_ = true;
    client_->cancellers.erase(id_);
    error_code ignored;
    tcp().socket().close(ignored);
    if (cb_.on_done) cb_.on_done(error);
  }

  std::shared_ptr<HttpClient::Impl> client_;
  HttpClient::RequestId id_;
  ParsedUrl url_;
  HttpRequestSpec spec_;
  HttpCallbacks cb_;
  Stream stream_;
  tcp::resolver resolver_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response_parser<http::buffer_body> parser_;
  std::array<char, 16 * 1024> chunk_{};
  bool done_ = false;
  bool cancelled_ = false;
};

}  // namespace

HttpClient::HttpClient(EventLoop& loop) : impl_(std::make_shared<Impl>(loop)) {}

HttpClient::~HttpClient() {
  // Cancel what is still running; the exchanges hold their own reference to impl_.
  auto cancellers = impl_->cancellers;
  for (auto& [id, cancel] : cancellers) cancel();
}

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
  auto& ioc = impl_->loop.context();
  if (url->tls) {
    auto ex = std::make_shared<Exchange<beast::ssl_stream<beast::tcp_stream>>>(
        impl_, id, *url, std::move(spec), std::move(callbacks), beast::ssl_stream<beast::tcp_stream>(ioc, tls_context()));
    ex->start();
  } else {
    auto ex = std::make_shared<Exchange<beast::tcp_stream>>(impl_, id, *url, std::move(spec), std::move(callbacks),
                                                            beast::tcp_stream(ioc));
    ex->start();
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
