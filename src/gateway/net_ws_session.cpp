// The gateway's WebSocket sessions (Boost.Beast): one per upgraded socket, bridged to Gateway as a
// ClientLink. All handlers run on the gateway's io_context thread.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <deque>
#include <memory>

#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include "gateway/net_transport.h"
#include "gateway/protocol/constants.h"

namespace pincer::gateway::transport {
namespace {

/// The gateway's TCP stream: Beast's, with a WebSocket teardown that drains what the peer still
/// sends. Beast 1.81's own TCP teardown stops after its first read (its byte count is never set),
/// so a peer in the middle of a 30 MB frame got a reset instead of our close 1009.
class TcpStream : public beast::basic_stream<tcp, Executor> {
 public:
  using beast::basic_stream<tcp, Executor>::basic_stream;
};

struct TeardownOp {
  TcpStream& stream;
  beast::role_type role;
  std::unique_ptr<std::array<char, 16 * 1024>> buf = std::make_unique<std::array<char, 16 * 1024>>();
  std::size_t drained = 0;
  bool started = false;

  template <class Self>
  void operator()(Self& self, error_code ec = {}, std::size_t n = 0) {
    if (!started) {
      started = true;
      error_code ignored;
      if (role == beast::role_type::server) stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
      stream.expires_after(kLingerTimeout);
    } else if (ec || (drained += n) > kLingerBytes) {
      // EOF, the deadline or the cap: done either way (the close frame went out before).
      stream.close();
      return self.complete(ec == asio::error::operation_aborted ? ec : error_code{});
    }
    stream.async_read_some(asio::buffer(*buf), std::move(self));
  }
};

/// Found by argument-dependent lookup from Beast's websocket::stream<TcpStream>; preferred over
/// Beast's basic_stream overload (exact match).
template <class TeardownHandler>
void async_teardown(beast::role_type role, TcpStream& stream, TeardownHandler&& handler) {
  asio::async_compose<TeardownHandler, void(error_code)>(TeardownOp{stream, role}, handler, stream);
}

/// Bytes asked of Beast per read of a message.
constexpr std::size_t kReadChunkBytes = 256 * 1024;
/// Bytes of a message over the limit kept for the gateway's answer (its id and method come first).
constexpr std::size_t kOversizedHeadBytes = 4 * 1024;

/// One upgraded WebSocket connection; the Gateway talks to it as a ClientLink.
class WsSession final : public ClientLink, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(Socket socket, Gateway& gateway) : ws_(std::move(socket)), gateway_(gateway), timer_(ws_.get_executor()) {}

  void start(http::request<http::string_body> req, PeerInfo peer) {
    client_ip_ = peer.client_ip();
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
    set_max_message_bytes(kMaxPreConnectBytes);
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
  void set_max_message_bytes(std::size_t bytes) override {
    max_message_bytes_ = bytes;
    // Before connect the limit is hard (Beast closes 1009). After it, a message over the limit is
    // read to its end without being kept and answered (Gateway::on_message_too_large); only one
    // over kMaxDrainedMessageBytes closes the socket.
    ws_.read_message_max(bytes <= kMaxPreConnectBytes ? bytes : std::max(bytes, kMaxDrainedMessageBytes));
  }

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

  /// Reads the message in pieces: within the limit it is kept whole; past it only its first
  /// kOversizedHeadBytes are kept (enough for the request's id and method) and the rest is counted.
  void read_next() {
    ws_.async_read_some(buffer_, kReadChunkBytes,
                        [self = shared_from_this()](error_code ec, std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(error_code ec, std::size_t n) {
    if (ec) return finish(ec);
    if (oversized_bytes_ > 0) {
      oversized_bytes_ += n;
      buffer_.consume(buffer_.size());
    } else if (buffer_.size() > max_message_bytes_) {
      oversized_bytes_ = buffer_.size();
      const auto data = buffer_.cdata();
      oversized_head_.assign(static_cast<const char*>(data.data()), std::min(data.size(), kOversizedHeadBytes));
      buffer_.consume(buffer_.size());
    }
    if (!ws_.is_message_done()) return read_next();
    if (oversized_bytes_ > 0) {
      const std::size_t bytes = oversized_bytes_;
      oversized_bytes_ = 0;
      gateway_.on_message_too_large(id_, oversized_head_, bytes);
      oversized_head_.clear();
      oversized_head_.shrink_to_fit();
    } else {
      const auto data = buffer_.cdata();
      gateway_.on_message(id_, std::string_view(static_cast<const char*>(data.data()), data.size()));
    }
    buffer_.consume(buffer_.size());
    // One large message must not pin its buffer for the connection's lifetime (LESSONS 7).
    if (buffer_.capacity() > 256 * 1024) buffer_.shrink_to_fit();
    read_next();  // keep one read pending until the socket dies: it also completes the close handshake
  }

  void write_next() {
    writing_ = true;
    // Frames queued behind the one just written (a reply's events come in bursts) leave together:
    // corked, the kernel sends them as one segment when the queue drains, so the client's side
    // of the loopback (TCP input, waking the reader) runs once per burst instead of once per frame.
    if (!corked_ && queue_.size() > 1) set_cork(true);
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
    if (corked_) set_cork(false);  // the burst is written: send it now
    if (close_requested_) start_close();
  }

  /// TCP_CORK on the socket (tcp(7)): while set, partial segments wait (at most 200 ms, by the
  /// kernel's own limit) for more data; clearing it sends what waits at once.
  void set_cork(bool on) {
    const int value = on ? 1 : 0;
    const int fd = beast::get_lowest_layer(ws_).socket().native_handle();
    corked_ = on && ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, sizeof value) == 0;
    if (!on) (void)::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, sizeof value);
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
    if (ec == websocket::error::message_too_big) {
      // Beast has answered close 1009 and drained the rest (TcpStream's teardown).
      const std::size_t limit = ws_.read_message_max();
      spdlog::warn("conn {}: message over {} bytes (the {} limit) from {}; closed 1009 (message too big)", id_, limit,
                   byte_size_text(limit), client_ip_);
    } else if (ec != websocket::error::closed && ec != asio::error::operation_aborted && ec != asio::error::eof) {
      spdlog::debug("conn {}: socket ended: {}", id_, ec.message());
    }
  }

  websocket::stream<TcpStream> ws_;
  Gateway& gateway_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  std::size_t buffered_ = 0;
  bool writing_ = false;
  bool corked_ = false;  ///< TCP_CORK set for a burst of queued frames (write_next, on_write)
  bool close_requested_ = false;
  bool close_started_ = false;
  websocket::close_reason close_reason_;
  ConnId id_ = 0;
  bool registered_ = false;
  std::size_t max_message_bytes_ = 0;
  std::size_t oversized_bytes_ = 0;  ///< > 0 while a message over the limit is being drained
  std::string oversized_head_;       ///< its first kOversizedHeadBytes
  std::string client_ip_;
};

}  // namespace

void start_websocket(Socket socket, Gateway& gateway, http::request<http::string_body> req, PeerInfo peer) {
  std::make_shared<WsSession>(std::move(socket), gateway)->start(std::move(req), std::move(peer));
}

}  // namespace pincer::gateway::transport
