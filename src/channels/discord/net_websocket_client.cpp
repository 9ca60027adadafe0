// WebSocketClient over Boost.Beast on the event loop's io_context (its handlers run on the loop
// thread). Plain ws:// and TLS wss:// share one template through std::variant.
#include "channels/discord/websocket_client.h"

#include <deque>
#include <variant>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "core/http_client.h"
#include "core/net_tls.h"

namespace pincer::channels::discord {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {
using PlainWs = websocket::stream<beast::tcp_stream>;
using TlsWs = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;
}  // namespace

struct WebSocketClient::Impl : std::enable_shared_from_this<Impl> {
  explicit Impl(asio::io_context& c) : ioc(c), resolver(c), timer(c) {}
  asio::io_context& ioc;
  tcp::resolver resolver;
  asio::steady_timer timer;
  std::variant<std::monostate, std::unique_ptr<PlainWs>, std::unique_ptr<TlsWs>> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  bool writing = false;
  bool is_open = false;
  bool finished = false;  ///< on_close delivered or close() called: no more callbacks
  std::string url;
  WebSocketHandlers handlers;

  template <class F>
  void with_ws(F&& f) {
    if (auto* p = std::get_if<std::unique_ptr<PlainWs>>(&ws)) f(**p);
    else if (auto* t = std::get_if<std::unique_ptr<TlsWs>>(&ws)) f(**t);
  }

  void fail(int code, const std::string& why) {
    if (finished) return;
    finished = true;
    is_open = false;
    timer.cancel();
    with_ws([](auto& s) {
      beast::error_code ignored;
      beast::get_lowest_layer(s).socket().close(ignored);
    });
    if (auto f = handlers.on_close) f(code, why);
  }

  void start(const net::ParsedUrl& u, int64_t timeout_ms) {
    auto self = shared_from_this();
    timer.expires_after(std::chrono::milliseconds(timeout_ms));
    timer.async_wait([self, timeout_ms](beast::error_code ec) {
      if (!ec && !self->is_open) self->fail(0, self->url + ": not connected within " + std::to_string(timeout_ms) + " ms");
    });
    resolver.async_resolve(u.host, u.port, [self, u](beast::error_code ec, tcp::resolver::results_type r) {
      if (self->finished) return;
      if (ec) return self->fail(0, self->url + ": cannot resolve " + u.host + ": " + ec.message());
      if (u.tls) self->ws = std::make_unique<TlsWs>(self->ioc, net::client_tls_context());
      else self->ws = std::make_unique<PlainWs>(self->ioc);
      self->with_ws([&](auto& s) {
        beast::get_lowest_layer(s).async_connect(r, [self, u](beast::error_code ec2, const tcp::endpoint&) {
          if (self->finished) return;
          if (ec2) return self->fail(0, self->url + ": " + ec2.message());
          self->after_tcp(u);
        });
      });
    });
  }

  void after_tcp(const net::ParsedUrl& u) {
    auto self = shared_from_this();
    if (auto* t = std::get_if<std::unique_ptr<TlsWs>>(&ws)) {
      auto& ssl = (*t)->next_layer();
      SSL_set_tlsext_host_name(ssl.native_handle(), u.host.c_str());
      ssl.set_verify_callback(asio::ssl::host_name_verification(u.host));
      ssl.async_handshake(asio::ssl::stream_base::client, [self, u](beast::error_code ec) {
        if (self->finished) return;
        if (ec) return self->fail(0, self->url + ": TLS: " + ec.message());
        self->upgrade(u);
      });
      return;
    }
    upgrade(u);
  }

  void upgrade(const net::ParsedUrl& u) {
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.read_message_max(16u << 20);
      s.set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
        req.set(beast::http::field::user_agent, std::string("DiscordBot (pincer, ") + PINCER_VERSION + ")");
      }));
      const bool default_port = (u.tls && u.port == "443") || (!u.tls && u.port == "80");
      const std::string host =
          (u.host.find(':') != std::string::npos ? "[" + u.host + "]" : u.host) + (default_port ? "" : ":" + u.port);
      s.async_handshake(host, u.target, [self](beast::error_code ec) {
        if (self->finished) return;
        if (ec) return self->fail(0, self->url + ": WebSocket upgrade: " + ec.message());
        self->timer.cancel();
        self->with_ws([](auto& s2) {
          beast::get_lowest_layer(s2).expires_never();
          // Liveness is the protocol's own heartbeat; the stream only bounds the closing handshake.
          websocket::stream_base::timeout t = websocket::stream_base::timeout::suggested(beast::role_type::client);
          t.idle_timeout = websocket::stream_base::none();
          s2.set_option(t);
        });
        self->is_open = true;
        if (auto f = self->handlers.on_open) f();
        if (self->finished) return;
        self->read();
        self->write_next();
      });
    });
  }

  void read() {
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.async_read(buffer, [self](beast::error_code ec, std::size_t) {
        if (self->finished) return;
        if (ec) {
          int code = 0;
          std::string reason = ec.message();
          self->with_ws([&](auto& s2) {
            if (ec == websocket::error::closed) {
              code = s2.reason().code;
              reason = std::string(s2.reason().reason.c_str());
            }
          });
          return self->fail(code, reason);
        }
        std::string text = beast::buffers_to_string(self->buffer.data());
        self->buffer.consume(self->buffer.size());
        if (auto f = self->handlers.on_message) f(std::move(text));
        if (!self->finished) self->read();
      });
    });
  }

  void write_next() {
    if (writing || outbox.empty() || !is_open) return;
    writing = true;
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.text(true);
      s.async_write(asio::buffer(outbox.front()), [self](beast::error_code ec, std::size_t) {
        self->writing = false;
        if (self->finished) return;
        if (ec) return self->fail(0, "write: " + ec.message());
        self->outbox.pop_front();
        self->write_next();
      });
    });
  }

  void close(int code) {
    if (finished) return;
    finished = true;
    timer.cancel();
    resolver.cancel();
    if (!is_open) {
      with_ws([](auto& s) {
        beast::error_code ignored;
        beast::get_lowest_layer(s).socket().close(ignored);
      });
      return;
    }
    is_open = false;
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.async_close(websocket::close_reason(static_cast<websocket::close_code>(code)), [self](beast::error_code) {
        self->with_ws([](auto& s2) {
          beast::error_code ignored;
          beast::get_lowest_layer(s2).socket().close(ignored);
        });
      });
    });
  }
};

WebSocketClient::WebSocketClient(EventLoop& loop) : loop_(loop) {}

WebSocketClient::~WebSocketClient() { close(); }

void WebSocketClient::connect(const std::string& url, int64_t connect_timeout_ms, WebSocketHandlers handlers) {
  close();
  impl_ = std::make_shared<Impl>(loop_.context());
  impl_->url = url;
  impl_->handlers = std::move(handlers);
  std::string http_url = url;
  if (http_url.rfind("wss://", 0) == 0) http_url = "https://" + http_url.substr(6);
  else if (http_url.rfind("ws://", 0) == 0) http_url = "http://" + http_url.substr(5);
  auto parsed = net::parse_url(http_url);
  if (!parsed) {
    auto impl = impl_;
    loop_.post([impl] { impl->fail(0, impl->url + ": not a ws:// or wss:// URL"); });
    return;
  }
  impl_->start(*parsed, connect_timeout_ms);
}

void WebSocketClient::send(std::string text) {
  if (!impl_ || impl_->finished) return;
  impl_->outbox.push_back(std::move(text));
  impl_->write_next();
}

void WebSocketClient::close(int code) {
  if (!impl_) return;
  impl_->close(code);
  impl_.reset();
}

bool WebSocketClient::open() const { return impl_ && impl_->is_open && !impl_->finished; }

}  // namespace pincer::channels::discord
