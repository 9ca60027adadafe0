// The IRC channel's only Asio translation unit (see irc_connection.h).
#include <array>
#include <deque>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include "channels/irc/irc_connection.h"
#include "channels/irc/irc_protocol.h"
#include "core/net_tls.h"

namespace pincer::channels::irc {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

struct IrcConnection::Impl : std::enable_shared_from_this<IrcConnection::Impl> {
  explicit Impl(asio::io_context& ioc) : resolver(ioc), plain(ioc) {}

  tcp::resolver resolver;
  tcp::socket plain;
  std::unique_ptr<ssl::stream<tcp::socket>> tls;
  Handlers handlers;
  std::string host;
  bool open = false;     // connected (and handshaken)
  bool done = false;     // closed: no handler runs any more
  bool close_when_flushed = false;
  bool writing = false;
  std::deque<std::string> outbox;
  std::array<char, 4096> chunk{};
  std::string inbuf;
  bool discarding = false;  // inside an over-long line, up to its LF

  tcp::socket& socket() { return tls ? tls->next_layer() : plain; }

  /// Runs `fn` with the stream that carries IRC bytes (TLS or plain).
  template <class Fn>
  void with_stream(Fn&& fn) {
    if (tls) fn(*tls);
    else fn(plain);
  }

  void fail(const std::string& why) {
    if (done) return;
    auto closed = std::move(handlers.closed);
    shut();
    if (closed) closed(why);
  }

  void shut() {
    done = true;
    open = false;
    handlers = {};
    outbox.clear();
    resolver.cancel();
    error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  void start(uint16_t port) {
    auto self = shared_from_this();
    resolver.async_resolve(host, std::to_string(port), [self, port](error_code ec, tcp::resolver::results_type results) {
      if (self->done) return;
      if (ec) return self->fail("resolve " + self->host + ": " + ec.message());
      asio::async_connect(self->socket(), results, [self, port](error_code ec, const tcp::endpoint&) {
        if (self->done) return;
        if (ec) return self->fail("connect to " + self->host + ":" + std::to_string(port) + ": " + ec.message());
        if (!self->tls) return self->connected();
        error_code addr_ec;
        asio::ip::make_address(self->host, addr_ec);
        if (addr_ec && !SSL_set_tlsext_host_name(self->tls->native_handle(), self->host.c_str())) {
          return self->fail("TLS SNI for " + self->host);
        }
        self->tls->set_verify_callback(ssl::host_name_verification(self->host));
        self->tls->async_handshake(ssl::stream_base::client, [self](error_code ec) {
          if (self->done) return;
          if (ec) return self->fail("TLS handshake with " + self->host + ": " + ec.message());
          self->connected();
        });
      });
    });
  }

  void connected() {
    open = true;
    if (auto c = handlers.connected) c();
    if (done) return;
    read();
    flush();
  }

  void read() {
    auto self = shared_from_this();
    with_stream([&](auto& stream) {
      stream.async_read_some(asio::buffer(chunk), [self](error_code ec, std::size_t n) {
        if (self->done) return;
        if (ec) return self->fail(ec == asio::error::eof ? std::string("the server closed the connection")
                                                         : "read from " + self->host + ": " + ec.message());
        self->take(std::string_view(self->chunk.data(), n));
        if (!self->done) self->read();
      });
    });
  }

  /// Cuts received bytes into lines and hands them over, one at a time.
  void take(std::string_view bytes) {
    inbuf.append(bytes);
    std::size_t start = 0;
    while (!done) {
      const std::size_t nl = inbuf.find('\n', start);
      if (nl == std::string::npos) break;
      std::string line = inbuf.substr(start, nl - start);
      start = nl + 1;
      if (discarding) {
        discarding = false;
        continue;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.size() > kMaxInboundLineBytes) continue;
      if (auto h = handlers.line) h(std::move(line));
    }
    if (done) return;
    inbuf.erase(0, start);
    if (inbuf.size() > kMaxInboundLineBytes) {  // no LF in sight: drop it and the rest of the line
      inbuf.clear();
      discarding = true;
    }
  }

  void flush() {
    if (writing || !open || done) return;
    if (outbox.empty()) {
      if (close_when_flushed) shut();
      return;
    }
    writing = true;
    auto self = shared_from_this();
    with_stream([&](auto& stream) {
      asio::async_write(stream, asio::buffer(outbox.front()), [self](error_code ec, std::size_t) {
        self->writing = false;
        if (self->done) return;
        if (ec) return self->fail("write to " + self->host + ": " + ec.message());
        self->outbox.pop_front();
        self->flush();
      });
    });
  }
};

IrcConnection::IrcConnection(EventLoop& loop) : loop_(loop) {}

IrcConnection::~IrcConnection() { close(); }

void IrcConnection::open(const std::string& host, uint16_t port, bool tls, Handlers handlers) {
  close();
  impl_ = std::make_shared<Impl>(loop_.context());
  impl_->host = host;
  impl_->handlers = std::move(handlers);
  if (tls) impl_->tls = std::make_unique<ssl::stream<tcp::socket>>(loop_.context(), net::client_tls_context());
  impl_->start(port);
}

void IrcConnection::write(std::string bytes) {
  if (!impl_ || impl_->done || impl_->close_when_flushed) return;
  impl_->outbox.push_back(std::move(bytes));
  impl_->flush();
}

void IrcConnection::close_after_flush() {
  if (!impl_ || impl_->done) return;
  impl_->handlers = {};
  impl_->close_when_flushed = true;
  if (!impl_->open) return impl_->shut();
  impl_->flush();
  impl_.reset();  // pending writes keep it alive until flushed
}

void IrcConnection::close() {
  if (impl_ && !impl_->done) impl_->shut();
  impl_.reset();
}

bool IrcConnection::is_open() const { return impl_ && impl_->open && !impl_->done; }

}  // namespace pincer::channels::irc
