// The keep-alive connection pool of net::HttpClient (internal to the net_* translation units; the
// rules are in core/http_client.h's file comment, issue 17 "Connection reuse"): idle connections
// per origin, bounded per origin and in total (the oldest closed to make room), each closed by its
// own timer after the idle timeout, and a pooled connection the server closed meanwhile dropped
// when taken. Asio/Beast header: include only from net_* translation units.
//
// Loop affinity: every member on the client's loop thread (the timers run there too).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>

#include "core/event_loop.h"
#include "core/http_client.h"

namespace pincer::net {

using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

/// An idle keep-alive connection waiting in the pool, closed by its timer after the idle timeout.
template <class Stream>
struct IdleConnection {
  uint64_t seq = 0;  ///< insertion order across both lists (the oldest is evicted first)
  std::string origin;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<boost::asio::steady_timer> timer;
};

/// The idle connections of one HttpClient, plain and TLS. Owned through a shared_ptr (its timers
/// hold a weak reference, so one firing after the pool is gone does nothing). `Stream` is
/// PlainStream or TlsStream (explicitly instantiated in net_http_pool.cpp).
class HttpConnectionPool : public std::enable_shared_from_this<HttpConnectionPool> {
 public:
  /// `options`: the bounds and the idle timeout (HttpClientOptions, core/http_client.h).
  HttpConnectionPool(EventLoop& loop, HttpClientOptions options) : loop_(loop), options_(options) {}

  /// The most recently pooled live connection to `origin`, or null. A connection the server has
  /// closed meanwhile (EOF or stray bytes waiting, seen with one non-blocking peek) is dropped.
  /// `origin`: the pool key (scheme, host:port and the proxy with its credentials).
  template <class Stream>
  std::unique_ptr<Stream> take(const std::string& origin);

  /// Puts a connection whose response was read completely back into the pool (bounded per origin
  /// and in total: the oldest is closed to make room; with a bound of 0 it is closed at once).
  template <class Stream>
  void put(const std::string& origin, std::unique_ptr<Stream> stream);

  /// Closes every idle connection (the client's destructor).
  void clear();

  /// Idle connections currently pooled (all origins, plain and TLS).
  size_t size() const { return idle_plain_.size() + idle_tls_.size(); }

 private:
  template <class Stream>
  std::list<IdleConnection<Stream>>& idle();
  template <class Stream>
  void expire(uint64_t seq);
  template <class Stream>
  void drop(std::list<IdleConnection<Stream>>& list, typename std::list<IdleConnection<Stream>>::iterator it);

  EventLoop& loop_;
  HttpClientOptions options_;
  uint64_t next_seq_ = 1;
  std::list<IdleConnection<PlainStream>> idle_plain_;
  std::list<IdleConnection<TlsStream>> idle_tls_;
};

extern template std::unique_ptr<PlainStream> HttpConnectionPool::take<PlainStream>(const std::string&);
extern template std::unique_ptr<TlsStream> HttpConnectionPool::take<TlsStream>(const std::string&);
extern template void HttpConnectionPool::put<PlainStream>(const std::string&, std::unique_ptr<PlainStream>);
extern template void HttpConnectionPool::put<TlsStream>(const std::string&, std::unique_ptr<TlsStream>);

}  // namespace pincer::net
