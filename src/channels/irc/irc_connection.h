// A line-oriented TCP or TLS client connection for IRC (issue #5 §5 IRC). The header is
// Asio-free; the implementation, net_irc_connection.cpp, is the only Asio translation unit of
// the IRC channel.
//
// TLS verifies the server certificate against the system CA store and the host name
// (core/net_tls.h client context; SNI sent for names, not for IP literals).
// Inbound bytes are cut at LF (a CR before it is dropped); a line longer than
// kMaxInboundLineBytes (irc_protocol.h) is discarded up to its LF, so a hostile server cannot
// make the buffer grow. Writes go out in the order given, one at a time.
//
// Loop affinity: event-loop thread only; handlers run on it. No timeouts here: the channel's
// registration and keepalive timers close a connection that hangs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/event_loop.h"

namespace pincer::channels::irc {

class IrcConnection {
 public:
  struct Handlers {
    std::function<void()> connected;                // TCP up (and the TLS handshake done)
    std::function<void(std::string line)> line;     // one line, without CR LF
    std::function<void(std::string why)> closed;    // once: resolve/connect/TLS/read/write error or EOF
  };

  explicit IrcConnection(EventLoop& loop);
  ~IrcConnection();  ///< close()
  IrcConnection(const IrcConnection&) = delete;
  IrcConnection& operator=(const IrcConnection&) = delete;

  /// Resolves `host`, connects to `port` and, with `tls`, completes the handshake. Replaces (and
  /// closes) a previous connection.
  void open(const std::string& host, uint16_t port, bool tls, Handlers handlers);
  /// Queues bytes to send (complete lines, CR LF included). Ignored when not open.
  void write(std::string bytes);
  /// Closes once everything queued so far is written (e.g. after QUIT). No handler runs afterwards.
  void close_after_flush();
  /// Closes now. No handler runs afterwards.
  void close();
  /// Connected and not closed.
  bool is_open() const;

 private:
  struct Impl;
  EventLoop& loop_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace pincer::channels::irc
