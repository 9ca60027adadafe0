// The gateway as Pincer's stdio servers see it (`pincer mcp serve`, `pincer acp`): requests over the
// CLI's GatewayClient (the one WebSocket connection, authenticated like `pincer gateway call`),
// their answers and the gateway's events delivered on the server's EventLoop thread.
//
// Thread affinity: call() from the loop thread; `done` runs on the loop thread. The client is set
// once connected (attach) and must outlive every call made through it; answers that arrive after
// the loop stopped are dropped with the loop's queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/gateway_client.h"
#include "core/event_loop.h"
#include "core/result.h"

namespace pincer::interop {

class GatewayLink {
 public:
  using Done = std::function<void(Result<nlohmann::json>)>;

  /// `timeout_ms`: how long a call may wait for its answer (then "TIMEOUT"); 0 = no limit.
  explicit GatewayLink(EventLoop& loop, int64_t timeout_ms = 0) : loop_(loop), timeout_ms_(timeout_ms) {}

  void attach(cli::GatewayClient* client) { client_ = client; }
  bool attached() const { return client_ != nullptr; }

  /// Sends `method` with `params`; `done` gets the payload or the gateway's error (code, message)
  /// on the loop thread, exactly once: "TIMEOUT" when no answer came within the timeout (a later
  /// answer is dropped), "CLOSED" when the connection ended. Without a client: "UNAVAILABLE" at once.
  void call(const std::string& method, const nlohmann::json& params, Done done);

  /// An EventHandler for GatewayClient::connect that hands each event to `on_event` on the loop.
  cli::EventHandler event_forwarder(std::function<void(const std::string&, const nlohmann::json&)> on_event);

 private:
  EventLoop& loop_;
  int64_t timeout_ms_ = 0;
  cli::GatewayClient* client_ = nullptr;
};

}  // namespace pincer::interop
