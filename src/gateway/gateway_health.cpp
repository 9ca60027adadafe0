// The gateway's health snapshot (GW-7): channels, agents, recent sessions and clients, rebuilt on
// the transport's timer and on demand, broadcast as the `health` event (to clients that may read).
// Loop thread only.
#include <algorithm>
#include <cctype>
#include <map>

#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/protocol/constants.h"
#include "core/json_dump.h"

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
  // Per agent its session store (OpenClaw's HealthSessionSummary: path, count, the 5 most recent
  // with their age) and heartbeat (OpenClaw's summary plus the beat's state, AT-1; disabled when no
  // heartbeat runtime knows the agent); the top-level `sessions` is the
  // default agent's store. `openclaw health` prints both.
  const int64_t now = clock_.wall_ms();
  auto store_summary = [&](const std::string& agent_id) {
    return json{{"path", (settings_.state_dir / "agents" / agent_id / "sessions" / "sessions.json").string()},
                {"count", 0},
                {"recent", json::array()}};
  };
  json agents = json::array(), sessions = store_summary("main");
  int64_t heartbeat_seconds = 0;  // OpenClaw's heartbeatSeconds: the default agent's interval
  std::string default_agent = "main";
  if (agents_) {
    const json list = agents_->list_agents();
    default_agent = list.value("defaultId", default_agent);
    std::map<std::string, json> by_agent;
    for (const auto& a : list.value("agents", json::array())) by_agent[a.value("id", "")] = store_summary(a.value("id", ""));
    for (const auto& row : agents_->list_sessions(0).value("sessions", json::array())) {
      auto it = by_agent.find(row.value("agentId", ""));
      if (it == by_agent.end()) continue;
      json& summary = it->second;
      summary["count"] = summary["count"].get<int64_t>() + 1;
      if (summary["recent"].size() >= 5) continue;
      const int64_t updated = row.value("updatedAt", int64_t{0});
      summary["recent"].push_back({{"key", row.value("key", "")},
                                   {"updatedAt", updated > 0 ? json(updated) : json(nullptr)},
                                   {"age", updated > 0 ? json(std::max<int64_t>(0, now - updated)) : json(nullptr)}});
    }
    for (const auto& a : list.value("agents", json::array())) {
      const std::string id = a.value("id", "");
      json beat = heartbeat_summary(id);
      if (beat.is_null())
        beat = {{"enabled", false}, {"every", "disabled"}, {"everyMs", nullptr}, {"prompt", ""}, {"target", "none"},
                {"ackMaxChars", 0}};
      if (id == default_agent && beat.value("enabled", false)) heartbeat_seconds = beat.value("everyMs", int64_t{0}) / 1000;
      // OpenClaw's HealthSnapshot heartbeat is a closed object: the beat's state (last run,
      // status, next due) goes only into the `health` method's answer (health_answer).
      json settings = json::object();
      for (const char* key : {"enabled", "every", "everyMs", "prompt", "target", "model", "session", "ackMaxChars"}) {
        if (beat.contains(key)) settings[key] = beat[key];
      }
      beat = std::move(settings);
      json entry = {{"agentId", id}, {"isDefault", id == default_agent}, {"heartbeat", std::move(beat)}, {"sessions", by_agent[id]}};
      if (a.contains("name")) entry["name"] = a["name"];
      agents.push_back(std::move(entry));
    }
    if (by_agent.count(default_agent)) sessions = by_agent[default_agent];
  }
  health_ = json{
      {"ok", true},
      {"ts", clock_.wall_ms()},
      {"durationMs", 0},
      {"plugins", {{"loaded", json::array()}, {"errors", json::array()}, {"unavailable", json::array()}}},
      {"channels", std::move(channels)},
      {"channelOrder", std::move(order)},
      {"channelLabels", std::move(labels)},
      {"heartbeatSeconds", heartbeat_seconds},
      {"defaultAgentId", default_agent},
      {"agents", std::move(agents)},
      {"sessions", std::move(sessions)},
  };
  health_built_ms_ = clock_.steady_ms();
  health_["durationMs"] = health_built_ms_ - started;
  // Never throws: channel errors and session keys may carry bytes from outside (an IRC server).
  health_json_ = json_dump::compact(health_);
  ++health_version_;
  if (broadcast_event) broadcast("health", health_json_, /*drop_if_slow=*/true, state_version());
}

const std::string& Gateway::health_json(bool fresh) {
  if (fresh || clock_.steady_ms() - health_built_ms_ >= kHealthMaxAgeMs) refresh_health(/*broadcast_event=*/false);
  return health_json_;
}

json Gateway::health_answer(bool fresh) {
  (void)health_json(fresh);
  json out = health_;
  for (auto& entry : out["agents"]) {
    json beat = heartbeat_summary(entry.value("agentId", ""));
    if (beat.is_object()) entry["heartbeat"].update(beat);  // the beat's state as well (AT-1)
  }
  out["version"] = settings_.version;
  out["uptimeMs"] = uptime_ms();
  out["connections"] = {{"clients", connected_count()}};
  return out;
}

}  // namespace pincer::gateway
