// The gateway's health snapshot (GW-7): channels, agents, recent sessions and clients, rebuilt on
// the transport's timer and on demand, broadcast as the `health` event (to clients that may read).
// Loop thread only.
#include <cctype>

#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/protocol/constants.h"

namespace pincer::gateway {

using nlohmann::json;

void Gateway::refresh_health(bool broadcast_event) {
  const int64_t started = clock_.steady_ms();
  // Channels by id, each with its accounts (OpenClaw's health shape: channels, channelOrder, labels).
  json channels = json::object(), order = json::array(), labels = json::object();
  if (channels_status_) {
    for (const auto& account : channels_status_().value("channels", json::array())) {
      const std::string id = account.value("channel", "?");
      if (!channels.contains(id)) {
        channels[id] = {{"configured", true}, {"running", false}, {"accounts", json::object()}};
        order.push_back(id);
        labels[id] = id == "irc" ? "IRC" : std::string(1, static_cast<char>(std::toupper(id[0]))) + id.substr(1);
      }
      channels[id]["accounts"][account.value("accountId", "default")] = account;
      if (account.value("running", false)) channels[id]["running"] = true;
    }
  }
  json agents = json::array(), sessions = {{"count", 0}, {"recent", json::array()}};
  std::string default_agent = "main";
  if (agents_) {
    const json list = agents_->list_agents();
    default_agent = list.value("defaultId", default_agent);
    for (const auto& a : list.value("agents", json::array())) {
      agents.push_back({{"agentId", a.value("id", "")}, {"isDefault", a.value("id", "") == default_agent}});
    }
    const json recent = agents_->list_sessions(5);
    sessions["count"] = recent.value("totalCount", 0);
    for (const auto& row : recent.value("sessions", json::array())) {
      sessions["recent"].push_back({{"key", row.value("key", "")}, {"updatedAt", row.value("updatedAt", json())}});
    }
  }
  health_ = json{
      {"ok", true},
      {"ts", clock_.wall_ms()},
      {"durationMs", 0},
      {"version", settings_.version},
      {"uptimeMs", uptime_ms()},
      {"plugins", {{"loaded", json::array()}, {"errors", json::array()}, {"unavailable", json::array()}}},
      {"channels", std::move(channels)},
      {"channelOrder", std::move(order)},
      {"channelLabels", std::move(labels)},
      {"heartbeatSeconds", 0},
      {"defaultAgentId", default_agent},
      {"agents", std::move(agents)},
      {"sessions", std::move(sessions)},
      {"connections", {{"clients", connected_count()}}},
  };
  health_built_ms_ = clock_.steady_ms();
  health_["durationMs"] = health_built_ms_ - started;
  // Never throws: channel errors and session keys may carry bytes from outside (an IRC server).
  health_json_ = health_.dump(-1, ' ', false, json::error_handler_t::replace);
  ++health_version_;
  if (broadcast_event) broadcast("health", health_json_, /*drop_if_slow=*/true, state_version());
}

const std::string& Gateway::health_json(bool fresh) {
  if (fresh || clock_.steady_ms() - health_built_ms_ >= kHealthMaxAgeMs) refresh_health(/*broadcast_event=*/false);
  return health_json_;
}

}  // namespace pincer::gateway
