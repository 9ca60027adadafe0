// Internals shared by the files of the config loader (not for use outside src/core/config*.cpp):
//   config.cpp           reading files, the load pipeline, the public load()/resolve_file()
//   config_include.cpp   "$include" resolution (deep merge, confinement, depth and cycle checks)
//   config_env.cpp       "${NAME}" substitution and env_references()
//   config_validate.cpp  strict validation against the schema (formats, bounds, unions)
//   config_defaults.cpp  with_defaults()
//   config_export.cpp    json_schema() and markdown_reference()
//   config_secrets.cpp   redact(), sensitive_values(), redact_for_clients()
//   config_messages.cpp  JSON paths and values as error messages show them (below)
// Pure functions; safe on any thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/config_schema.h"
#include "core/result.h"

namespace pincer::config::detail_config {

/// Error code of every config error.
inline constexpr const char* kErrorCode = "CONFIG_INVALID";

/// Error{CONFIG_INVALID, message}.
Error invalid(std::string message);

// ---- JSON paths in messages ("gateway.auth.token", "a.b[2]", `x["odd key"]`) -------------------

/// `parent.key`, or `parent["odd key"]` when the key is not plain ([A-Za-z0-9_$-]+); `key` alone
/// at the root.
std::string key_path(const std::string& parent, const std::string& key);
/// `parent[index]`.
std::string index_path(const std::string& parent, std::size_t index);
/// The path as messages show it: the root ("") is named "(root)".
std::string shown(const std::string& path);

// ---- values in messages -------------------------------------------------------------------------

/// "null", "object", "array", "string", "boolean", "number", …
const char* type_name(const nlohmann::json& v);
/// What an error message shows after "got": short literals (strings cut at 64 bytes + "…"), a type
/// name for containers and null, and only the type for sensitive values.
std::string describe_value(const nlohmann::json& v, bool sensitive);

// ---- shared by the schema walkers (config_validate.cpp) ----------------------------------------

/// The alternative of a union node that speaks for `v`: the first whose JSON type fits, or
/// nullptr.
const schema::Node* alternative_for(const schema::Node& node, const nlohmann::json& v);

// ---- files (config.cpp) -------------------------------------------------------------------------

/// Reads a whole config file (at most kMaxFileBytes). On failure the error message is only the
/// reason ("file not found", "not a regular file", "file is larger than 2 MiB", …); callers
/// prefix the file they name.
Result<std::string> read_config_file(const std::filesystem::path& p);
/// JSON5 text → JSON; errors are "<display>:<line>:<col>: <what>". A key repeated in one object
/// appends a warning to `*warnings` when given (LoadedConfig::warnings shows the shape).
Result<nlohmann::json> parse_config_text(const std::string& text, const std::filesystem::path& display,
                                         std::vector<std::string>* warnings = nullptr);

// ---- "$include" (config_include.cpp) ------------------------------------------------------------

/// `doc` (parsed from `file`, named `file` in messages) with every "$include" below it resolved.
/// `canonical` is `file`'s canonical path; includes are confined to its directory. Errors:
/// "<including file>: <json.path>.$include: <what>" (see config::load()). Included files' repeated
/// keys are appended to `*warnings` when given (as parse_config_text). With `origins`, also where
/// each value is written: a tree of the result's shape (config_include.cpp, value_origins()).
Result<nlohmann::json> resolve_includes(const nlohmann::json& doc, const std::filesystem::path& file,
                                        const std::filesystem::path& canonical,
                                        std::vector<std::string>* warnings = nullptr, nlohmann::json* origins = nullptr);

// ---- "${NAME}" (config_env.cpp) -----------------------------------------------------------------

/// Replaces every unescaped "${NAME}" in the strings below `v` (`path` is v's JSON path); "$${X}"
/// becomes "${X}". Error: one line per missing or empty variable, "missing env var "NAME"
/// referenced at config path <path>" (without a file prefix).
Status substitute_env(nlohmann::json& v, const EnvLookup& env, const std::string& path);

}  // namespace pincer::config::detail_config
