#include "cli/config_workspace_checks.h"

#include "core/file_kind.h"

namespace pincer::cli {

using nlohmann::json;

namespace {

std::string string_at(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

void workspace_problems(const json& effective, const agent::AgentsConfig& agents, ConfigProblems& out) {
  const json* agents_section = effective.is_object() && effective.contains("agents") ? &effective["agents"] : nullptr;
  const json empty = json::object();
  const json& section = agents_section && agents_section->is_object() ? *agents_section : empty;
  const json& list = section.contains("list") && section["list"].is_array() ? section["list"] : json::array();
  const bool defaults_set = section.contains("defaults") && !string_at(section["defaults"], "workspace").empty();
  for (const auto& a : agents.agents) {
    auto problem = not_a_directory(a.workspace);
    if (!problem) continue;
    std::string where;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (string_at(list[i], "id") == a.id && !string_at(list[i], "workspace").empty()) {
        where = "agents.list[" + std::to_string(i) + "].workspace";
        break;
      }
    }
    if (where.empty() && a.is_default && defaults_set) where = "agents.defaults.workspace";
    const std::string consequence = ": every turn of agent \"" + a.id + "\" would fail (the workspace must be a directory)";
    if (where.empty()) {
      out.errors.push_back("the default workspace of agent \"" + a.id + "\": " + *problem + consequence +
                           "; move the file away or set " + (a.is_default ? "agents.defaults.workspace" : "its workspace in agents.list") +
                           " to a directory");
    } else {
      out.errors.push_back(where + ": " + *problem + consequence + "; give a directory path there");
    }
  }
}

}  // namespace pincer::cli
