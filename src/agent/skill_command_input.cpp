#include "agent/skill_command_input.h"

#include <cctype>

#include <spdlog/spdlog.h>

#include "agent/agent_skills.h"
#include "agent/agents_config.h"
#include "agent/chat_commands.h"
#include "core/config.h"
#include "core/paths.h"

namespace pincer::agent {

std::set<std::string> builtin_command_words() {
  std::set<std::string> words;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const auto& c : chat_commands()) {
    words.insert(lower(c.name));
    for (const auto& a : c.aliases) words.insert(lower(a));
  }
  words.insert("skill");  // "/skill NAME [input]" itself
  return words;
}

Result<std::vector<skills::SkillCommand>> skill_commands_of(const std::string& agent_id) {
  auto view = load_skills_view_from_disk(agent_id);
  if (!view) return view.error();
  return skills::skill_commands(view->report, builtin_command_words());
}

std::vector<skills::SkillCommand> skill_commands_of_all_agents() {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) {
    spdlog::warn("skill commands: {}", loaded.error().message);
    return {};
  }
  auto agents = resolve_agents(loaded->effective, state, env);
  if (!agents) {
    spdlog::warn("skill commands: {}", agents.error().message);
    return {};
  }
  const std::set<std::string> builtin = builtin_command_words();
  std::set<std::string> seen;
  std::vector<skills::SkillCommand> out;
  for (const auto& a : agents->agents) {
    auto view = load_skills_view(loaded->effective, state, a.id);
    if (!view) {
      spdlog::warn("skill commands of agent {}: {}", a.id, view.error().message);
      continue;
    }
    for (auto& c : skills::skill_commands(view->report, builtin)) {
      if (seen.insert(c.name).second) out.push_back(std::move(c));
    }
  }
  return out;
}

std::optional<std::string> expand_skill_command(std::string_view text, const std::string& session_key,
                                                bool addressed_to_us) {
  // Only a command word that is not built in can be a skill command (ordinary text: no copy, no parse).
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '/') return std::nullopt;
  auto command = parse_chat_command(text, addressed_to_us);
  if (!command || command->command != &unknown_command()) return std::nullopt;
  const std::string agent_id = skills_agent_of(session_key);
  auto commands = skill_commands_of(agent_id);
  if (!commands) {
    spdlog::warn("skill commands of agent {}: {}", agent_id.empty() ? "(default)" : agent_id, commands.error().message);
    return std::nullopt;
  }
  auto invocation = skills::parse_skill_command(normalize_command_text(text), *commands, addressed_to_us);
  if (!invocation) return std::nullopt;
  spdlog::info("session {}: /{} runs skill {}", session_key, invocation->command.name, invocation->command.skill_name);
  return skills::skill_command_prompt(*invocation);
}

std::optional<std::string> skill_command_hint(const std::string& word, const std::string& rest, const std::string& session_key) {
  const std::string agent_id = skills_agent_of(session_key);
  auto view = load_skills_view_from_disk(agent_id);
  if (!view) {
    spdlog::warn("skill commands of agent {}: {}", agent_id.empty() ? "(default)" : agent_id, view.error().message);
    return std::nullopt;
  }
  return skills::skill_command_miss(word, rest, view->report, skills::skill_commands(view->report, builtin_command_words()));
}

}  // namespace pincer::agent
