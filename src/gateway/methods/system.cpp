// System methods: health, status, logs.tail (GW-7 "health/status"; openclaw-protocol.md §2.1).
// `status.channelPipeline`: the inbound pipeline's counters (CH-6).
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

/// `health {probe?}`: the snapshot (at most a second old), or a fresh one with probe:true. A client
/// that may not read (no scopes) learns only that the gateway is alive: the snapshot names sessions
/// (with user ids) and channel accounts.
MethodResult health(MethodContext& ctx) {
  if (!Gateway::may_read(ctx.client)) {
    return json{{"ok", true}, {"status", "live"}, {"ts", ctx.gateway.clock().wall_ms()}};
  }
  const json& p = ctx.request.params;
  return ctx.gateway.health_answer(p.is_object() && p.value("probe", false));
}

/// OpenClaw's StatusSummary `sessions` (what `openclaw status` reads): totals, the 10 most recent
/// sessions, and per agent its sessions.json path, count and 10 most recent. `age` is ms since the
/// last activity.
json sessions_summary(agent::AgentService& service, const gateway::GatewaySettings& s, int64_t now_ms) {
  const json all = service.list_sessions(0);
  json recent = json::array(), paths = json::array(), by_agent = json::array();
  std::map<std::string, json> per_agent;
  const json agents = service.list_agents();
  for (const auto& a : agents.value("agents", json::array())) {
    const std::string id = a.value("id", "");
    const std::string path = (s.state_dir / "agents" / id / "sessions" / "sessions.json").string();
    paths.push_back(path);
    per_agent[id] = {{"agentId", id}, {"path", path}, {"count", 0}, {"recent", json::array()}};
  }
  for (const auto& row : all.value("sessions", json::array())) {
    const int64_t updated = row.value("updatedAt", int64_t{0});
    json item = {{"key", row.value("key", "")}, {"updatedAt", updated}, {"age", updated > 0 ? json(now_ms - updated) : json()}};
    if (recent.size() < 10) recent.push_back(item);
    auto agent = per_agent.find(row.value("agentId", ""));
    if (agent == per_agent.end()) continue;
    agent->second["count"] = agent->second["count"].get<int64_t>() + 1;
    if (agent->second["recent"].size() < 10) agent->second["recent"].push_back(std::move(item));
  }
  for (auto& [id, entry] : per_agent) by_agent.push_back(std::move(entry));
  // The default agent's model and effective context window (CX-6), as OpenClaw's summary has them.
  const json d = service.session_defaults();
  json defaults = {{"model", d["model"].is_string() ? json(d.value("modelProvider", "") + "/" + d.value("model", "")) : json()},
                   {"contextTokens", d["contextTokens"]}};
  if (d.contains("contextWarning")) defaults["contextWarning"] = d["contextWarning"];
  return {{"count", all.value("totalCount", 0)},
          {"paths", std::move(paths)},
          {"defaults", std::move(defaults)},
          {"recent", std::move(recent)},
          {"byAgent", std::move(by_agent)}};
}

/// `status`: a summary of the running gateway for `pincer status`, dashboards and `openclaw
/// status` (OpenClaw's StatusSummary fields: runtimeVersion, heartbeat, channelSummary, tasks,
/// taskAudit, sessions{count, paths, defaults, recent, byAgent}; heartbeat per agent (AT-1); task
/// and channel summaries are empty until those features exist).
MethodResult status(MethodContext& ctx) {
  const auto& s = ctx.gateway.settings();
  json sessions = {{"count", 0}, {"paths", json::array()}, {"defaults", {{"model", nullptr}, {"contextTokens", nullptr}}},
                   {"recent", json::array()}, {"byAgent", json::array()}};
  json agents = {{"defaultAgentId", "main"}};
  if (auto* service = ctx.gateway.agents()) {
    sessions = sessions_summary(*service, s, ctx.gateway.clock().wall_ms());
    const json list = service->list_agents();
    agents = {{"defaultAgentId", list.value("defaultId", "main")}, {"count", list["agents"].size()}};
  }
  const json task_counts = {{"total", 0}, {"active", 0}, {"terminal", 0}, {"failures", 0},
                            {"byStatus", {{"queued", 0}, {"running", 0}, {"succeeded", 0}, {"failed", 0}, {"timed_out", 0},
                                          {"cancelled", 0}, {"lost", 0}}},
                            {"byRuntime", {{"subagent", 0}, {"acp", 0}, {"cli", 0}, {"cron", 0}}}};
  const json task_audit = {{"total", 0}, {"warnings", 0}, {"errors", 0},
                           {"byCode", {{"stale_queued", 0}, {"stale_running", 0}, {"lost", 0}, {"delivery_failed", 0},
                                       {"missing_cleanup", 0}, {"inconsistent_timestamps", 0}}}};
  const std::string default_agent = agents.value("defaultAgentId", "main");
  json beats = json::array();  // OpenClaw's StatusSummary heartbeat.agents (AT-1), with Pincer's state
  if (auto* service = ctx.gateway.agents()) {
    for (const auto& a : service->list_agents().value("agents", json::array())) {
      json beat = ctx.gateway.heartbeat_summary(a.value("id", ""));
      if (beat.is_null()) beat = {{"enabled", false}, {"every", "disabled"}, {"everyMs", nullptr}};
      beat["agentId"] = a.value("id", "");
      beats.push_back(std::move(beat));
    }
  }
  return json{
      {"ok", true},
      {"version", s.version},
      {"runtimeVersion", s.version},
      {"pid", static_cast<int64_t>(::getpid())},
      {"uptimeMs", ctx.gateway.uptime_ms()},
      {"ts", ctx.gateway.clock().wall_ms()},
      {"gateway", {{"bind", s.bind_host}, {"port", s.port}, {"authMode", s.auth.mode}}},
      {"connections", {{"clients", ctx.gateway.connected_count()}}},
      {"stateDir", s.state_dir.string()},
      {"configPath", s.config_path.string()},
      {"config", ctx.gateway.config_status()},
      {"logFile", s.log_file.string()},
      {"sessions", std::move(sessions)},
      {"agents", std::move(agents)},
      {"heartbeat", {{"defaultAgentId", default_agent}, {"agents", std::move(beats)}}},
      {"channelSummary", json::array()},
      {"channelPipeline", ctx.gateway.channels_status() ? ctx.gateway.channels_status()().value("pipeline", json::object())
                                                        : json::object()},
      {"queuedSystemEvents", json::array()},
      {"degradedSecretOwners", json::array()},
      {"tasks", task_counts},
      {"taskAudit", task_audit},
  };
}

/// Reads an integer param within [lo, hi] with a default; nullopt + error text when invalid.
std::optional<int64_t> int_param(const json& p, const char* key, int64_t lo, int64_t hi, int64_t def, std::string& error) {
  if (!p.is_object() || !p.contains(key)) return def;
  const json& v = p[key];
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    error = "/" + std::string(key) + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    return std::nullopt;
  }
  return v.get<int64_t>();
}

/// `logs.tail {cursor?, limit? 1..5000 (500), maxBytes? 1..1e6 (250000)}` →
/// `{file, cursor, size, lines[], truncated?, reset?}`. Without a cursor: the last `limit` lines.
/// With one: complete lines written since that byte offset; a cursor past the end (the file was
/// rotated or truncated) sets reset:true and reads from the last maxBytes.
MethodResult logs_tail(MethodContext& ctx) {
  const json& p = ctx.request.params;
  if (!p.is_null() && !p.is_object()) return invalid_params("logs.tail", "must be object");
  if (p.is_object()) {
    for (const auto& [key, value] : p.items()) {
      if (key != "cursor" && key != "limit" && key != "maxBytes") {
        return invalid_params("logs.tail", "must NOT have additional properties (\"" + key + "\")");
      }
    }
  }
  std::string error;
  auto cursor = int_param(p, "cursor", 0, INT64_MAX, -1, error);
  auto limit = cursor ? int_param(p, "limit", 1, 5000, 500, error) : std::nullopt;
  auto max_bytes = limit ? int_param(p, "maxBytes", 1, 1'000'000, 250'000, error) : std::nullopt;
  if (!max_bytes) return invalid_params("logs.tail", error);

  const auto& file = ctx.gateway.settings().log_file;
  json out = {{"file", file.string()}, {"lines", json::array()}};
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const int64_t size = in ? static_cast<int64_t>(in.tellg()) : 0;
  out["size"] = size;
  bool reset = false;
  int64_t start;
  if (*cursor < 0) {
    start = std::max<int64_t>(0, size - *max_bytes);
  } else if (*cursor > size) {
    reset = true;
    start = std::max<int64_t>(0, size - *max_bytes);
  } else {
    start = *cursor;
  }
  const int64_t len = std::min<int64_t>(size - start, *max_bytes);
  std::string buf(static_cast<size_t>(std::max<int64_t>(len, 0)), '\0');
  if (in && len > 0) {
    in.seekg(start);
    in.read(buf.data(), len);
  }
  // Whole lines only; a window that starts mid-line drops its first partial line.
  size_t begin = 0;
  if (start > 0 && *cursor < 0) {
    auto nl = buf.find('\n');
    begin = nl == std::string::npos ? buf.size() : nl + 1;
  }
  size_t end = buf.rfind('\n');
  end = end == std::string::npos || end < begin ? begin : end + 1;
  std::vector<std::string> lines;
  for (size_t pos = begin; pos < end;) {
    size_t nl = buf.find('\n', pos);
    lines.emplace_back(buf, pos, nl - pos);
    pos = nl + 1;
  }
  const bool dropped = lines.size() > static_cast<size_t>(*limit);
  if (dropped) lines.erase(lines.begin(), lines.end() - *limit);
  for (auto& l : lines) out["lines"].push_back(std::move(l));
  out["cursor"] = start + static_cast<int64_t>(end);
  if (dropped || start + len < size) out["truncated"] = true;
  if (reset) out["reset"] = true;
  return out;
}

}  // namespace

void register_system_methods(MethodRegistry& registry) {
  registry.add({"health", health});
  registry.add({"status", status});
  register_channel_methods(registry);  // channels.status (methods/channels.cpp)
  register_diagnostics_methods(registry);  // diagnostics.lanes (methods/diagnostics.cpp)
  registry.add({"logs.tail", logs_tail});
}

}  // namespace pincer::gateway
