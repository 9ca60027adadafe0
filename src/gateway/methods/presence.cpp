// Presence and heartbeat reads (GW-7 "health/status"; OpenClaw's system methods):
//
//   system-presence {}  → the presence entries (the gateway itself, then every connected client
//                         that is not a CLI): the `presence` event's list (OpenClaw's PresenceEntry).
//   last-heartbeat  {}  → the payload of the last `heartbeat` event (AT-1), or null before the first.
//
// Both need operator.read (presence names clients' addresses and devices). Loop thread.
#include "gateway/gateway.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {

void register_presence_methods(MethodRegistry& registry) {
  registry.add({"system-presence", [](MethodContext& ctx) -> MethodResult {
                  if (!ctx.request.params.is_null() && !ctx.request.params.is_object()) {
                    return invalid_params("system-presence", "must be object");
                  }
                  return ctx.gateway.presence();
                }});
  registry.add({"last-heartbeat", [](MethodContext& ctx) -> MethodResult {
                  if (!ctx.request.params.is_null() && !ctx.request.params.is_object()) {
                    return invalid_params("last-heartbeat", "must be object");
                  }
                  return ctx.gateway.last_heartbeat();
                }});
}

}  // namespace pincer::gateway
