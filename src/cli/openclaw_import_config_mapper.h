// The mapper behind map_config() (cli/openclaw_import.h): openclaw.json → pincer.json, section by
// section. Internal to src/cli/openclaw_import_config*.cpp:
//   openclaw_import_config.cpp          map_config(), the walk, recording, plugins, final checks
//   openclaw_import_config_gateway.cpp  gateway (bind, auth, controlUi, reload, http)
//   openclaw_import_config_models.cpp   models.providers and their models
//   openclaw_import_config_agents.cpp   agents (defaults, list, heartbeat) and their workspaces
//   openclaw_import_config_tools.cpp    tools, logging, mcp, hooks
//   openclaw_import_config_rules.cpp    paths, value tests, secrets, the reasons keys are skipped
// Pure: no files, no environment. Not thread-safe per Mapper; one per map_config() call.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/openclaw_import.h"
#include "core/json5_edit.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

using json5::Path;

/// The provider APIs Pincer speaks, and the one a provider without `api` uses.
inline constexpr std::array<std::string_view, 5> kPincerApis = {"openai-completions", "openai-responses",
                                                                "anthropic-messages", "ollama", "google-generative-ai"};
inline constexpr std::string_view kDefaultApi = "openai-completions";

// ---- paths and values (openclaw_import_config_rules.cpp) ----------------------------------------

/// `p` + key `k` / + index `i`.
Path key(Path p, std::string k);
Path index(Path p, std::size_t i);
/// The path as reports show it ("(root)" for the empty path).
std::string text(const Path& p);
/// `v` is a string equal to one of `values`.
bool is_one_of(const nlohmann::json& v, std::initializer_list<std::string_view> values);
/// obj[k] when obj is an object holding a string there, else "".
std::string string_at(const nlohmann::json& obj, const char* k);
/// obj[k] is `true`.
bool is_true(const nlohmann::json& obj, const char* k);
/// `values` joined with "|".
std::string join(std::initializer_list<std::string_view> values);
/// Why a key is not imported. `parent` is its parent's path text ("" at the top level).
std::string skip_reason(const std::string& parent, const std::string& k);
/// "~", "~/x" → under `home`; a relative path → under `base`. Lexically normal.
std::filesystem::path resolve_path(std::string raw, const std::filesystem::path& base, const std::string& home);
/// The path of a schema violation line "<path>: <what>" ("" when there is none).
std::string violation_path(const std::string& line);
/// `prefix` is `path` or a path above it ("a.b" of "a.b.c" and "a.b[0]", not of "a.bc").
bool is_path_prefix(const std::string& prefix, const std::string& path);

/// An OpenClaw SecretInput translated: a value (with a note on how), or the reason there is none.
struct Secret {
  std::optional<nlohmann::json> value;
  std::string note;    ///< when value: how it was translated
  std::string reason;  ///< when no value
};
/// An OpenClaw SecretInput (string, "$NAME", env marker or SecretRef) as a Pincer string.
Secret convert_secret(const nlohmann::json& v);

// ---- the mapper ---------------------------------------------------------------------------------

/// Maps one resolved openclaw.json into `out` (config, mapped, skipped, warnings, workspaces).
class Mapper {
 public:
  Mapper(const MapContext& ctx, ConfigMapping& out) : ctx_(ctx), out_(out) {}

  /// The whole document: every section, then the workspaces, the model references and the
  /// removal of whatever Pincer's schema still rejects.
  void run(const nlohmann::json& root);

 private:
  using json = nlohmann::json;

  // recording (openclaw_import_config.cpp)
  void set(const Path& to, json value);
  void map(const Path& from, const Path& to, json value, std::string note = "");
  void skip(const Path& from, std::string reason);
  void expect_object_or_skip(const json& v, const Path& p);
  void secret(const json& v, const Path& from, const Path& to);

  // sections Pincer reads in OpenClaw's shape: copied key by key; prune_invalid() removes what
  // Pincer's schema does not know, with the schema's reason.
  static inline const std::set<std::string, std::less<>> kSameShapeSections = {"memory", "session", "skills", "approvals",
                                                                              "commands"};
  void same_shape(const json& v, const Path& at);
  void plugins(const json& v, const Path& at);

  // gateway (openclaw_import_config_gateway.cpp)
  void gateway(const json& g, const Path& at);
  void http(const json& h, const Path& at);
  void reload(const json& r, const Path& at);
  void bind(const json& v, const Path& p);
  void auth(const json& a, const Path& at);
  void control_ui(const json& c, const Path& at);

  // models (openclaw_import_config_models.cpp)
  void models(const json& m, const Path& at);
  void provider(const json& pr, const Path& at);
  void model_list(const json& list, const Path& at, const std::string& api);

  // agents and workspaces (openclaw_import_config_agents.cpp)
  struct Agent {
    std::string id;
    std::size_t src_index = 0, out_index = 0;
    bool listed = false;  // false: the implicit "main"
    std::string workspace;
    bool is_default = false;
  };
  void agents(const json& a, const Path& at);
  void model_choice(const json& v, const Path& from, const Path& to);
  void defaults(const json& d, const Path& at);
  void heartbeat(const json& h, const Path& from, const Path& to);
  void agent_list(const json& list, const Path& at);
  void plan_workspaces(const json& src_agents);

  // tools, logging, mcp, hooks (openclaw_import_config_tools.cpp)
  void tools(const json& t, const Path& at);
  void logging(const json& l, const Path& at);
  void mcp(const json& m, const Path& at);
  void hooks(const json& h, const Path& at);

  // final checks (openclaw_import_config.cpp)
  void check_model_refs();
  void prune_invalid();
  void forget(const std::string& to_path, const std::string& reason);

  const MapContext& ctx_;
  ConfigMapping& out_;
  std::vector<Agent> agents_;
};

}  // namespace pincer::cli::openclaw::detail_openclaw_config
