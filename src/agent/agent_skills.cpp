#include "agent/agent_skills.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "agent/agents_config.h"
#include "agent/skill_command_input.h"
#include "core/paths.h"
#include "skills/skill_usage.h"
#include "skills/snapshot.h"
#include "store/session_keys.h"

namespace pincer::agent {
namespace {

namespace fs = std::filesystem;

std::int64_t skills_run_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SkillRunTracker::SkillRunTracker(fs::path state_dir, int trust_after)
    : state_dir_(std::move(state_dir)), trust_after_(trust_after) {}

void SkillRunTracker::tool_finished(const llm::ToolCall& call, const tools::ToolOutput& output) {
  if (call.name != "read" || output.is_error || recorded_) return;
  auto p = call.arguments.find("path");
  if (p == call.arguments.end() || !p->is_string()) return;
  fs::path path(p->get<std::string>());
  if (path.is_relative()) path = workspace / path;
  path = path.lexically_normal();
  for (const auto& [name, file] : listed) {
    std::error_code ec;
    if (path != file.lexically_normal() && !fs::equivalent(path, file, ec)) continue;
    const auto& n = name;
    if (std::none_of(used_.begin(), used_.end(), [&](const auto& u) { return u.first == n; })) {
      used_.emplace_back(name, file);
    }
    return;
  }
}

void SkillRunTracker::observe(const RunEvent& e) {
  if (recorded_) return;
  const bool end = e.kind == RunEvent::Kind::End;
  if (!end && e.kind != RunEvent::Kind::Error && e.kind != RunEvent::Kind::Aborted) return;
  recorded_ = true;
  if (used_.empty() || state_dir_.empty()) return;
  std::vector<skills::UsedSkill> used;
  for (const auto& [name, file] : used_) used.push_back({name, file});
  if (auto st = skills::record_outcome(state_dir_, used, end, trust_after_, skills_run_now_ms()); !st) {
    spdlog::warn("skills: cannot record usage: {}", st.error().message);
  }
}

std::shared_ptr<SkillRunTracker> attach_skills(const std::shared_ptr<const nlohmann::json>& shared_config,
                                               const fs::path& state_dir,
                                               const std::string& session_key, const std::string& agent_id,
                                               RunInputs& in, SystemPromptInput& prompt) {
  const nlohmann::json& config = *shared_config;
  auto tracker = std::make_shared<SkillRunTracker>(state_dir, skills::trust_threshold(config));
  tracker->workspace = in.workspace;
  const bool has_read =
      std::any_of(in.tools.begin(), in.tools.end(), [](const tools::Tool* t) { return t->name() == "read"; });
  if (!has_read) return tracker;  // SK-3: skills are read with `read`; without it there is nothing to offer
  skills::SnapshotRequest request;
  request.session_key = session_key;
  request.load.workspace = in.workspace;
  request.load.state_dir = state_dir;
  request.load.config = shared_config;
  request.load.agent_id = agent_id;
  request.load.env = config::process_env();
  auto snap = skills::session_snapshot(request);
  prompt.skills = snap->prompt;
  for (const auto& s : snap->skills) {
    tracker->listed.emplace_back(s.name, s.file);
    // SK-1: the values the config gives a listed skill reach its commands (OpenClaw sets them for
    // the run): skills.entries.<key>.env, and .apiKey as the skill's primaryEnv variable.
    const nlohmann::json entry = skills::skill_entry_config(config, s.key);
    if (auto env = entry.find("env"); env != entry.end() && env->is_object()) {
      for (const auto& [name, value] : env->items()) {
        if (value.is_string()) in.skill_env[name] = value.get<std::string>();
      }
    }
    if (auto key = entry.find("apiKey"); key != entry.end() && key->is_string() && !s.primary_env.empty()) {
      in.skill_env[s.primary_env] = key->get<std::string>();
    }
  }
  auto previous = std::move(in.hooks.after_tool_call);
  in.hooks.after_tool_call = [tracker, previous](const llm::ToolCall& call, tools::ToolOutput& output) {
    if (previous) previous(call, output);
    tracker->tool_finished(call, output);
  };
  return tracker;
}

std::string SkillsView::status_of(const fs::path& file) const {
  for (const auto& u : usage) {
    if (u.file == file.string()) return u.status;
  }
  return {};
}

Result<SkillsView> load_skills_view(const nlohmann::json& config, const fs::path& state_dir, const std::string& agent_id) {
  const auto env = config::process_env();
  auto agents = resolve_agents(config, state_dir, env);
  if (!agents) return agents.error();
  const AgentSettings* spec = agent_id.empty() ? &agents->default_agent() : agents->find(agent_id);
  if (spec == nullptr) {
    std::string known;
    for (const auto& a : agents->agents) known += (known.empty() ? "" : ", ") + a.id;
    return Error{"AGENT_UNKNOWN", "unknown agent \"" + agent_id + "\" (agents: " + known + ")"};
  }
  SkillsView view;
  view.agent_id = spec->id;
  view.workspace = spec->workspace;
  view.state_dir = state_dir;
  skills::LoadOptions o;
  o.workspace = spec->workspace;
  o.state_dir = state_dir;
  o.config = std::make_shared<const nlohmann::json>(config);
  o.agent_id = spec->id;
  o.env = env;
  view.report = skills::load_skills(o);
  if (auto u = skills::read_usage(state_dir)) view.usage = std::move(*u);
  return view;
}

Result<SkillsView> load_skills_view_from_disk(const std::string& agent_id) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) return loaded.error();
  return load_skills_view(loaded->effective, state, agent_id);
}

nlohmann::json skills_status_json(const SkillsView& view) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : view.report.skills) {
    auto j = skills::entry_json(e);
    j["status"] = view.status_of(e.file);
    for (const auto& u : view.usage) {
      if (u.file != e.file.string()) continue;
      j["uses"] = u.uses;
      j["successes"] = u.successes;
      j["failures"] = u.failures;
      j["origin"] = u.origin;
    }
    list.push_back(std::move(j));
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : view.report.problems) {
    problems.push_back({{"file", p.file.string()}, {"line", p.line}, {"message", p.message},
                        {"location", skills::to_string(p.source)}});
  }
  nlohmann::json out = {{"workspaceDir", view.workspace.string()},
                        {"managedSkillsDir", (view.state_dir / "skills").string()},
                        {"agentId", view.agent_id},
                        {"skills", std::move(list)},
                        {"problems", std::move(problems)}};
  if (view.report.agent_filter) out["agentSkillFilter"] = *view.report.agent_filter;
  return out;
}

std::string skills_agent_of(const std::string& session_key) { return store::agent_id_from_session_key(session_key); }

std::string skills_chat_text(const SkillsView& view) {
  std::string available;
  std::size_t unavailable = 0, blocked = 0;
  const auto commands = skills::skill_commands(view.report, builtin_command_words());
  for (const auto& e : view.report.skills) {
    if (e.blocked) ++blocked;
    else if (!e.eligible) ++unavailable;
    if (!e.eligible) continue;
    const std::string status = view.status_of(e.file);
    std::string command;  // its slash command (skills/skill_commands.h), when it has one
    for (const auto& c : commands) {
      if (c.skill_name == e.manifest.name) command = " /" + c.name;
    }
    available += "\n- " + e.manifest.name + command + (status == "candidate" ? " (candidate)" : "") + ": " +
                 one_line_description(e.manifest.description);
  }
  std::string text = available.empty() ? "No skills available to agent `" + view.agent_id + "`."
                                       : "Skills of agent `" + view.agent_id + "`:" + available;
  if (!commands.empty()) text += "\nRun one with its /command (or /skill NAME), followed by what it should work on.";
  if (unavailable + blocked > 0 || !view.report.problems.empty()) {
    text += "\n" + std::to_string(unavailable) + " unavailable, " + std::to_string(blocked) + " blocked, " +
            std::to_string(view.report.problems.size()) + " not loaded — `pincer skills check` says why.";
  }
  return text;
}

}  // namespace pincer::agent
