#include "gateway/config_reload.h"

#include <utility>

namespace pincer::gateway {

using nlohmann::json;

namespace {

struct Rule {
  const char* prefix;
  ChangeKind kind;
};

// OpenClaw's reload rules (src/gateway/config-reload.ts) name the same sections; Pincer applies
// agents/models/tools hot because AgentService resolves them again for every run.
constexpr Rule kRules[] = {
    {"channels", ChangeKind::Hot},      {"bindings", ChangeKind::Hot}, {"session", ChangeKind::Hot},
    {"messages", ChangeKind::Hot},      {"agents", ChangeKind::Hot},   {"models", ChangeKind::Hot},
    {"tools", ChangeKind::Hot},         {"gateway.reload", ChangeKind::None},
    {"plugins", ChangeKind::Hot},  // provider settings of web_search, read per run
    {"cron", ChangeKind::Hot},     // the scheduler's limit and switches (CronScheduler::reconfigure)
    {"hooks", ChangeKind::Hot},    // the webhook route and its settings (HooksRuntime::reconfigure)
    {"gateway.http", ChangeKind::Hot},  // the OpenAI-compatible API's switches (OpenAiHttpService::reconfigure)
    // memory.*: AgentService::reconfigure → MemoryService::reconfigure reopens (and frees) an index
    // whose settings changed; backend, citations, capture and archive are read per run.
    {"memory", ChangeKind::Hot},
    // skills.*: each session's skills snapshot is checked against the config on its next turn
    // (skills/snapshot.h), and the CLI, skills.status and /skills read it per call.
    {"skills", ChangeKind::Hot},
    {"mcp", ChangeKind::Hot},  // MCP servers: changed ones stop, the next run starts them (McpRuntime::reconfigure)
    {"meta", ChangeKind::None},         {"$schema", ChangeKind::None},
    {"env", ChangeKind::None},  // its values reach the config through substitution: those paths change
};

bool has_prefix(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '.');
}

void diff(const json& a, const json& b, const std::string& at, std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) {
      const std::string p = at.empty() ? k : at + "." + k;
      if (!b.contains(k)) out.push_back(p);
      else diff(v, b[k], p, out);
    }
    for (const auto& [k, v] : b.items()) {
      if (!a.contains(k)) out.push_back(at.empty() ? k : at + "." + k);
    }
    return;
  }
  if (a != b) out.push_back(at);
}

}  // namespace

ReloadMode reload_mode_from(const std::string& s) {
  if (s == "hot") return ReloadMode::Hot;
  if (s == "restart") return ReloadMode::Restart;
  if (s == "off") return ReloadMode::Off;
  return ReloadMode::Hybrid;
}

std::vector<std::string> changed_paths(const json& before, const json& after) {
  std::vector<std::string> out;
  diff(before, after, "", out);
  return out;
}

ChangeKind change_kind(const std::string& path) {
  std::size_t best = 0;
  ChangeKind kind = ChangeKind::Restart;
  for (const auto& rule : kRules) {
    const std::string prefix = rule.prefix;
    if (has_prefix(path, prefix) && prefix.size() > best) {
      best = prefix.size();
      kind = rule.kind;
    }
  }
  return kind;
}

ReloadPlan plan_reload(const json& before, const json& after) {
  ReloadPlan plan;
  plan.changed = changed_paths(before, after);
  for (const auto& path : plan.changed) {
    switch (change_kind(path)) {
      case ChangeKind::None: break;
      case ChangeKind::Restart: plan.restart_reasons.push_back(path); break;
      case ChangeKind::Hot: plan.hot = true; break;
    }
  }
  return plan;
}

}  // namespace pincer::gateway

namespace pincer::gateway {

std::string config_reload_fix(const std::string& reason, const std::string& config_path) {
  const std::string marker = "missing env var \"";
  if (auto at = reason.find(marker); at != std::string::npos) {
    const auto start = at + marker.size();
    const std::string name = reason.substr(start, reason.find('"', start) - start);
    return "the gateway's environment has no " + name + ": restart the gateway from a shell where " + name +
           " is set (or set it in the service's environment), or put it in the env section of " + config_path +
           " (env: { " + name + ": \"…\" })";
  }
  return "fix " + config_path + " (pincer config validate shows the problem); the gateway applies it once it is valid";
}

}  // namespace pincer::gateway
