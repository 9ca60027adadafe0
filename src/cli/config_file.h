// pincer.json as the CLI edits it (`pincer config set|unset`, `pincer onboard`): read the text,
// change it with json5_edit (comments and formatting survive), validate the whole resulting
// document against the schema, and write it atomically with mode 0600. Blocking file I/O; CLI use.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/config_schema.h"
#include "core/json5_edit.h"
#include "core/result.h"

namespace pincer::cli {

/// The file the config commands work on: `file_flag` (--file) when given, else
/// $PINCER_HOME/pincer.json (core/paths, the file the gateway reads).
std::filesystem::path config_path(const std::optional<std::string>& file_flag, const config::EnvLookup& env);

/// An EnvLookup under which every "${NAME}" reference stays as written (the lookup of NAME
/// answers "${NAME}"). Validating with it checks the structure of a config without needing the
/// secrets it references to be set in this shell.
config::EnvLookup keep_env_references();

/// The config as a local command reads it that needs only some of its values (`tools explain`,
/// `memory search`): config::load_keeping_missing_env, each missing variable said once on stderr
/// ("pincer: warning: <file>: missing env var "NAME" referenced at config path <path> (left as
/// written here: what uses it does not work from this shell)"), so that an unrelated secret unset
/// in this shell (a webhook's) does not stop the command. Errors: config::load's others.
Result<config::LoadedConfig> load_for_local_command(const std::filesystem::path& file, const config::EnvLookup& env);

/// True when `value` is exactly one env reference, e.g. "${OPENAI_API_KEY}".
bool is_env_reference(std::string_view value);

/// A config file as read for editing.
struct ConfigText {
  std::filesystem::path path;
  bool exists = false;
  std::string text;  ///< the file's bytes ("" when it does not exist)
};

/// Reads `path` for editing. A missing file gives exists=false. Errors: "IO_ERROR", or
/// "TOO_LARGE" past config::kMaxFileBytes — messages name the path.
Result<ConfigText> read_config_text(const std::filesystem::path& path);

/// Validates `text` exactly as the gateway would load it from `path` ($include resolved relative
/// to it), except that env references are kept (keep_env_references). Errors: "CONFIG_INVALID"
/// with config::load's message — one line per problem, each starting with `path`.
Status validate_config_text(const std::filesystem::path& path, const std::string& text);

/// Refuses, as "CONFIG_INVALID" (one line each), every error of cli/config_checks.h
/// check_config_file the edit would add — a schema violation, a channel account that cannot run, a
/// token the gateway refuses … — except a gateway secret the gateway's environment may provide at
/// run time (env references are kept as written). An error `original` had already does not block
/// the edit (it may be the first of several fixes, or about something else). Then atomically
/// replaces `original.path` with it
/// (mode 0600, parent directories created 0700). A symlinked config is written through to its
/// target. Refuses with "CONFLICT" when the file changed on disk since `original` was read; that
/// check and the replacement happen under an exclusive flock on `<target>.lock`, so of two
/// concurrent writers based on the same text exactly one wins and the other gets "CONFLICT"
/// (never both "written"). Blocks while another writer holds the lock.
Status write_config_text(const ConfigText& original, const std::string& text);

/// What a removal (`config unset`) would leave dangling: the errors `text` has that `original` had
/// not when a primary model reference whose provider is not configured counts as an error (unlike
/// a set, where the provider may be the next thing set, nothing adds it back after a removal), e.g.
/// `agents.defaults.model.primary: "my.lab/x" names the provider "my.lab", which is not configured
/// (add it under models.providers["my.lab"] …)`; a fallback naming one is not (runs skip it: a
/// warning, as everywhere). Errors of `text` that are errors anyway (write_config_text refuses
/// them) are left out, and so are problems `original` had already (an unrelated schema error does
/// not hide a reference). Empty when nothing is left dangling or `original` does not exist.
std::vector<std::string> references_left_by_removal(const ConfigText& original, const std::string& text);

/// The same errors for an edit that adds a model reference (`agents add --model`): what `text`
/// has that `original` had not when a primary model naming a provider that is not configured
/// counts as an error, as `config validate` judges it; `original` may not exist (the file is
/// created). Empty when the edit adds none.
std::vector<std::string> model_reference_errors_added(const ConfigText& original, const std::string& text);

/// What an edit makes of the file as it is now: the new text, nullopt to leave it unchanged, or
/// an error (returned as is by edit_config_file).
using ConfigEdit = std::function<Result<std::optional<std::string>>(const ConfigText& current)>;

/// Read-modify-write of `path` under the exclusive flock on `<target>.lock`, taken BEFORE the
/// file is read: `edit` sees the current text (after every concurrent edit that got the lock
/// first), and its result is validated as write_config_text does and written atomically (mode
/// 0600, a symlink written through). So concurrent edits of different keys all land, in some
/// order, and none is lost. Returns the text the edit was based on (ConfigText::exists false:
/// the file was created). Errors: edit's own, "CONFIG_INVALID" (nothing written), "LOCK_FAILED"
/// (the lock file cannot be created, e.g. a read-only directory), "IO_ERROR"/"TOO_LARGE" (reading
/// or writing the file). `already_invalid`, when given, receives the errors the written result
/// still has that the file had before the edit (each one line, as check_config_file's; the
/// command says them as warnings).
/// Blocks while another writer holds the lock.
Result<ConfigText> edit_config_file(const std::filesystem::path& path, const ConfigEdit& edit,
                                    std::vector<std::string>* already_invalid = nullptr);

/// A new, commented pincer.json: the gateway on `port`, loopback, token auth with `token`, and
/// empty `models.providers` and `agents.defaults` sections, each explained by a comment.
std::string config_template(int port, const std::string& token);

/// The schema node describing the value at `path`. Walks object fields, map values, array items
/// and the matching alternative of unions; below an `any` node every path is accepted (the `any`
/// node is returned). Errors: "PATH_UNKNOWN", e.g.
///   `gateway.prot: unknown config key "prot" in gateway (expected one of port|bind|...)`
///   `gateway.port[0]: gateway.port is not a list`
Result<const config::schema::Node*> schema_node_at(const json5::Path& path);

/// `doc` with secrets replaced by config::kRedacted (config::redact), except values that are
/// just an env reference such as "${OPENAI_API_KEY}", which are not secret and stay visible.
nlohmann::json mask_secrets(const nlohmann::json& doc);

}  // namespace pincer::cli
