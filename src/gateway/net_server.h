// The gateway's network transport (GW-2, GW-9, GW-10): one TCP port serving HTTP probes and the
// WebSocket protocol, on a single Boost.Asio event loop. This header is Asio-free; the only Asio/
// Beast translation unit is net_server.cpp (they are slow to compile).
#pragma once

#include <functional>
#include <string>

#include "core/event_loop.h"
#include "core/result.h"
#include "gateway/gateway.h"

namespace pincer::gateway {

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< address to bind (IPv4 or IPv6 literal)
  int port = 18789;                ///< 0 picks a free port
  /// Called once the socket listens, with the actual port (e.g. to print the URL).
  std::function<void(int port)> on_listening;
  /// Called once a signal starts the shutdown (the socket no longer accepts; running turns drain):
  /// `restarting` for SIGUSR1.
  std::function<void(bool restarting)> on_stopping;
};

/// Runs `gateway` on `loop`, on the calling thread, until SIGTERM, SIGINT, SIGHUP (a closed
/// terminal) or SIGUSR1 (restart: `*restart` is set to true, and the caller starts again with the
/// config re-read, as OpenClaw's in-process restart), then shuts down gracefully:
/// `shutdown` event, close 1001 "going away" to every client (1012 "service restart" for a
/// restart), exit within ~1 s when idle (GW-10). Raises the soft open-file limit at start.
/// HTTP routes: GET|HEAD /health, /healthz → {"ok":true,"status":"live"}; /ready, /readyz →
/// {"ok":true,"status":"ready"}; / and the web chat UI's files (gateway/web_assets.h) with ETag /
/// If-None-Match → 304, Cache-Control: no-cache and a Content-Security-Policy; other paths 404,
/// other methods on these paths 405; routes of other layers (core/http_route.h) after the checks
/// of gateway/protocol/route_guard.h (403 cross-site, 415 not JSON).
/// Limits: a request header within 10 s and 16 KiB (431), its body within 30 s; at most 512
/// connections still sending a request (the oldest is dropped for a new one); at most 256
/// WebSocket upgrades short of `connect`, 32 per client address (more: 503 + Retry-After);
/// a message over the connection's limit: close 1009 (logged).
/// Errors: "LISTEN_FAILED" naming host:port and the reason (e.g. address already in use).
Status run_server(EventLoop& loop, Gateway& gateway, const ServerOptions& options, bool* restart = nullptr);

}  // namespace pincer::gateway
