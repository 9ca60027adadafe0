// openclaw.json's `agents` as pincer.json's: defaults, the agent list (ids normalised as OpenClaw
// does), heartbeats, and where each agent's workspace comes from and goes (see
// openclaw_import_config_mapper.h).
#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/json_lookup.h"
#include "store/session_keys.h"

#include "cli/openclaw_import_config_mapper.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

namespace fs = std::filesystem;
using nlohmann::json;

void Mapper::agents(const json& a, const Path& at) {
  if (!a.is_object()) return expect_object_or_skip(a, at);
  for (const auto& [k, v] : a.items()) {
    Path p = key(at, k);
    if (k == "defaults") defaults(v, p);
    else if (k == "list") agent_list(v, p);
    else skip(p, skip_reason("agents", k));
  }
}

void Mapper::model_choice(const json& v, const Path& from, const Path& to) {
  if (v.is_string()) return map(from, to, v);
  if (!v.is_object()) return skip(from, std::string("expected a string or {primary, fallbacks}, got ") + json_lookup::kind_of(v));
  for (const auto& [k, value] : v.items()) {
    if (k == "primary" || k == "fallbacks") map(key(from, k), key(to, k), value);
    else skip(key(from, k), "no Pincer equivalent yet");
  }
}

void Mapper::defaults(const json& d, const Path& at) {
  if (!d.is_object()) return expect_object_or_skip(d, at);
  for (const auto& [k, v] : d.items()) {
    Path p = key(at, k);
    if (k == "model") {
      model_choice(v, p, p);
    } else if (k == "workspace") {
      // decided by plan_workspaces()
    } else if (k == "thinkingDefault") {
      if (is_one_of(v, {"off", "minimal", "low", "medium", "high", "xhigh"})) map(p, p, v);
      else skip(p, "expected one of off|minimal|low|medium|high|xhigh, got " + v.dump());
    } else if (k == "timeoutSeconds" || k == "contextTokens" || k == "maxConcurrent" || k == "bootstrapMaxChars" ||
               k == "bootstrapTotalMaxChars" || k == "bootstrapTruncationWarning") {
      map(p, p, v);
    } else if (k == "heartbeat") {
      heartbeat(v, p, p);
    } else if (k == "subagents" || k == "compaction" || k == "sandbox" || k == "userTimezone" ||
               k == "contextEngine" || k == "startupContext") {
      // OpenClaw's shape: Pincer's schema removes what it does not have.
      if (v.is_object()) {
        for (const auto& [sub, value] : v.items()) map(key(p, sub), key(p, sub), value);
      } else {
        map(p, p, v);
      }
    } else {
      skip(p, skip_reason("agents.defaults", k));
    }
  }
}

// agents.*.heartbeat (AT-1): the keys Pincer has are copied; `config validate` checks them.
void Mapper::heartbeat(const json& h, const Path& from, const Path& to) {
  if (!h.is_object()) return expect_object_or_skip(h, from);
  for (const auto& [k, v] : h.items()) {
    Path p = key(from, k);
    if (k == "target" && v == "owner") skip(p, "Pincer has no owner route (commands.ownerAllowFrom); the default \"last\" applies");
    else if (k == "every" || k == "activeHours" || k == "prompt" || k == "target" || k == "to" || k == "accountId" ||
             k == "model" || k == "ackMaxChars" || k == "timeoutSeconds")
      map(p, key(to, k), v);
    else skip(p, "heartbeat \"" + k + "\" is not supported by Pincer yet");
  }
}

void Mapper::agent_list(const json& list, const Path& at) {
  if (!list.is_array()) return skip(at, std::string("expected an array, got ") + json_lookup::kind_of(list));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    Path from = index(at, i);
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) {
      skip(from, "an agent needs a string id");
      continue;
    }
    const std::string raw = e["id"].get<std::string>();
    const std::string id = store::normalize_agent_id(raw);
    if (!seen.insert(id).second) {
      skip(from, "duplicate agent id \"" + id + "\" (OpenClaw uses the first)");
      continue;
    }
    Agent agent{id, i, agents_.size(), true, "", false};
    Path to = index(at, agent.out_index);
    map(key(from, "id"), key(to, "id"), id, id == raw ? "" : "normalised from " + json(raw).dump() + " as OpenClaw does");
    for (const auto& [k, v] : e.items()) {
      Path p = key(from, k);
      if (k == "id") continue;
      if (k == "name" || k == "default") map(p, key(to, k), v);
      else if (k == "model") model_choice(v, p, key(to, k));
      else if (k == "heartbeat") heartbeat(v, p, key(to, k));
      else if (k == "workspace") agent.workspace = v.is_string() ? v.get<std::string>() : "";
      else skip(p, skip_reason(text(from), k));
    }
    if (e.contains("workspace") && !e["workspace"].is_string()) skip(key(from, "workspace"), "expected a string");
    agents_.push_back(std::move(agent));
  }
}

void Mapper::plan_workspaces(const json& src_agents) {
  if (agents_.empty()) agents_.push_back(Agent{std::string(store::normalize_agent_id("main")), 0, 0, false, "", true});
  // Default agent: the first listed with default: true, else the first (OpenClaw's rule).
  const json list = src_agents.value("list", json::array());
  std::size_t default_at = 0;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    if (a.listed && list.is_array() && a.src_index < list.size() && is_true(list[a.src_index], "default")) {
      default_at = i;
      break;
    }
  }
  agents_[default_at].is_default = true;

  const json defaults = src_agents.value("defaults", json::object());
  const bool has_defaults_ws = defaults.is_object() && defaults.contains("workspace");
  const Path defaults_ws_path = {std::string("agents"), std::string("defaults"), std::string("workspace")};
  bool defaults_ws_used = false;
  if (has_defaults_ws && !defaults["workspace"].is_string()) {
    skip(defaults_ws_path, "expected a string");
  }
  std::map<fs::path, std::string> copied;  // source dir → dest (shared workspaces are copied once)
  for (const Agent& a : agents_) {
    std::string raw = a.workspace;
    Path from;
    if (!raw.empty()) {
      from = key(index({std::string("agents"), std::string("list")}, a.src_index), "workspace");
    } else if (a.is_default && has_defaults_ws && defaults["workspace"].is_string()) {
      raw = defaults["workspace"].get<std::string>();
      from = defaults_ws_path;
      defaults_ws_used = true;
    }
    WorkspacePlan plan;
    plan.agent_id = a.id;
    plan.from = from.empty() ? "" : text(from);
    plan.source = raw.empty() ? (ctx_.source_dir / (a.is_default ? "workspace" : "workspace-" + a.id)).lexically_normal()
                              : resolve_path(raw, ctx_.source_dir, ctx_.home);
    // Where Pincer looks for this agent's workspace when pincer.json names none.
    const std::string pincer_default = a.is_default ? "workspace" : "workspace-" + a.id;
    // The key that names it explicitly, when one is needed.
    const Path own_key = a.listed ? key(index({std::string("agents"), std::string("list")}, a.out_index), "workspace")
                                  : defaults_ws_path;
    if (is_below(plan.source, ctx_.source_dir)) {
      auto [it, fresh] = copied.emplace(plan.source, pincer_default);
      plan.copy = fresh;
      plan.dest = it->second;
      if (plan.dest != pincer_default) {
        set(own_key, plan.dest);
        out_.mapped.push_back({plan.from.empty() ? "(default workspace)" : plan.from, text(own_key),
                               "shares the workspace copied to <state dir>/" + plan.dest});
      } else if (!plan.from.empty()) {
        out_.mapped.push_back({plan.from, "", "copied to <state dir>/" + plan.dest + ", Pincer's default location"});
      }
    } else {
      plan.copy = false;
      set(own_key, plan.source.string());
      out_.mapped.push_back({plan.from.empty() ? "(default workspace)" : plan.from, text(own_key),
                             "outside the OpenClaw state dir: used in place, not copied"});
    }
    out_.workspaces.push_back(std::move(plan));
  }
  if (has_defaults_ws && defaults["workspace"].is_string() && !defaults_ws_used) {
    skip(defaults_ws_path, "not used: the default agent sets its own workspace");
  }
}

}  // namespace pincer::cli::openclaw::detail_openclaw_config
