#include "interop/gateway_link.h"

#include <memory>

namespace pincer::interop {

using nlohmann::json;

void GatewayLink::call(const std::string& method, const json& params, Done done) {
  if (!client_) {
    done(Error{"UNAVAILABLE", "not connected to the gateway"});
    return;
  }
  EventLoop* loop = &loop_;
  auto shared = std::make_shared<Done>(std::move(done));
  client_->call_async(method, params, [loop, shared](Result<json> result) {
    loop->post([shared, result = std::move(result)]() mutable { (*shared)(std::move(result)); });
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
