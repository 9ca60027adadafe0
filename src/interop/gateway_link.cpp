#include "interop/gateway_link.h"

#include <memory>

namespace pincer::interop {

using nlohmann::json;

void GatewayLink::call(const std::string& method, const json& params, Done done) {
  if (!client_) {
    done(Error{"UNAVAILABLE", "not connected to the gateway"});
    return;
  }
  // Loop-thread state of one call: the first of the answer and the timer wins.
  struct Pending {
    Done done;
    bool finished = false;
    EventLoop::TimerId timer = 0;
  };
  EventLoop* loop = &loop_;
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  if (timeout_ms_ > 0) {
    pending->timer = loop_.after(timeout_ms_, [pending, method, ms = timeout_ms_] {
      if (pending->finished) return;
      pending->finished = true;
      pending->done(Error{"TIMEOUT", "no answer to " + method + " within " + std::to_string(ms) + " ms"});
    });
  }
  const bool timed = timeout_ms_ > 0;
  client_->call_async(method, params, [loop, pending, timed](Result<json> result) {
    loop->post([loop, pending, timed, result = std::move(result)]() mutable {
      if (pending->finished) return;
      pending->finished = true;
      if (timed) loop->cancel(pending->timer);
      pending->done(std::move(result));
    });
  });
}

cli::EventHandler GatewayLink::event_forwarder(std::function<void(const std::string&, const json&)> on_event) {
  EventLoop* loop = &loop_;
  auto handler = std::make_shared<std::function<void(const std::string&, const json&)>>(std::move(on_event));
  return [loop, handler](const std::string& event, const json& payload) {
    loop->post([handler, event, payload] { (*handler)(event, payload); });
  };
}

}  // namespace pincer::interop
