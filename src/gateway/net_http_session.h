// Internal to the gateway's Beast transport (net_server.cpp accepts, net_http_session.cpp serves):
// one HTTP connection — probes, the web chat UI, the Control UI, routes of other layers (webhooks,
// the OpenAI-compatible API; core/http_route.h, streamed answers included) and the WebSocket
// upgrade. Loop thread only.
#pragma once

#include <chrono>
#include <list>
#include <memory>

#include "gateway/control_ui.h"
#include "gateway/net_transport.h"

namespace pincer::gateway::transport {

class HttpSession;

/// HTTP sessions still reading a request (or draining after a refusal), oldest first. Shared by
/// the server and its sessions; touched on the loop thread only.
struct ReadingSessions {
  std::list<std::weak_ptr<HttpSession>> sessions;
  std::chrono::steady_clock::time_point last_warning;
  bool proxy_hint_given = false;  ///< "forwarding headers from a proxy not in trustedProxies" logged
  /// Drops the oldest while `kMaxReadingSessions` are reading, to make room for one more.
  void make_room();
};

/// Serves HTTP on an accepted socket until it closes (or upgrades to a WebSocket session).
void start_http_session(Socket socket, Gateway& gateway, std::shared_ptr<ReadingSessions> reading, const ControlUi& control_ui);

}  // namespace pincer::gateway::transport
