// The keep-alive connection pool of net::HttpClient (core/net_http_pool.h).
#include "core/net_http_pool.h"

#include <cerrno>
#include <chrono>
#include <type_traits>

#include <sys/socket.h>

namespace pincer::net {

namespace detail_net_http_pool {

template <class Stream>
void close_pooled_stream(Stream& stream) {
  boost::system::error_code ignored;
  boost::beast::get_lowest_layer(stream).socket().close(ignored);
}

/// Whether the server closed (or wrote to) an idle connection: one non-blocking peek.
bool pooled_peer_gone(boost::asio::ip::tcp::socket& socket) {
  if (!socket.is_open()) return true;
  char c;
  const ssize_t n = ::recv(socket.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;                                  // orderly close
  if (n > 0) return true;                                   // unsolicited bytes: not reusable
  return !(errno == EAGAIN || errno == EWOULDBLOCK);        // reset etc.
}

}  // namespace detail_net_http_pool

template <class Stream>
std::list<IdleConnection<Stream>>& HttpConnectionPool::idle() {
  if constexpr (std::is_same_v<Stream, PlainStream>) {
    return idle_plain_;
  } else {
    return idle_tls_;
  }
}

template <class Stream>
std::unique_ptr<Stream> HttpConnectionPool::take(const std::string& origin) {
  auto& list = idle<Stream>();
  for (auto it = list.end(); it != list.begin();) {
    --it;
    if (it->origin != origin) continue;
    auto stream = std::move(it->stream);
    it->timer->cancel();
    list.erase(it);
    if (detail_net_http_pool::pooled_peer_gone(boost::beast::get_lowest_layer(*stream).socket())) {
      detail_net_http_pool::close_pooled_stream(*stream);
      it = list.end();  // look again from the newest
      continue;
    }
    return stream;
  }
  return nullptr;
}

template <class Stream>
void HttpConnectionPool::put(const std::string& origin, std::unique_ptr<Stream> stream) {
  if (options_.max_idle_per_origin == 0 || options_.max_idle_total == 0) {
    return detail_net_http_pool::close_pooled_stream(*stream);
  }
  auto& list = idle<Stream>();
  size_t same = 0;
  for (const auto& c : list) same += c.origin == origin;
  if (same >= options_.max_idle_per_origin) {
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->origin == origin) {
        drop(list, it);
        break;
      }
    }
  }
  while (idle_plain_.size() + idle_tls_.size() >= options_.max_idle_total) {
    const bool plain_oldest =
        !idle_plain_.empty() && (idle_tls_.empty() || idle_plain_.front().seq < idle_tls_.front().seq);
    if (plain_oldest) {
      drop(idle_plain_, idle_plain_.begin());
    } else {
      drop(idle_tls_, idle_tls_.begin());
    }
  }
  boost::beast::get_lowest_layer(*stream).expires_never();
  IdleConnection<Stream> c;
  c.seq = next_seq_++;
  c.origin = origin;
  c.stream = std::move(stream);
  c.timer = std::make_unique<boost::asio::steady_timer>(loop_.context());
  c.timer->expires_after(std::chrono::milliseconds(options_.pool_idle_timeout_ms));
  c.timer->async_wait([weak = weak_from_this(), seq = c.seq](boost::system::error_code ec) {
    if (ec) return;  // taken or evicted meanwhile
    auto self = weak.lock();
    if (!self) return;
    self->expire<Stream>(seq);
  });
  list.push_back(std::move(c));
}

template <class Stream>
void HttpConnectionPool::expire(uint64_t seq) {
  auto& list = idle<Stream>();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->seq == seq) return drop(list, it);
  }
}

template <class Stream>
void HttpConnectionPool::drop(std::list<IdleConnection<Stream>>& list,
                              typename std::list<IdleConnection<Stream>>::iterator it) {
  it->timer->cancel();
  detail_net_http_pool::close_pooled_stream(*it->stream);
  list.erase(it);
}

void HttpConnectionPool::clear() {
  while (!idle_plain_.empty()) drop(idle_plain_, idle_plain_.begin());
  while (!idle_tls_.empty()) drop(idle_tls_, idle_tls_.begin());
}

template std::unique_ptr<PlainStream> HttpConnectionPool::take<PlainStream>(const std::string&);
template std::unique_ptr<TlsStream> HttpConnectionPool::take<TlsStream>(const std::string&);
template void HttpConnectionPool::put<PlainStream>(const std::string&, std::unique_ptr<PlainStream>);
template void HttpConnectionPool::put<TlsStream>(const std::string&, std::unique_ptr<TlsStream>);

}  // namespace pincer::net
