// A WebSocket client on the gateway's event loop (ws:// and wss://, TLS verified against the system
// CA store like core/http_client.h): connect, send text frames in order, receive text frames, one
// close notice. Used by the Discord Gateway connection (discord_gateway.h). Asio-free header; the
// only Beast translation unit is net_websocket_client.cpp.
//
// Loop affinity: construct, connect(), send(), close() on the loop thread; every callback runs on
// the loop thread. After close() or destruction no callback runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/event_loop.h"

namespace pincer::channels::discord {

struct WebSocketHandlers {
  std::function<void()> on_open;                       ///< the upgrade succeeded
  std::function<void(std::string text)> on_message;    ///< one complete text (or binary) message
  /// Once, when the connection could not open or ended: the peer's close code (0 = no close frame:
  /// a transport error) and a reason for logs. Not called after close().
  std::function<void(int code, std::string reason)> on_close;
};

class WebSocketClient {
 public:
  explicit WebSocketClient(EventLoop& loop);
  ~WebSocketClient();  ///< as close(): no callback afterwards
  WebSocketClient(const WebSocketClient&) = delete;
  WebSocketClient& operator=(const WebSocketClient&) = delete;

  /// Opens `url` (ws://host[:port]/path?query or wss://…); `connect_timeout_ms` bounds DNS + TCP +
  /// TLS + upgrade. A previous connection is closed first (its callbacks stop).
  void connect(const std::string& url, int64_t connect_timeout_ms, WebSocketHandlers handlers);
  /// Queues one text frame; frames go out in call order. Dropped when not open.
  void send(std::string text);
  /// Closes with `code` (e.g. 1000, or 4000 to keep a Discord session resumable); no callback runs
  /// afterwards.
  void close(int code = 1000);
  bool open() const;

 private:
  struct Impl;
  EventLoop& loop_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace pincer::channels::discord
