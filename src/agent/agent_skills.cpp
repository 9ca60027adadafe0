#include "agent/agent_skills.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "skills/skill_usage.h"
#include "skills/snapshot.h"

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

std::shared_ptr<SkillRunTracker> attach_skills(const nlohmann::json& config, const fs::path& state_dir,
                                               const std::string& session_key, const std::string& agent_id,
                                               RunInputs& in, SystemPromptInput& prompt) {
  auto tracker = std::make_shared<SkillRunTracker>(state_dir, skills::trust_threshold(config));
  tracker->workspace = in.workspace;
  const bool has_read =
      std::any_of(in.tools.begin(), in.tools.end(), [](const tools::Tool* t) { return t->name() == "read"; });
  if (!has_read) return tracker;  // SK-3: skills are read with `read`; without it there is nothing to offer
  skills::SnapshotRequest request;
  request.session_key = session_key;
  request.load.workspace = in.workspace;
  request.load.state_dir = state_dir;
  request.load.config = config;
  request.load.agent_id = agent_id;
  request.load.env = config::process_env();
  auto snap = skills::session_snapshot(request);
  prompt.skills = snap->prompt;
  for (const auto& s : snap->skills) tracker->listed.emplace_back(s.name, s.file);
  auto previous = std::move(in.hooks.after_tool_call);
  in.hooks.after_tool_call = [tracker, previous](const llm::ToolCall& call, tools::ToolOutput& output) {
    if (previous) previous(call, output);
    tracker->tool_finished(call, output);
  };
  return tracker;
}

}  // namespace pincer::agent
