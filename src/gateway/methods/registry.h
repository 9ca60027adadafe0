// The table of gateway RPC methods (GW-7). Each method group registers its handlers from its own
// file (methods/system.cpp, methods/config.cpp, …); the Gateway dispatches through this table after
// authorization (protocol/scopes.h), idempotency and write-budget checks.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "gateway/protocol/frames.h"

namespace pincer::agent {
class AgentService;
}

namespace pincer::gateway {

class Gateway;
struct Client;

/// What a handler sees: the gateway (loop-affine state), the calling client and its request.
struct MethodContext {
  Gateway& gateway;
  const Client& client;
  const RequestFrame& request;
};

/// Serialised JSON, for handlers that answer from a cache without re-encoding.
struct RawJson {
  std::string text;
};

/// The handler answers later itself (Gateway::send_to): long-running methods such as agent.wait.
/// Deferred answers are not cached for idempotent replays.
struct Deferred {};

/// A handler's answer: a payload (json or pre-serialised), an error, or "later".
using MethodResult = std::variant<nlohmann::json, RawJson, RpcError, Deferred>;

struct MethodSpec {
  std::string name;
  std::function<MethodResult(MethodContext&)> handler;
  /// Side-effecting: params.idempotencyKey is required and a repeat gets the cached answer (GW-6).
  bool requires_idempotency_key = false;
  /// Counts against the control-plane write budget (GW-8).
  bool control_plane_write = false;
};

class MethodRegistry {
 public:
  void add(MethodSpec spec) { methods_[spec.name] = std::move(spec); }
  const MethodSpec* find(const std::string& name) const {
    auto it = methods_.find(name);
    return it == methods_.end() ? nullptr : &it->second;
  }
  /// Sorted method names (hello-ok features.methods).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, spec] : methods_) out.push_back(name);
    return out;
  }

 private:
  std::map<std::string, MethodSpec> methods_;
};

/// Registrations, one per method group.
void register_system_methods(MethodRegistry& registry);  // health, status, logs.tail
/// diagnostics.lanes, the run lanes (methods/diagnostics.cpp; called by register_system_methods).
void register_diagnostics_methods(MethodRegistry& registry);
/// channels.status in OpenClaw's shape (methods/channels.cpp; called by register_system_methods).
void register_channel_methods(MethodRegistry& registry);
/// Pincer's channel status ({channels: [account…], pipeline}) → OpenClaw's ChannelsStatusResult.
nlohmann::json openclaw_channels_status(const nlohmann::json& status, int64_t now_ms);
void register_config_methods(MethodRegistry& registry);  // config.get, config.schema(.lookup), the writes
/// config.set, config.patch, config.apply (methods/config_write.cpp; called by register_config_methods).
void register_config_write_methods(MethodRegistry& registry);
void register_chat_methods(MethodRegistry& registry);    // chat.send, chat.history, chat.abort
void register_agent_methods(MethodRegistry& registry);   // agent, agent.wait
void register_session_methods(MethodRegistry& registry); // sessions.*, models.list, agents.list
/// sessions.create|send|abort (methods/session_lifecycle.cpp; called by register_session_methods).
void register_session_lifecycle_methods(MethodRegistry& registry);
/// commands.list, the slash-command catalog (methods/commands.cpp; called by register_session_methods).
void register_command_methods(MethodRegistry& registry);
void register_device_methods(MethodRegistry& registry);  // device.pair.*, device.token.*
/// OpenClaw clients' per-page methods: empty lists for features Pincer lacks, small reads.
void register_compat_methods(MethodRegistry& registry);  // *.approval.list, system.info, …
void register_skill_methods(MethodRegistry& registry);   // skills.status (methods/skills.cpp, SK-1..4)
/// Empty OpenClaw-shaped lists of features Pincer lacks (methods/absent_features.cpp).
void register_absent_feature_methods(MethodRegistry& registry);
/// chat.metadata, doctor.memory.status, themes.list from what Pincer has (methods/ui_reads.cpp).
void register_ui_read_methods(MethodRegistry& registry);
void register_presence_methods(MethodRegistry& registry);        // system-presence, last-heartbeat
void register_session_branch_methods(MethodRegistry& registry);  // sessions.branches.list|switch (SS-4)
void register_web_search_methods(MethodRegistry& registry);      // webSearch.status (TL-5 settings)
void register_tool_methods(MethodRegistry& registry);            // tools.catalog, tools.effective (TL-1, TL-2)
/// models.authSetApiKey|authLogout|authOrderSet (methods/models_auth.cpp; PV-2, PV-3).
void register_models_auth_methods(MethodRegistry& registry);
/// usage.cost, sessions.usage (methods/usage.cpp, from the transcripts' usage entries).
void register_usage_methods(MethodRegistry& registry);

/// exec.approval.*, exec.approvals.get|set (methods/approvals.cpp; TL-3).
void register_approval_methods(MethodRegistry& registry);
/// approval.get|resolve, OpenClaw's unified approval methods over the exec approvals
/// (methods/approval_unified.cpp; called by register_approval_methods).
void register_unified_approval_methods(MethodRegistry& registry);
void register_cron_methods(MethodRegistry& registry);  // cron.status|list|get|add|update|remove|run|runs
/// wake, set-heartbeats (methods/heartbeat.cpp, AT-1; called by register_cron_methods).
void register_heartbeat_methods(MethodRegistry& registry);
/// Sends the runtime's exec.approval.requested|resolved events to operators with operator.approvals.
void attach_approval_events(Gateway& gateway, agent::AgentService& agents);

/// Params validation helper: INVALID_REQUEST "invalid <method> params: <what>".
inline RpcError invalid_params(const std::string& method, const std::string& what) {
  return RpcError::invalid("invalid " + method + " params: " + what);
}

}  // namespace pincer::gateway
