// diagnostics.lanes: the run lanes' state as OpenClaw's Control UI reads it (its diagnostics page):
// the global lanes (QL-2) each as a CommandLaneSnapshot, the per-session lanes (QL-1) summed
// as its `dynamic` summary (null when no session has a run queued or running).
#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

/// `diagnostics.lanes {}` → {ts, lanes:[{lane, queuedCount, activeCount, maxConcurrent, draining,
/// generation}], dynamic: {laneCount, activeCount, queuedCount, queuedLaneCount} | null}.
/// `generation` counts in-process resets of a lane's work in OpenClaw (a restart that keeps the
/// process); Pincer never resets its lanes in process, so it is always 0.
MethodResult diagnostics_lanes(MethodContext& ctx) {
  json lanes = json::array();
  json dynamic = nullptr;
  if (auto* service = ctx.gateway.agents()) {
    for (const auto& l : service->lane_snapshots()) {
      lanes.push_back({{"lane", l.lane},
                       {"queuedCount", l.queued},
                       {"activeCount", l.active},
                       {"maxConcurrent", l.max_concurrent},
                       {"draining", l.draining},
                       {"generation", 0}});
    }
    if (const auto t = service->session_lane_totals(); t.lanes > 0) {
      dynamic = {{"laneCount", t.lanes}, {"activeCount", t.active}, {"queuedCount", t.queued}, {"queuedLaneCount", t.queued_lanes}};
    }
  }
  return json{{"ts", ctx.gateway.clock().wall_ms()}, {"lanes", std::move(lanes)}, {"dynamic", std::move(dynamic)}};
}

}  // namespace

void register_diagnostics_methods(MethodRegistry& registry) { registry.add({"diagnostics.lanes", diagnostics_lanes}); }

}  // namespace pincer::gateway
