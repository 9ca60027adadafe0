// A config text not (yet) on disk resolved as if it were a file: for checks of an edit before it
// is written (cli/config_auth_guard.h). Kept out of core/config.h, which nearly every file includes.
// Pure but for reading the $include'd files; any thread.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/result.h"

namespace pincer::config {

/// `text` resolved as resolve_file() resolves `file` — JSON5, "$include" relative to `file` and
/// confined to its directory, env references per `refs` — without reading `file` itself. Errors
/// as resolve_file()'s, naming `file`.
Result<nlohmann::json> resolve_config_text(const std::string& text, const std::filesystem::path& file,
                                           const EnvLookup& env, EnvRefs refs = EnvRefs::kKeep);

}  // namespace pincer::config
