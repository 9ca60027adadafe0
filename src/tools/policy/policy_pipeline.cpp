#include "tools/policy/policy_pipeline.h"

#include <algorithm>
#include <functional>

namespace pincer::tools::policy {

using nlohmann::json;

namespace {

using Names = std::vector<std::string>;

Names strings_at(const json& obj, const char* key) {
  Names out;
  if (!obj.is_object()) return out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

const json& child(const json& obj, const std::string& key) {
  static const json null_json;
  if (!obj.is_object()) return null_json;
  auto it = obj.find(key);
  return it == obj.end() ? null_json : *it;
}

std::string quote_of(const std::string& s) { return "\"" + s + "\""; }

/// The `agents.list[]` entry of `agent_id`, or null.
const json& agent_entry(const json& config, const std::string& agent_id) {
  static const json null_json;
  const json& list = child(child(config, "agents"), "list");
  if (!list.is_array()) return null_json;
  for (const auto& a : list) {
    if (a.is_object() && a.value("id", "") == agent_id) return a;
  }
  return null_json;
}

LayerRules rules_from(const json& obj, const std::string& source) {
  LayerRules r;
  r.source = source;
  if (!obj.is_object()) return r;
  r.profile = obj.value("profile", "");
  r.allow = strings_at(obj, "allow");
  r.deny = strings_at(obj, "deny");
  return r;
}

/// Why `rules` removes `tool` (deny first, then the narrowing parts), or "".
Result<std::string> removal(const LayerRules& rules, const Tool& tool) {
  if (auto hit = first_match(rules.deny, tool)) return "denied by " + rules.source + ".deny " + quote_of(*hit);
  if (!rules.profile.empty()) {
    auto in = profile_includes(rules.profile, tool);
    if (!in) {
      return Error{"TOOLS_PROFILE_UNKNOWN", rules.source + ".profile: unknown tools profile " + quote_of(rules.profile) +
                                                " (expected minimal, coding, messaging or full)"};
    }
    if (!*in) return "not in " + rules.source + ".profile " + quote_of(rules.profile);
  }
  if (!rules.allow.empty() && !first_match(rules.allow, tool, true)) return "not in " + rules.source + ".allow";
  return std::string();
}

}  // namespace

const std::vector<std::string>& layer_names() {
  static const Names names = {"owner-only", "profile", "byProvider", "global", "agent", "group", "sandbox", "subagent"};
  return names;
}

const std::vector<std::string>& owner_only_tools() {
  static const Names names = {"gateway", "cron", "nodes", "sessions", "screen", "terminal", "portal",
                              "conversations_list", "conversations_send", "conversations_turn"};
  return names;
}

Result<PolicyDecision> decide(const ToolRegistry& registry, const json& config, const PolicyOrigin& origin) {
  return decide(registry.all(), config, origin);
}

Result<PolicyDecision> decide(const std::vector<const Tool*>& tools, const json& config, const PolicyOrigin& origin) {
  const json& tools_cfg = child(config, "tools");
  const json& agent = agent_entry(config, origin.agent_id);
  const json& agent_tools = child(agent, "tools");
  const std::string agent_path = "agents.list[" + origin.agent_id + "].tools";

  // Layer 2: the profile (the agent's wins), widened by alsoAllow.
  std::string profile = agent_tools.is_object() && agent_tools.contains("profile") ? agent_tools.value("profile", "")
                     : tools_cfg.is_object() ? tools_cfg.value("profile", "coding") : std::string("coding");
  const std::string profile_source = agent_tools.is_object() && agent_tools.contains("profile") ? agent_path : "tools";
  Names also = strings_at(tools_cfg, "alsoAllow");
  for (auto& e : strings_at(agent_tools, "alsoAllow")) also.push_back(std::move(e));

  // Layer 3: byProvider, the most specific key.
  LayerRules by_provider;
  const json& bp = child(tools_cfg, "byProvider");
  const std::string full_ref = origin.provider + "/" + origin.model;
  if (bp.is_object() && bp.contains(full_ref)) by_provider = rules_from(bp[full_ref], "tools.byProvider." + full_ref);
  else if (bp.is_object() && bp.contains(origin.provider)) by_provider = rules_from(bp[origin.provider], "tools.byProvider." + origin.provider);

  LayerRules global = rules_from(tools_cfg, "tools");
  global.profile.clear();  // layer 2's
  LayerRules agent_rules = rules_from(agent_tools, agent_path);
  agent_rules.profile.clear();

  LayerRules group;
  if (!origin.channel.empty() && origin.is_group) {
    const json& groups = child(child(child(config, "channels"), origin.channel), "groups");
    const std::string base = "channels." + origin.channel + ".groups.";
    if (groups.is_object() && groups.contains(origin.group_id) && child(groups[origin.group_id], "tools").is_object()) {
      group = rules_from(groups[origin.group_id]["tools"], base + origin.group_id + ".tools");
    } else if (groups.is_object() && groups.contains("*")) {
      group = rules_from(child(groups["*"], "tools"), base + "*.tools");
    }
    group.profile.clear();
  }

  LayerRules subagent;
  if (origin.subagent) {
    const json& sub = child(child(tools_cfg, "subagents"), "tools");
    subagent = rules_from(sub, "tools.subagents.tools");
    if (!sub.is_object() || !sub.contains("deny")) subagent.deny = owner_only_tools();
    subagent.profile.clear();
  }

  PolicyDecision out;
  out.tools.reserve(tools.size());
  out.verdicts.reserve(tools.size());
  for (const Tool* tool : tools) {
    ToolVerdict v;
    v.tool = std::string(tool->name());
    auto remove = [&](const std::string& layer, std::string why) {
      v.allowed = false;
      v.layer = layer;
      v.reason = std::move(why);
    };
    // 1. owner-only
    if (!origin.sender_is_owner) {
      const auto& owner = owner_only_tools();
      if (std::find(owner.begin(), owner.end(), v.tool) != owner.end()) remove("owner-only", "the sender is not the owner");
    }
    // 2. profile (+ alsoAllow)
    if (v.allowed && !origin.skip_profile) {
      auto in = profile_includes(profile, *tool);
      if (!in) {
        return Error{"TOOLS_PROFILE_UNKNOWN", profile_source + ".profile: unknown tools profile " + quote_of(profile) +
                                                  " (expected minimal, coding, messaging or full)"};
      }
      if (!*in && !first_match(also, *tool, true)) remove("profile", "not in " + profile_source + ".profile " + quote_of(profile));
    }
    // 3..8
    const std::pair<const char*, const LayerRules*> layers[] = {
        {"byProvider", &by_provider}, {"global", &global}, {"agent", &agent_rules}, {"group", &group},
        {"sandbox", origin.sandbox_floor ? &*origin.sandbox_floor : nullptr}, {"subagent", &subagent}};
    for (const auto& [name, rules] : layers) {
      if (!rules || rules->empty()) continue;
      auto why = removal(*rules, *tool);
      if (!why) return why.error();
      if (v.allowed && !why->empty()) remove(name, *why);
    }
    if (v.allowed) out.tools.push_back(tool);
    out.verdicts.push_back(std::move(v));
  }
  return out;
}

void remove_group(PolicyDecision& decision, std::string_view group, const std::string& layer, const std::string& reason) {
  std::erase_if(decision.tools, [&](const Tool* t) {
    if (t->group() != group) return false;
    for (auto& v : decision.verdicts) {
      if (v.tool == t->name() && v.allowed) {
        v.allowed = false;
        v.layer = layer;
        v.reason = reason;
      }
    }
    return true;
  });
}

std::string explain_text(const PolicyDecision& decision) {
  std::size_t width = 4;
  for (const auto& v : decision.verdicts) width = std::max(width, v.tool.size());
  std::string out;
  for (const auto& v : decision.verdicts) {
    out += v.tool + std::string(width + 2 - v.tool.size(), ' ');
    out += v.allowed ? "allowed" : "removed by " + v.layer + ": " + v.reason;
    out += "\n";
  }
  return out;
}

}  // namespace pincer::tools::policy
