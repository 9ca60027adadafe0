// Where Pincer keeps its files. Every path derives from the state directory: $PINCER_HOME, or
// ~/.pincer when unset (SPEC preamble). Tests always point PINCER_HOME at a temp dir.
#pragma once

#include <filesystem>

#include "core/config.h"

namespace pincer::paths {

/// $PINCER_HOME if set and non-empty, else $HOME/.pincer, else ./.pincer.
std::filesystem::path state_dir(const config::EnvLookup& env);

/// <state>/pincer.json — the user's config (JSON5).
std::filesystem::path config_file(const std::filesystem::path& state);

/// <state>/logs — log files.
std::filesystem::path logs_dir(const std::filesystem::path& state);

/// <state>/logs/gateway.log — the gateway's log unless `logging.file` says otherwise.
std::filesystem::path gateway_log_file(const std::filesystem::path& state);

/// <state>/gateway.lock — the single-instance lock (GW-1).
std::filesystem::path gateway_lock_file(const std::filesystem::path& state);

}  // namespace pincer::paths
