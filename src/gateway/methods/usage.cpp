// OpenClaw's usage methods (its server-methods/usage.ts) over what Pincer records: the `usage` of
// every message in the session transcripts, read by methods/usage_report (shapes and what is left
// out are described there). Both need operator.read (protocol/scopes.cpp) and read the files on a
// worker (EventLoop::offload), answering when done.
//
//   usage.cost {startDate?, endDate?, days?, range?, mode?, utcOffset?, timeZone?, agentId?, agentScope?: "all"}
//       → {updatedAt, days, daily: [{date, …totals}], totals}   one agent's sessions (default the
//         default agent), or every agent's with agentScope "all".
//   sessions.usage {key?, agentId?, agentScope?, creatorKey?, startDate?, endDate?, mode?, range?,
//                   groupBy?, includeHistorical?, utcOffset?, timeZone?, limit?, includeContextWeight?}
//       → {updatedAt, startDate, endDate, sessions: [row], totals, aggregates, creatorOptions}
//         row = {key, label?, sessionId, scope: "instance", updatedAt, agentId, creatorKey,
//         channel?, chatType?, modelProvider?, model?, usage: summary | null, hasContextWeight: false}
//         newest first, at most `limit` (50); one row per session id (its transcript, else its
//         newest archive); `key` one session (a key or a session id). groupBy "family" is answered
//         per instance (Pincer keeps no session families).
//
// Errors: INVALID_REQUEST with OpenClaw's messages for bad dates ("invalid startDate: expected a
// valid YYYY-MM-DD calendar date"), "agentScope=all cannot be combined with …", an unknown agent
// (`unknown agent id "X"`), an unknown session (`Invalid session reference: KEY`); sessions.usage
// params outside OpenClaw's schema name the field.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/methods/usage_report.h"
#include "store/session_index.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kUnknownCreator = "[\"unknown\"]";  // OpenClaw's key for a session without a recorded creator

/// The agents a request covers, or the error to answer. `agent_param` "" = the default agent.
std::variant<std::vector<std::string>, RpcError> agents_for(MethodContext& ctx, const std::string& agent_param, bool all) {
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  auto agents = agent::resolve_agents(service->effective_config(), service->state_directory(), config::process_env());
  if (!agents) return RpcError::unavailable(agents.error().message);
  std::vector<std::string> ids;
  if (all) {
    for (const auto& a : agents->agents) ids.push_back(a.id);
    return ids;
  }
  if (agent_param.empty()) return std::vector<std::string>{agents->default_agent().id};
  const agent::AgentSettings* spec = agents->find(store::normalize_agent_id(agent_param));
  if (!spec) return RpcError::invalid("unknown agent id \"" + agent_param + "\"", json{{"code", "UNKNOWN_AGENT_ID"}, {"agentId", agent_param}});
  return std::vector<std::string>{spec->id};
}

using UsageAnswer = std::variant<json, RpcError>;

/// Runs `work` on a worker and answers the request with its result.
MethodResult answer_later(MethodContext& ctx, std::function<UsageAnswer()> work) {
  EventLoop* loop = ctx.gateway.loop();
  if (!loop) {  // no loop (unit tests): answer at once
    UsageAnswer a = work();
    if (auto* e = std::get_if<RpcError>(&a)) return *e;
    return std::get<json>(std::move(a));
  }
  Gateway& gw = ctx.gateway;
  const ConnId conn = ctx.client.id;
  const std::string id = ctx.request.id;
  auto result = std::make_shared<UsageAnswer>();
  loop->offload(
      [work = std::move(work), result] {
        try {
          *result = work();
        } catch (const std::exception& e) {
          *result = RpcError::unavailable(std::string("usage: ") + e.what());
        }
      },
      [&gw, conn, id, result] {
        if (auto* e = std::get_if<RpcError>(result.get())) gw.send_to(conn, build_error(id, *e));
        else gw.send_to(conn, build_ok_value(id, std::get<json>(*result)));
      });
  return Deferred{};
}

std::string string_param(const json& p, const char* key) {
  return p.is_object() && p.contains(key) && p[key].is_string() ? p[key].get<std::string>() : std::string();
}

MethodResult usage_cost(MethodContext& ctx) {
  const json& params = ctx.request.params;
  const int64_t now = ctx.gateway.clock().wall_ms();
  auto range = usage::parse_range(params, now);
  if (!range) return RpcError::invalid(range.error().message);
  const std::string agent_id = string_param(params, "agentId");
  const bool all = string_param(params, "agentScope") == "all";
  if (all && !agent_id.empty()) return RpcError::invalid("agentScope=all cannot be combined with agentId");
  auto agents = agents_for(ctx, agent_id, all);
  if (auto* e = std::get_if<RpcError>(&agents)) return *e;
  const fs::path state = ctx.gateway.agents()->state_directory();
  return answer_later(ctx, [ids = std::get<std::vector<std::string>>(agents), state, r = *range, now]() -> UsageAnswer {
    std::map<std::string, usage::Totals> daily;
    usage::Totals totals;
    for (const auto& id : ids) {
      for (const auto& f : usage::list_transcripts(store::sessions_dir(state, id))) usage::add_cost_usage(f.path, r, daily, totals);
    }
    json rows = json::array();
    for (const auto& [date, t] : daily) {
      json row = t.to_json();
      row["date"] = date;
      rows.push_back(std::move(row));
    }
    // The calendar days the range covers (OpenClaw counts range "all" from 1970-01-01 too).
    const int64_t days = std::max<int64_t>(1, (r.end_ms - r.start_ms + 1 + 43'200'000) / 86'400'000);
    return json{{"updatedAt", now}, {"days", days}, {"daily", rows}, {"totals", totals.to_json()}};
  });
}

/// One row's facts from the session index (`sessions.json`): key → entry.
struct IndexedSession {
  std::string key;
  json entry;
};

std::map<std::string, IndexedSession> read_index(const fs::path& state, const std::string& agent_id) {
  std::map<std::string, IndexedSession> by_session_id;
  std::ifstream in(store::session_index_path(state, agent_id));
  if (!in) return by_session_id;
  std::stringstream ss;
  ss << in.rdbuf();
  const json index = json::parse(ss.str(), nullptr, false);
  if (!index.is_object()) return by_session_id;
  for (const auto& [key, entry] : index.items()) {
    if (!entry.is_object() || !entry.contains("sessionId") || !entry["sessionId"].is_string()) continue;
    const std::string sid = entry["sessionId"];
    auto it = by_session_id.find(sid);
    // Several keys on one session id: the most recently updated names it.
    if (it == by_session_id.end() || entry.value("updatedAt", 0.0) > it->second.entry.value("updatedAt", 0.0)) {
      by_session_id[sid] = {key, entry};
    }
  }
  return by_session_id;
}

std::string entry_channel(const json& e) {
  for (const char* k : {"channel", "lastChannel"}) {
    if (e.contains(k) && e[k].is_string() && !e[k].get<std::string>().empty()) return e[k];
  }
  if (e.contains("deliveryContext") && e["deliveryContext"].is_object()) return e["deliveryContext"].value("channel", "");
  if (e.contains("origin") && e["origin"].is_object()) return e["origin"].value("provider", "");
  return "";
}

MethodResult sessions_usage(MethodContext& ctx) {
  const std::string method = "sessions.usage";
  const json& params = ctx.request.params;
  Params p(method, params);
  if (auto e = p.only({"key", "agentId", "agentScope", "creatorKey", "startDate", "endDate", "mode", "range", "groupBy",
                       "includeHistorical", "utcOffset", "timeZone", "limit", "includeContextWeight"})) {
    return *e;
  }
  std::string key, agent_id, scope, creator, mode, range_name, group;
  for (auto [name, out] : std::initializer_list<std::pair<const char*, std::string*>>{
           {"key", &key}, {"agentId", &agent_id}, {"creatorKey", &creator}, {"timeZone", nullptr}}) {
    std::string ignored;
    if (auto e = p.string(name, out ? *out : ignored, false, true)) return *e;
  }
  if (auto e = p.string("agentScope", scope, false)) return *e;
  if (!scope.empty() && scope != "all") return invalid_params(method, "/agentScope must be equal to constant \"all\"");
  if (auto e = p.string("mode", mode, false)) return *e;
  if (!mode.empty() && mode != "utc" && mode != "gateway" && mode != "specific") {
    return invalid_params(method, "/mode must be one of utc, gateway, specific");
  }
  if (auto e = p.string("range", range_name, false)) return *e;
  if (!range_name.empty() && range_name != "7d" && range_name != "30d" && range_name != "90d" && range_name != "1y" && range_name != "all") {
    return invalid_params(method, "/range must be one of 7d, 30d, 90d, 1y, all");
  }
  if (auto e = p.string("groupBy", group, false)) return *e;
  if (!group.empty() && group != "instance" && group != "family") return invalid_params(method, "/groupBy must be one of instance, family");
  for (const char* b : {"includeHistorical", "includeContextWeight"}) {
    if (params.is_object() && params.contains(b) && !params[b].is_boolean()) return invalid_params(method, "/" + std::string(b) + " must be boolean");
  }
  int64_t limit = 50;
  if (params.is_object() && params.contains("limit")) {
    const json& l = params["limit"];
    if (!l.is_number_integer() || l.get<int64_t>() < 1) return invalid_params(method, "/limit must be an integer >= 1");
    limit = l.get<int64_t>();
  }
  auto range = usage::parse_range(params, ctx.gateway.clock().wall_ms());
  if (!range) return RpcError::invalid(range.error().message);
  const bool all = scope == "all";
  if (all && (!agent_id.empty() || !key.empty())) return RpcError::invalid("agentScope=all cannot be combined with key or agentId");
  // A specific key names its agent (agent:<id>:…); else agentId, else the default agent.
  std::string owner = agent_id;
  if (!key.empty() && owner.empty()) {
    if (auto parsed = store::parse_agent_session_key(key)) owner = parsed->agent_id;
  }
  auto agents = agents_for(ctx, owner, all);
  if (auto* e = std::get_if<RpcError>(&agents)) return *e;
  auto* service = ctx.gateway.agents();
  const std::string canonical = key.empty() ? "" : service->canonical_key(key, std::get<std::vector<std::string>>(agents).front());
  const fs::path state = service->state_directory();
  const int64_t now = ctx.gateway.clock().wall_ms();
  return answer_later(ctx, [ids = std::get<std::vector<std::string>>(agents), state, r = *range, now, limit, key, canonical,
                            creator]() -> UsageAnswer {
    struct Row {
      json row;
      int64_t updated_at;
    };
    std::vector<Row> rows;
    usage::Aggregate aggregate;
    bool found = key.empty();
    for (const auto& agent_id : ids) {
      const auto index = read_index(state, agent_id);
      std::map<std::string, std::vector<usage::TranscriptFile>> by_id;
      for (auto& f : usage::list_transcripts(store::sessions_dir(state, agent_id))) by_id[f.session_id].push_back(std::move(f));
      for (auto& [sid, files] : by_id) {
        // One instance per session id: its transcript, else its newest archive.
        std::sort(files.begin(), files.end(), [](const usage::TranscriptFile& a, const usage::TranscriptFile& b) {
          return a.primary != b.primary ? a.primary : a.mtime_ms > b.mtime_ms;
        });
        files.resize(1);
        const auto indexed = index.find(sid);
        const std::string row_key = indexed != index.end() ? indexed->second.key : "agent:" + agent_id + ":" + sid;
        if (!key.empty() && row_key != canonical && sid != key) continue;
        found = true;
        if (key.empty() && files.front().mtime_ms < r.start_ms) continue;  // untouched since before the range
        const json entry = indexed != index.end() ? indexed->second.entry : json::object();
        auto summary = usage::session_summary(sid, files, r);
        if (!summary && key.empty()) continue;
        const std::string channel = entry_channel(entry);
        json row = {{"key", row_key}, {"sessionId", sid}, {"scope", "instance"}, {"agentId", agent_id},
                    {"creatorKey", kUnknownCreator}, {"usage", summary ? *summary : json(nullptr)}, {"hasContextWeight", false}};
        const std::string label = entry.value("label", entry.value("displayName", ""));
        if (!label.empty()) row["label"] = label;
        const int64_t updated = entry.contains("updatedAt") && entry["updatedAt"].is_number() ? entry["updatedAt"].get<int64_t>()
                                                                                               : files.front().mtime_ms;
        row["updatedAt"] = updated;
        if (!channel.empty()) row["channel"] = channel;
        for (const char* k : {"chatType", "modelProvider", "model", "modelOverride", "providerOverride"}) {
          if (entry.contains(k) && entry[k].is_string()) row[k] = entry[k];
        }
        if (!creator.empty() && creator != kUnknownCreator) continue;
        if (summary) aggregate.add(*summary, agent_id, channel);
        rows.push_back({std::move(row), updated});
      }
    }
    if (!found) return RpcError::invalid("Invalid session reference: " + key);
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.updated_at > b.updated_at; });
    json sessions = json::array();
    for (std::size_t i = 0; i < rows.size() && static_cast<int64_t>(i) < limit; ++i) sessions.push_back(rows[i].row);
    return json{{"updatedAt", now},
                {"startDate", r.zone.day_key(r.start_ms)},
                {"endDate", r.zone.day_key(r.end_ms)},
                {"sessions", sessions},
                {"totals", aggregate.totals().to_json()},
                {"aggregates", aggregate.finish()},
                {"creatorOptions", json::array({{{"key", kUnknownCreator}}})}};
  });
}

}  // namespace

void register_usage_methods(MethodRegistry& registry) {
  registry.add({"usage.cost", usage_cost});
  registry.add({"sessions.usage", sessions_usage});
}

}  // namespace pincer::gateway
