// Config loading: read (<= 2 MiB) → JSON5 → $include (config_include.cpp) → ${ENV}
// (config_env.cpp) → validate (config_validate.cpp) → defaults (config_defaults.cpp). The other
// schema walkers: config_export.cpp (JSON Schema, Markdown), config_secrets.cpp (redaction).
#include "core/config.h"
#include "core/config_text.h"

#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include <sodium.h>

#include "core/config_internal.h"
#include "core/json5.h"

namespace pincer::config {

namespace fs = std::filesystem;
using nlohmann::json;

namespace detail_config {

// Reads a whole config file. On failure the error message is only the reason ("file not found");
// callers prefix the file they name.
Result<std::string> read_config_file(const fs::path& p) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (st.type() == fs::file_type::not_found) return invalid("file not found");
  if (ec) return invalid(ec.message());
  if (!fs::is_regular_file(st)) return invalid("not a regular file");
  std::ifstream in(p, std::ios::binary);
  if (!in) return invalid(std::string("cannot open file: ") + std::strerror(errno));  // "Permission denied" …
  // Read in chunks and stop one chunk past the limit: the check holds even if the file grows.
  std::string data;
  char chunk[64 * 1024];
  while (data.size() <= kMaxFileBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    data.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return invalid("read error");
  if (data.size() > kMaxFileBytes) return invalid("file is larger than 2 MiB");
  return data;
}

Result<json> parse_config_text(const std::string& text, const fs::path& display, std::vector<std::string>* warnings) {
  std::vector<json5::DuplicateKey> repeated;
  auto parsed = json5::parse(text, display.string(), warnings != nullptr ? &repeated : nullptr);
  if (!parsed) return invalid(parsed.error().message);  // already "<file>:<line>:<col>: <what>"
  for (const auto& d : repeated) {
    warnings->push_back(display.string() + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " +
                        json(d.key).dump() + " appears again (first at line " + std::to_string(d.first_line) +
                        "); the later value replaces the whole earlier one");
  }
  return std::move(parsed).value();
}

}  // namespace detail_config

namespace detail_config_load {

using namespace detail_config;

std::string sha256_hex(const std::string& bytes) {
  static const bool sodium_ready = sodium_init() >= 0;
  (void)sodium_ready;
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

// Prefixes every line of `message` with "<file>: ".
std::string prefix_lines(const std::string& file, const std::string& message) {
  std::string out;
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    out += (out.empty() ? "" : "\n") + file + ": " + line;
  }
  return out;
}

// The file's own `env` section fills in what the environment leaves unset (as OpenClaw's).
EnvLookup with_env_section(const EnvLookup& env, const json& doc) {
  if (!doc.is_object() || !doc.contains("env") || !doc["env"].is_object()) return env;
  return [env, vars = doc["env"]](const std::string& name) -> std::optional<std::string> {
    if (auto v = env ? env(name) : std::nullopt; v && !v->empty()) return v;
    if (auto it = vars.find(name); it != vars.end() && it->is_string()) return it->get<std::string>();
    return std::nullopt;
  };
}

// JSON5 text of `file` → "$include"s resolved → env references per `refs`. Error messages name
// the file as given (see load()).
Result<json> resolve_text(const std::string& text, const fs::path& file, const EnvLookup& env, EnvRefs refs,
                          std::vector<std::string>* warnings = nullptr) {
  auto parsed = parse_config_text(text, file, warnings);
  if (!parsed) return parsed.error();

  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(fs::absolute(file), ec);
  if (ec) return invalid(file.string() + ": " + ec.message());
  auto resolved = resolve_includes(*parsed, file, canonical, warnings);
  if (!resolved) return resolved.error();

  if (refs == EnvRefs::kSubstitute) {
    if (auto st = substitute_env(*resolved, with_env_section(env, *resolved), ""); !st) {
      return invalid(prefix_lines(file.string(), st.error().message));
    }
  } else if (refs == EnvRefs::kSubstituteSet) {
    // A missing variable leaves its reference as written; that is all this mode asks.
    (void)substitute_env(*resolved, with_env_section(env, *resolved), "");
  }
  return resolved;
}

// load() and load_keeping_missing_env(): `keep_missing` leaves a missing variable's reference as
// written and lists it in LoadedConfig::missing_env instead of failing.
Result<LoadedConfig> load_config(const fs::path& file, const EnvLookup& env, bool keep_missing) {
  LoadedConfig config;
  config.path = file;
  const std::string shown_file = file.string();

  std::error_code ec;
  if (fs::status(file, ec).type() == fs::file_type::not_found) {
    config.resolved = json::object();
    config.effective = with_defaults(config.resolved);
    return config;
  }
  auto text = read_config_file(file);
  if (!text) return invalid(shown_file + ": " + text.error().message);
  config.exists = true;
  config.hash = sha256_hex(*text);

  auto written = resolve_text(*text, file, env, EnvRefs::kKeep, &config.warnings);
  if (!written) return written.error();
  json resolved = *written;
  if (auto st = substitute_env(resolved, with_env_section(env, resolved), ""); !st) {
    if (!keep_missing) return invalid(prefix_lines(shown_file, st.error().message));
    config.missing_env = missing_env_references(*written, env);
  }
  if (auto st = validate(resolved); !st) {
    return invalid(prefix_lines(shown_file, st.error().message));
  }
  config.written = std::move(*written);
  config.resolved = std::move(resolved);
  config.effective = with_defaults(config.resolved);
  return config;
}

}  // namespace detail_config_load

using detail_config::invalid;
using detail_config::read_config_file;
using detail_config::substitute_env;
using detail_config_load::prefix_lines;
using detail_config_load::resolve_text;
using detail_config_load::sha256_hex;
using detail_config_load::with_env_section;

// ---- public API ---------------------------------------------------------------------------------

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Result<LoadedConfig> load(const std::filesystem::path& file, const EnvLookup& env) {
  return detail_config_load::load_config(file, env, false);
}

Result<LoadedConfig> load_keeping_missing_env(const std::filesystem::path& file, const EnvLookup& env) {
  return detail_config_load::load_config(file, env, true);
}

std::vector<EnvReference> missing_env_references(const nlohmann::json& written, const EnvLookup& env) {
  std::vector<EnvReference> out;
  const EnvLookup lookup = with_env_section(env, written);
  for (auto& ref : env_references(written)) {
    auto value = lookup ? lookup(ref.name) : std::nullopt;
    if (!value || value->empty()) out.push_back(std::move(ref));
  }
  return out;
}

std::vector<std::string> load_warnings(const std::filesystem::path& file) {
  std::vector<std::string> warnings;
  std::error_code ec;
  if (fs::status(file, ec).type() == fs::file_type::not_found) return warnings;
  auto text = read_config_file(file);
  if (!text) return warnings;
  // As load() reads it: the warnings come from parsing and $include, before env references. A
  // file that does not parse has none; a failing $include keeps those found before it.
  (void)resolve_text(*text, file, {}, EnvRefs::kKeep, &warnings);
  return warnings;
}

std::string file_sha256(const std::filesystem::path& file) {
  auto text = read_config_file(file);
  return text ? sha256_hex(*text) : "";
}

Result<nlohmann::json> resolve_file(const std::filesystem::path& file, const EnvLookup& env, EnvRefs refs) {
  auto text = read_config_file(file);
  if (!text) return invalid(file.string() + ": " + text.error().message);
  return resolve_text(*text, file, env, refs);
}

Result<nlohmann::json> resolve_config_text(const std::string& text, const std::filesystem::path& file,
                                           const EnvLookup& env, EnvRefs refs) {
  return resolve_text(text, file, env, refs);
}

}  // namespace pincer::config
