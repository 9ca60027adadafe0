// The agent runtime's side of skills (SPEC SK-2, SK-4): a run's system prompt gets the session's
// skills snapshot (skills/snapshot.h), and the run's reads of a listed SKILL.md are recorded as
// uses of that skill, with the run's outcome (skills/skill_usage.h: candidate → trusted).
//
// Loop-only (called by AgentService::start and the run's hooks and sink).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_run.h"
#include "agent/run_events.h"
#include "agent/system_prompt.h"

namespace pincer::agent {

/// The skills one run used; records the outcome when the run ends.
class SkillRunTracker {
 public:
  SkillRunTracker(std::filesystem::path state_dir, int trust_after);
  /// A tool call finished (RunHooks::after_tool_call): a successful `read` of a listed SKILL.md
  /// (relative to `workspace` or absolute) is a use.
  void tool_finished(const llm::ToolCall& call, const tools::ToolOutput& output);
  /// Any run event: on End (success) or Error/Aborted (failure) the uses are recorded, once.
  void observe(const RunEvent& event);

  std::filesystem::path workspace;
  std::vector<std::pair<std::string, std::filesystem::path>> listed;  ///< name, SKILL.md of the snapshot

 private:
  std::filesystem::path state_dir_;
  int trust_after_;
  std::vector<std::pair<std::string, std::filesystem::path>> used_;
  bool recorded_ = false;
};

/// Puts the session's snapshot into `prompt.skills` (only when the run offers `read`) and chains
/// the tracker into `in.hooks.after_tool_call`. Returns the tracker (pass run events to observe()).
std::shared_ptr<SkillRunTracker> attach_skills(const nlohmann::json& config, const std::filesystem::path& state_dir,
                                               const std::string& session_key, const std::string& agent_id,
                                               RunInputs& in, SystemPromptInput& prompt);

}  // namespace pincer::agent
