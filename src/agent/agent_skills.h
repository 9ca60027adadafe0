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
#include "core/result.h"
#include "skills/skill_loader.h"
#include "skills/skill_usage.h"
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
/// `config`: the effective config, shared with the snapshot check (not copied; never null).
std::shared_ptr<SkillRunTracker> attach_skills(const std::shared_ptr<const nlohmann::json>& config,
                                               const std::filesystem::path& state_dir,
                                               const std::string& session_key, const std::string& agent_id,
                                               RunInputs& in, SystemPromptInput& prompt);

/// The skills one agent sees, with their usage records: what `pincer skills`, `skills.status` and
/// `/skills` show. Blocking file reads (call off the loop for big trees; small in practice).
struct SkillsView {
  std::string agent_id;
  std::filesystem::path workspace;
  std::filesystem::path state_dir;
  skills::SkillsReport report;
  std::vector<skills::SkillUsage> usage;  ///< every record (not only this agent's skills)
  /// "candidate" / "trusted" / "" for a skill file.
  std::string status_of(const std::filesystem::path& file) const;
};

/// Loads the view for `agent_id` ("" = the default agent). Errors: CONFIG_INVALID (agents),
/// AGENT_UNKNOWN ("unknown agent \"x\" (agents: main, work)").
Result<SkillsView> load_skills_view(const nlohmann::json& config, const std::filesystem::path& state_dir,
                                    const std::string& agent_id);

/// load_skills_view with pincer.json as it is on disk under $PINCER_HOME (or ~/.pincer): the CLI,
/// and `/skills` (the running gateway's config equals it unless a reload was rejected).
Result<SkillsView> load_skills_view_from_disk(const std::string& agent_id);

/// OpenClaw's skills.status report: {workspaceDir, managedSkillsDir, agentId, agentSkillFilter?,
/// skills: [entry_json + status, uses, successes, failures]} plus Pincer's `problems`
/// ([{file, line, message, location}]).
nlohmann::json skills_status_json(const SkillsView& view);

/// The agent id of a canonical session key ("agent:<id>:…").
std::string skills_agent_of(const std::string& session_key);

/// The short text of `/skills`: available skills by name, then how many are unavailable/blocked.
std::string skills_chat_text(const SkillsView& view);

}  // namespace pincer::agent
