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
    {"meta", ChangeKind::None},         {"$schema", ChangeKind::None},
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
