// The workspace part of the config checks (cli/config_checks.h): an agent's workspace must be a
// directory, or a path where one can be created — a regular file there (or above it) makes every
// turn fail with "create directory: Not a directory", so `config validate`, `doctor` and the
// gateway say it once, naming the config key and the file.
//
// Blocking (one stat per path component at most); any thread.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/agents_config.h"
#include "cli/config_checks.h"

namespace pincer::cli {

/// One error per agent whose workspace is not usable as a directory (core/file_kind.h
/// not_a_directory), naming where it is configured: `agents.list[<i>].workspace`,
/// `agents.defaults.workspace`, or the default path under the state dir.
void workspace_problems(const nlohmann::json& effective, const agent::AgentsConfig& agents, ConfigProblems& out);

}  // namespace pincer::cli
