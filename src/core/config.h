// Configuration: $PINCER_HOME/pincer.json (JSON5), loaded, resolved and validated strictly against
// one declarative schema (core/config_schema.h), which is also the source of defaults, of the
// `config.schema` gateway method and of docs/configuration.md (issue #2 "Core").
//
// Load pipeline (the order matters, as in OpenClaw's loader):
//   read file (≤ 2 MiB) → JSON5 parse → resolve "$include" (objects deep-merge, arrays concatenate,
//   depth ≤ 10, cycles detected, paths relative to the including file and confined to the
//   top-level config directory) → "${UPPER_CASE}" env substitution in strings ("$${X}" → literal
//   "${X}", a missing/empty var is an error naming it and the config path) → strict validation
//   (unknown keys and wrong types are errors naming the JSON path and the expectation, e.g.
//   `gateway.auth.mode: expected one of none|token|password|trusted-proxy, got "tokn"`) → defaults.
//
// Pure functions of their inputs (the environment is passed in); safe on any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::config {

/// Largest config file (top-level or included) accepted, in bytes (2 MiB, as OpenClaw).
inline constexpr std::uintmax_t kMaxFileBytes = 2 * 1024 * 1024;

/// Deepest chain of nested "$include"s accepted: the top-level file may include a file that
/// includes … up to this many levels; one more is an error (as OpenClaw's MAX_INCLUDE_DEPTH).
inline constexpr int kMaxIncludeDepth = 10;

/// What redact() puts in place of a sensitive value.
inline constexpr const char* kRedacted = "__PINCER_REDACTED__";

/// Environment lookup; returns nullopt when the variable is unset. Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// Lookup in the real process environment (getenv).
EnvLookup process_env();

/// One "${NAME}" reference in a string of a document.
struct EnvReference {
  std::string name;  ///< NAME, e.g. "OPENAI_API_KEY"
  std::string path;  ///< JSON path of the string holding it, e.g. "models.providers.openai.apiKey"
};

/// A loaded configuration.
struct LoadedConfig {
  std::filesystem::path path;  ///< the top-level file
  bool exists = false;         ///< false: the file is missing and `effective` holds pure defaults
  nlohmann::json written;      ///< after $include, before env substitution ("${NAME}" kept)
  nlohmann::json resolved;     ///< after $include + env substitution, before defaults
  nlohmann::json effective;    ///< validated, with every schema default filled in
  std::string hash;            ///< lowercase hex SHA-256 of the top-level file's bytes ("" if missing)
  /// What loads but is probably a mistake, one line each, in file order: a key written twice in
  /// one object (the later value replaces the whole earlier one, as OpenClaw's JSON5.parse does),
  ///   `<file>:<line>:<col>: "agents" appears again (first at line 3); the later value replaces
  ///    the whole earlier one`
  /// (<file> as load()'s errors name it: the top-level file or an included one). `config
  /// validate` prints them and the gateway logs them; they never fail a load.
  std::vector<std::string> warnings;
  /// Only from load_keeping_missing_env(): every "${NAME}" left as written because NAME is unset
  /// or empty (in the environment and in the file's `env` section), in document order.
  std::vector<EnvReference> missing_env;
};

/// Loads and validates `file`. A missing file is not an error (defaults apply).
/// Errors (code "CONFIG_INVALID"; message names the file, and line:col or the JSON path):
/// unreadable file, file > 2 MiB, JSON5 syntax, bad/cyclic/too-deep/escaping $include,
/// missing env var, schema violations (all of them, one per line, in document order).
/// Message shapes (files are shown as given / as resolved relative to the including file):
///   "<file>: file not found" | "<file>: not a regular file" | "<file>: file is larger than 2 MiB"
///   "<file>:<line>:<col>: <what>"                                        (JSON5 syntax; <file> is
///                                                                         the file holding it)
///   "<including file>: <json.path>.$include: <what>", e.g.
///     `… : gateway.$include: "../x.json" is outside the config directory /home/u/.pincer`
///     `… : $include: circular $include: pincer.json -> a.json -> pincer.json`
///     `… : $include: "f11.json" exceeds the maximum include depth (10)`
///     `… : $include: cannot read "x.json" (/home/u/.pincer/x.json): file not found`
///   "<file>: missing env var "NAME" referenced at config path gateway.auth.token"  — one line
///                                                         per missing variable, all of them
///   "<file>: <json.path>: <violation>"  — one line per schema violation (see validate()).
/// `env` may be empty (= no variables set).
Result<LoadedConfig> load(const std::filesystem::path& file, const EnvLookup& env);

/// As load(), except that a "${NAME}" whose variable is unset or empty is not an error: its
/// string keeps the reference as written (a placeholder, e.g. "${HOOK_SECRET}") and
/// LoadedConfig::missing_env names it (variable and config path). For local commands that do not
/// need every value (`tools explain`, `memory search`, `doctor`): they warn and go on. Never for
/// what runs with the values (the gateway). Other errors as load()'s; a placeholder that the
/// schema refuses (e.g. a URL format) is a schema error like any other value.
Result<LoadedConfig> load_keeping_missing_env(const std::filesystem::path& file, const EnvLookup& env);

/// The warnings a load of `file` would give (LoadedConfig::warnings: repeated keys, in the file and
/// the files it $includes), also when the file does not validate — for `config validate`, which
/// reports them beside the errors. Empty when the file is missing or cannot be read or parsed (the
/// load's error says why).
std::vector<std::string> load_warnings(const std::filesystem::path& file);

/// Where a value of a config file's resolved document (after "$include") is written.
struct ValueOrigin {
  std::filesystem::path file;  ///< the top-level file or an included one, named as load()'s errors
                               ///< name it ("" = unknown: the file does not resolve)
  std::string path;            ///< its JSON path inside `file` ("" = that file's root)
  std::size_t line = 0;        ///< 1-based line there (of the key, for an object member); 0 = unknown
  bool included = false;       ///< `file` is an $include'd file, not the top-level one
  bool present = false;        ///< the value exists; false: the path is missing and `file`/`path`
                               ///< name the nearest object above it that exists
};

/// For each JSON path of `paths` (as messages show them, e.g. "agents.list[0].bogus"), where in
/// `file` or the files it $includes that value is written: the later of two includes, a sibling
/// key over an included one, an array element in the file that holds it (arrays concatenate).
/// An entry stays default (file "") when `file` cannot be read, parsed or resolved, or the path
/// does not parse. Reads the files; pure otherwise; any thread.
std::vector<ValueOrigin> value_origins(const std::filesystem::path& file, const std::vector<std::string>& paths);

/// Lowercase hex SHA-256 of `file`'s bytes as they are now (LoadedConfig::hash of a load now), or
/// "" when it cannot be read. Lets a running gateway tell whether the file still is what it runs.
std::string file_sha256(const std::filesystem::path& file);

/// How resolve_file() treats "${NAME}" references in strings.
enum class EnvRefs {
  kSubstitute,  ///< replace them as load() does; a missing or empty variable is an error
  kKeep,        ///< leave every string as written ("${NAME}" and "$${NAME}" stay verbatim)
  kSubstituteSet,  ///< replace those whose variable is set; a missing or empty one stays as
                   ///< written ("${NAME}", a placeholder) and is not an error
};

/// Reads `file` and resolves it as load() does — size limit, JSON5, "$include" (same rules:
/// relative to the including file, confined to the directory of `file`, depth and cycle checks),
/// then env references per `refs` — but WITHOUT validating against Pincer's schema and without
/// defaults. For JSON5 configs of other programs that share these file conventions, e.g.
/// OpenClaw's openclaw.json read by `pincer import openclaw`. Returns the resolved document
/// (any JSON value; not necessarily an object).
/// Errors (code "CONFIG_INVALID"), with load()'s message shapes: "<file>: file not found" (a
/// missing file IS an error here), "<file>: file is larger than 2 MiB", "<file>:<line>:<col>: …",
/// "<file>: <json.path>.$include: …", and with kSubstitute "<file>: missing env var …".
Result<nlohmann::json> resolve_file(const std::filesystem::path& file, const EnvLookup& env,
                                    EnvRefs refs = EnvRefs::kSubstitute);

/// Every env reference load() would substitute in the strings of `doc`, in document order (keys
/// sorted, depth first); escaped "$${NAME}" and malformed references are not included.
std::vector<EnvReference> env_references(const nlohmann::json& doc);

/// The env references of `written` (a document after "$include", before substitution:
/// LoadedConfig::written, resolve_file(…, kKeep)) that load() would refuse: the variable is unset
/// or empty in `env` and in the document's own `env` section. Document order, as env_references().
std::vector<EnvReference> missing_env_references(const nlohmann::json& written, const EnvLookup& env);

/// Validates an already-resolved document against the schema. Error code "CONFIG_INVALID";
/// message lists every violation, one per line, each "<json.path>: <what was expected>, got <x>":
///   `gateway.port: expected integer 1..65535, got "abc"`
///   `gateway.prot: unknown key, did you mean `port`? (expected one of port|bind|...)` — the
///     suggestion (schema::suggested_key) when a known alias or a close spelling exists
///   `gateway.trustedProxies[2]: expected string, got 7`
///   `gateway.auth.trustedProxy.userHeader: missing required key (expected string)`
/// Objects and arrays are shown as `got object` / `got array`, sensitive values by type only.
/// The root is named "(root)". "Document order" is nlohmann::json's key order (keys sorted),
/// depth first; missing required keys follow the keys present in the same object.
Status validate(const nlohmann::json& doc);

/// Returns `doc` with every default of the schema filled in where the key is absent. An absent
/// object is created only when something inside it has a default (so optional sections such as
/// gateway.auth.trustedProxy stay absent). Values of the wrong type are left untouched.
nlohmann::json with_defaults(const nlohmann::json& doc);

/// The schema as JSON Schema (draft 2020-12) — the payload of the `config.schema` method.
nlohmann::json json_schema();

/// The schema as a Markdown reference — the content of docs/configuration.md.
std::string markdown_reference();

/// Copy of `doc` with every value the schema marks sensitive (tokens, passwords, keys) replaced
/// by "__PINCER_REDACTED__". Used for config.get and logs.
nlohmann::json redact(const nlohmann::json& doc);

/// Every non-empty string in `doc` at a place the schema marks sensitive (gateway token and
/// password, provider API keys and header values, bot tokens, webhook secrets, IRC passwords …),
/// in document order, duplicates removed. `doc` is a resolved document (after "${ENV}"
/// substitution), so values that came from the environment are included. The gateway registers
/// them with redact::add_secret() at start and at every reload.
std::vector<std::string> sensitive_values(const nlohmann::json& doc);

/// What `config.get` shows a client: redact(effective), then every string that held an
/// unescaped "${NAME}" reference in `written` (the document as written: after "$include", before
/// substitution — LoadedConfig::written) shown as written instead of its substituted value, and
/// the userinfo of every URL ("https://user:pass@host") replaced by "***". Strings are matched
/// by position (same keys, same array indexes); `written` null = nothing was substituted.
nlohmann::json redact_for_clients(const nlohmann::json& effective, const nlohmann::json& written);

}  // namespace pincer::config
