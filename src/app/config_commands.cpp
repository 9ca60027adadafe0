// `pincer config …`: inspect, validate and edit pincer.json (docs/cli.md "pincer config").
//
//   config get PATH [--json] [--show-secrets]   the value as configured, else its default
//   config set PATH VALUE [--strict-json|--string] [--json]
//   config unset PATH [--json]
//   config validate [--json]
//   config schema [--markdown]
// Every command takes --file FILE (default $PINCER_HOME/pincer.json). Exit codes (app/commands.h):
// 0 done; 1 not set (get) or I/O failure; 2 unknown path, invalid value or invalid configuration.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/client_support.h"
#include "app/commands.h"
#include "cli/config_auth_guard.h"
#include "cli/config_checks.h"
#include "cli/config_file.h"
#include "cli/invoked_command.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/json5.h"
#include "core/json5_edit.h"
#include "core/paths.h"
#include "core/json_dump.h"

namespace pincer::app {
namespace {

using nlohmann::json;
using config::schema::Kind;
using config::schema::Node;

struct ConfigFlags {
  std::optional<std::string> file;
  std::string path;
  std::string value;
  bool json = false;
  bool show_secrets = false;
  bool strict_json = false;
  bool as_string = false;
};


/// Strings bare, everything else as indented JSON.
std::string shown(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump(2, ' ', false, json::error_handler_t::replace);
}

bool accepts(const Node& node, const json& v) {
  switch (node.kind()) {
    case Kind::kAny: return true;
    case Kind::kObject: case Kind::kMap: return v.is_object();
    case Kind::kArray: return v.is_array();
    case Kind::kString: case Kind::kEnum: return v.is_string();
    case Kind::kInteger: case Kind::kNumber: return v.is_number();
    case Kind::kBoolean: return v.is_boolean();
    case Kind::kUnion:
      for (const Node& alt : node.alternatives()) {
        if (accepts(alt, v)) return true;
      }
      return false;
  }
  return true;
}

/// Whether `node` (or an alternative of it) is an integer key.
bool wants_integer(const Node& node) {
  if (node.kind() == Kind::kInteger) return true;
  if (node.kind() != Kind::kUnion) return false;
  return std::any_of(node.alternatives().begin(), node.alternatives().end(),
                     [](const Node& alt) { return alt.kind() == Kind::kInteger; });
}

/// `1e3` or `1000.0` for an integer key is the integer 1000, written as such (JSON5 parses them
/// as floating point; the file would otherwise say 1000.0). Other values are returned as they are.
json integral_as_integer(const Node& node, json v) {
  if (!v.is_number_float() || !wants_integer(node)) return v;
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > config::schema::kMaxSafeInteger) return v;
  return json(static_cast<std::int64_t>(d));
}

/// VALUE of `config set`: parsed as JSON5; taken as a plain string when it does not parse, or
/// when the schema expects a string there and JSON5 gave something else (`token 12345`).
Result<json> parse_value(const ConfigFlags& f, const Node& node) {
  if (f.as_string) return json(f.value);
  auto parsed = json5::parse(f.value);
  if (f.strict_json) {
    if (!parsed) return Error{"INVALID_VALUE", f.path + ": VALUE is not valid JSON5: " + parsed.error().message};
    return integral_as_integer(node, std::move(*parsed));
  }
  if (!parsed || (accepts(node, json("")) && !accepts(node, *parsed))) return json(f.value);
  return integral_as_integer(node, std::move(*parsed));
}

/// `value` as it may be shown: secrets masked unless asked.
json display_value(const json5::Path& path, const json& value, bool show_secrets) {
  if (show_secrets) return value;
  auto doc = json5::apply_set(json::object(), path, value);
  if (!doc) return value;
  const json masked = cli::mask_secrets(*doc);
  const json* at = json5::find(masked, path);
  return at ? *at : value;
}

/// Parses PATH and checks it against the schema. Exit code 2 on failure (printed).
std::optional<std::pair<json5::Path, const Node*>> checked_path(const std::string& text, const char* command) {
  if (text.find_first_not_of(" \t") == std::string::npos) {
    fail(2, std::string("config ") + command + ": the config path is empty (give one such as gateway.port or agents.list[0].id)");
    return std::nullopt;
  }
  auto path = json5::parse_path(text);
  if (!path) {
    fail(2, std::string("config ") + command + ": invalid path " + path.error().message);
    return std::nullopt;
  }
  auto node = cli::schema_node_at(*path);
  if (!node) {
    fail(2, std::string("config ") + command + ": " + node.error().message);
    return std::nullopt;
  }
  return std::make_pair(std::move(*path), *node);
}

/// An explicit --file names the file to use: when it does not exist (for `set`, which creates it:
/// when its folder does not) that is a mistyped path, refused — not an empty configuration (the
/// default location may be missing: then every default applies). "" = fine.
std::string explicit_file_problem(const ConfigFlags& f, bool creates) {
  if (!f.file || f.file->empty()) return "";
  const std::filesystem::path file(*f.file);
  std::error_code ec;
  if (!creates) {
    return std::filesystem::exists(file, ec) ? "" : "--file " + *f.file + ": no such file";
  }
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  return std::filesystem::is_directory(dir, ec) ? "" : "--file " + *f.file + ": folder " + dir.string() + " does not exist";
}

int run_get(const ConfigFlags& f) {
  auto checked = checked_path(f.path, "get");
  if (!checked) return 2;
  if (auto problem = explicit_file_problem(f, false); !problem.empty()) return fail(2, "config get: " + problem);
  const auto& path = checked->first;
  const auto file = cli::config_path(f.file, config::process_env());
  json resolved;
  auto loaded = config::load(file, cli::keep_env_references());
  if (loaded) {
    resolved = loaded->resolved;
  } else {
    // An invalid file can still be inspected, as written.
    auto text = cli::read_config_text(file);
    if (!text) return fail(1, text.error().message);
    auto parsed = json5::parse(text->text, file.string());
    if (!parsed) return fail(2, parsed.error().message);
    std::cerr << "pincer: warning: " << file.string() << " is not valid (see `" + cli::invoked_command() +
        " config validate`); showing it as written\n";
    // With its $includes, as the gateway reads it (the file alone when one of them fails).
    auto with_includes = config::resolve_file(file, {}, config::EnvRefs::kKeep);
    resolved = with_includes ? std::move(*with_includes) : std::move(*parsed);
  }
  const json effective = config::with_defaults(resolved);
  // The value shown is the effective one (defaults filled in); its source says where it came from:
  // "file" = exactly as written, "default" = not written, "file+default" = an object or list the
  // file writes, completed with defaults (e.g. `config get gateway` of a file setting only the token).
  const json* written = json5::find(resolved, path);
  const json* value = json5::find(effective, path);
  if (value == nullptr) value = written;
  if (value == nullptr) {
    return fail(1, json5::format_path(path) + " is not set in " + file.string() + " and has no default");
  }
  const char* source = written == nullptr ? "default" : *written == *value ? "file" : "file+default";
  const json masked_doc = f.show_secrets ? json() : cli::mask_secrets(value == written ? resolved : effective);
  const json* masked = f.show_secrets ? nullptr : json5::find(masked_doc, path);
  const json shown_value = masked == nullptr ? *value : *masked;
  if (f.json) {
    std::cout << json{{"path", json5::format_path(path)}, {"value", shown_value}, {"source", source}}.dump(2) << "\n";
  } else {
    std::cout << shown(shown_value) << "\n";
  }
  return 0;
}

/// A config edit that was not saved, with the true reason: an invalid result (exit 2), or the
/// file could not be read or written (exit 1; e.g. a read-only state dir).
int not_written(const std::string& command, const std::string& path, const Error& e) {
  if (e.code == "CONFIG_INVALID") return fail(2, command + " " + path + ": not written, the result would be invalid:\n" + e.message);
  return fail(1, command + " " + path + ": not written, the file could not be saved: " + e.message);
}

/// The errors the file had before an edit and still has after it (the edit was written: it added
/// none), as warnings naming the file and the path, and saying they are not the edit's.
std::vector<std::string> already_there(const std::vector<std::string>& errors, const std::filesystem::path& file) {
  std::vector<std::string> out;
  for (const auto& e : errors) {
    out.push_back(cli::naming_file(e, file) + " — already in " + file.string() +
                  " before this change, which leaves it as it was (`config validate` and the gateway refuse the file until "
                  "that is fixed)");
  }
  return out;
}

/// An edit's own refusal (EDIT_FAILED, JSON5_PARSE, PATH_NOT_FOUND …), passed out of
/// edit_config_file with its code so that it is reported as the command's own error.
constexpr const char* kEditRefused = "EDIT_REFUSED";

int run_set(const ConfigFlags& f) {
  auto checked = checked_path(f.path, "set");
  if (!checked) return 2;
  const auto& path = checked->first;  // a named reference, not a structured binding: the lambda below captures it
  auto value = parse_value(f, *checked->second);
  if (!value) return fail(2, "config set: " + value.error().message);
  if (auto problem = explicit_file_problem(f, true); !problem.empty()) return fail(2, "config set: " + problem);
  const auto file = cli::config_path(f.file, config::process_env());
  bool changed = false;
  Error refused;
  std::string auth_note;  // the running gateway keeps its old secret (cli/config_auth_guard.h)
  std::vector<std::string> before_errors;  // the file's own errors, left as they were
  // Under the config lock from the read to the write: concurrent sets of other keys all land.
  auto edited = cli::edit_config_file(file, [&](const cli::ConfigText& current) -> Result<std::optional<std::string>> {
    // A new file starts from the commented template, with a gateway token (as `gateway run` would).
    const std::string base = current.exists ? current.text : cli::config_template(18789, ids::random_token(32));
    auto text = json5::set(base, path, *value);
    if (!text) {
      refused = text.error();
      return Error{kEditRefused, text.error().message};
    }
    changed = !current.exists || *text != current.text;
    if (!changed) return std::optional<std::string>{};
    auth_note = cli::running_gateway_keeps_old_secret(file, current.text, *text, config::process_env());
    // An auth mode whose secret the file does not write, while this home's gateway runs with the
    // file's: it would reject the change and this CLI could no longer reach it (refused, saying so).
    if (auto lockout = cli::running_gateway_lockout(file, current.text, *text, config::process_env()); !lockout.empty()) {
      changed = false;
      refused = Error{"GATEWAY_LOCKOUT", json5::format_path(path) + ": not set: " + lockout};
      return Error{kEditRefused, refused.message};
    }
    return std::optional<std::string>{std::move(*text)};
  }, &before_errors);
  if (!edited) {
    if (edited.error().code == kEditRefused) {
      const int code = refused.code == "EDIT_FAILED" ? 1 : 2;
      const std::string where = refused.code == "JSON5_PARSE" ? file.string() + ":" : "";
      return fail(code, "config set: " + where + refused.message);
    }
    // Not written: invalid (exit 2), or the lock or the new file could not be made (exit 1); a
    // file that could not even be read is reported as such.
    if (changed || edited.error().code == "LOCK_FAILED") return not_written("config set", json5::format_path(path), edited.error());
    return fail(1, edited.error().message);
  }
  const bool created = !edited->exists;
  const json display = display_value(path, *value, false);
  // What set allows and validate refuses — a reference to what is not configured yet (a model whose
  // provider comes next): written, as the edits may come in either order, but said.
  std::vector<std::string> warnings = already_there(before_errors, file);
  if (changed && !auth_note.empty()) warnings.push_back(auth_note);
  if (changed) {
    const std::string shown = json5::format_path(path);
    // Judged as validate and as the gateway judge it: a primary model of a provider not configured
    // is refused by validate only (the gateway starts, warns, and each turn fails); a fallback of
    // one is a warning for both (runs skip it) — said as such (cli/config_checks.h).
    const auto validate_problems = cli::check_config_file(file, config::process_env()).problems;
    cli::ConfigCheckOptions gateway_options;
    gateway_options.model_refs_are_errors = false;
    const auto gateway_errors = cli::check_config_file(file, config::process_env(), gateway_options).problems.errors;
    for (const auto& e : validate_problems.errors) {
      if (e.find(shown) == std::string::npos) continue;
      if (std::find(before_errors.begin(), before_errors.end(), e) != before_errors.end()) continue;  // said above
      const bool gateway_refuses = std::find(gateway_errors.begin(), gateway_errors.end(), e) != gateway_errors.end();
      warnings.push_back(e + (gateway_refuses ? " — `config validate` and the gateway refuse the file until that is fixed"
                                              : " — `config validate` refuses the file until that is fixed (the gateway "
                                                "starts, but each turn fails with this)"));
    }
    for (const auto& w : validate_problems.warnings) {  // about the value set or a part of it
      for (std::size_t at = w.find(shown); at != std::string::npos; at = w.find(shown, at + 1)) {
        const std::size_t end = at + shown.size();
        if (end < w.size() && (w[end] == '[' || w[end] == '.' || w[end] == ':')) {
          warnings.push_back(w);
          break;
        }
      }
    }
  }
  if (f.json) {
    json out{{"ok", true}, {"file", file.string()}, {"path", json5::format_path(path)}, {"value", display},
             {"changed", changed}, {"created", created}};
    if (!warnings.empty()) out["warnings"] = warnings;
    std::cout << out.dump(2) << "\n";
  } else {
    for (const auto& w : warnings) std::cerr << "pincer: warning: " << w << "\n";
    if (created) std::cout << "Created " << file.string() << " (with a new gateway token)\n";
    // A secret is not echoed; saying so keeps the placeholder from reading as the value written.
    const bool hidden = display.is_string() && display.get<std::string>() == config::kRedacted;
    std::cout << (changed ? "Set " : "Unchanged: ") << json5::format_path(path)
              << (hidden ? " (a secret: not shown)" : " = " + json_dump::compact(display)) << " in " << file.string() << "\n";
  }
  return 0;
}

int run_unset(const ConfigFlags& f) {
  auto checked = checked_path(f.path, "unset");
  if (!checked) return 2;
  if (auto problem = explicit_file_problem(f, false); !problem.empty()) return fail(2, "config unset: " + problem);
  const auto& path = checked->first;
  const auto file = cli::config_path(f.file, config::process_env());
  bool changed = false;
  Error refused;
  std::string auth_note;  // the running gateway keeps its old secret (cli/config_auth_guard.h)
  std::vector<std::string> before_errors;  // the file's own errors, left as they were
  auto edited = cli::edit_config_file(file, [&](const cli::ConfigText& current) -> Result<std::optional<std::string>> {
    if (!current.exists) return std::optional<std::string>{};
    auto text = json5::unset(current.text, path);
    if (!text) {
      if (text.error().code == "PATH_NOT_FOUND") return std::optional<std::string>{};
      refused = text.error();
      return Error{kEditRefused, text.error().message};
    }
    // Something still naming what goes (a model of a removed provider) would fail every run it
    // reaches: refused, naming it, and the file stays as it is.
    if (auto left = cli::references_left_by_removal(current, *text); !left.empty()) {
      std::string message = json5::format_path(path) + ": not removed, the config would still refer to it:";
      for (const auto& line : left) message += "\n  " + line;
      message += "\nchange or remove " + std::string(left.size() == 1 ? "that reference" : "those references") + " first";
      refused = Error{"STILL_REFERENCED", message};
      return Error{kEditRefused, message};
    }
    // The secret of the auth mode, while this home's gateway runs with it: the gateway would
    // reject the change, keep the old secret, and this CLI could no longer reach it.
    if (auto lockout = cli::running_gateway_lockout(file, current.text, *text, config::process_env()); !lockout.empty()) {
      refused = Error{"GATEWAY_LOCKOUT", json5::format_path(path) + ": not removed: " + lockout};
      return Error{kEditRefused, refused.message};
    }
    changed = true;
    auth_note = cli::running_gateway_keeps_old_secret(file, current.text, *text, config::process_env());
    return std::optional<std::string>{std::move(*text)};
  }, &before_errors);
  if (!edited) {
    if (edited.error().code == kEditRefused) {
      const std::string where = refused.code == "JSON5_PARSE" ? file.string() + ":" : "";
      return fail(refused.code == "EDIT_FAILED" ? 1 : 2, "config unset: " + where + refused.message);
    }
    if (changed || edited.error().code == "LOCK_FAILED") return not_written("config unset", json5::format_path(path), edited.error());
    return fail(1, edited.error().message);
  }
  // A value an $include'd file writes is not this file's to remove: said, naming that file — the
  // value still applies (config unset edits only `file`).
  const config::ValueOrigin left = config::value_origins(file, {json5::format_path(path)}).front();
  const bool included_left = left.present && left.included;
  const std::string where_left = left.file.string() + (left.line > 0 ? ":" + std::to_string(left.line) : "") + " (at " +
                                 (left.path.empty() ? "(root)" : left.path) + ", through $include)";
  if (!changed && included_left) {
    return fail(2, "config unset: " + json5::format_path(path) + " is not set in " + file.string() + " itself but in " +
                       where_left + ", which config unset does not edit: nothing was changed (remove it there)");
  }
  std::vector<std::string> warnings = already_there(before_errors, file);
  if (changed && !auth_note.empty()) warnings.push_back(auth_note);
  if (changed) {
    // What the removal leaves that runs cope with — a fallback naming a removed provider is skipped
    // (a warning everywhere; a primary model naming it was refused above) —, said as validate says it.
    const std::string removed = json5::format_path(path);
    for (const auto& w : cli::check_config_file(file, config::process_env()).problems.warnings) {
      for (std::size_t at = w.find(removed); at != std::string::npos; at = w.find(removed, at + 1)) {
        const std::size_t end = at + removed.size();
        const unsigned char next = end < w.size() ? static_cast<unsigned char>(w[end]) : ' ';
        if (!std::isalnum(next) && next != '_' && next != '-' && next != '"') {
          warnings.push_back(w);
          break;
        }
      }
    }
  }
  if (f.json) {
    json out{{"ok", true}, {"file", file.string()}, {"path", json5::format_path(path)}, {"changed", changed}};
    if (included_left) out["stillSetIn"] = json{{"file", left.file.string()}, {"line", left.line}, {"path", left.path}};
    if (!warnings.empty()) out["warnings"] = warnings;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& w : warnings) std::cerr << "pincer: warning: " << w << "\n";
  if (changed && included_left) {
    std::cout << "Removed " << json5::format_path(path) << " from " << file.string() << "; " << where_left
              << " still sets it, unchanged, and that value applies now\n";
  } else if (changed) {
    std::cout << "Removed " << json5::format_path(path) << " from " << file.string() << "\n";
  } else {
    std::cout << json5::format_path(path) << " is not set in " << file.string() << "; nothing to remove\n";
  }
  return 0;
}

int run_validate(const ConfigFlags& f) {
  if (auto problem = explicit_file_problem(f, false); !problem.empty()) return fail(2, "config validate: " + problem);
  const auto env = config::process_env();
  const auto file = cli::config_path(f.file, env);
  // The one report `gateway run` refuses with (cli/config_checks.h): schema, then the rest.
  auto report = cli::check_config_file(file, env);
  const bool exists = report.exists;
  auto& errors = report.problems.errors;
  auto& notes = report.problems.notes;
  std::vector<std::string> warnings;
  if (report.loaded && !exists) warnings.push_back(file.string() + " does not exist; every default applies");
  warnings.insert(warnings.end(), report.problems.warnings.begin(), report.problems.warnings.end());
  const bool valid = errors.empty();
  if (f.json) {
    std::cout << json{{"valid", valid}, {"file", file.string()}, {"exists", exists}, {"errors", errors}, {"warnings", warnings},
                     {"notes", notes}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& n : notes) std::cerr << "pincer: note: " << n << "\n";
    for (const auto& w : warnings) std::cerr << "pincer: warning: " << w << "\n";
    // Each named like the schema's errors ("<file>: <key path>: …") unless the sentence names the file.
    for (const auto& e : errors) std::cerr << "pincer: " << cli::naming_file(e, file) << "\n";
    if (valid) std::cout << file.string() << ": valid\n";
  }
  return valid ? 0 : 2;
}

void add_file_option(CLI::App* sub, ConfigFlags& f) {
  sub->add_option("--file", f.file, "Config file (default: $PINCER_HOME/pincer.json, ~/.pincer/pincer.json)");
}

}  // namespace

void register_config_commands(CLI::App& app, Action& action) {
  auto* config = app.add_subcommand("config", "Inspect and edit the configuration");
  config->require_subcommand(1);
  auto* schema = config->add_subcommand("schema", "Print the configuration schema");
  auto markdown = std::make_shared<bool>(false);
  schema->add_flag("--markdown", *markdown, "Print the Markdown reference (docs/configuration.md) instead of JSON Schema");
  on_parsed(schema, action, [markdown] {
    std::cout << (*markdown ? config::markdown_reference() : config::json_schema().dump(2) + "\n");
    return 0;
  });

  auto f = std::make_shared<ConfigFlags>();
  constexpr const char* kPathHelp = "Config path, e.g. gateway.port, agents.list[0].id, models.providers[\"my.lab\"].baseUrl";

  auto* get = config->add_subcommand("get", "Print a value: as set in the file, else its default");
  get->add_option("PATH", f->path, kPathHelp)->required();
  get->add_flag("--json", f->json, "Print {path, value, source: file|default}");
  get->add_flag("--show-secrets", f->show_secrets, "Show tokens, passwords and API keys instead of " + std::string(config::kRedacted));
  add_file_option(get, *f);
  on_parsed(get, action, [f] {
    JsonErrors json_errors(f->json);  // --json: an error is {"ok": false, "error": {code, message}} on stdout
    return run_get(*f);
  });

  auto* set = config->add_subcommand(
      "set", "Set a value, keeping the file's comments and formatting; the whole result is validated before writing");
  set->add_option("PATH", f->path, kPathHelp)->required();
  set->add_option("VALUE", f->value,
                  "JSON5 value (42, true, \"x\", [1, 2], {a: 1}); taken as a string when it is not JSON5 or the key "
                  "expects a string")
      ->required();
  auto* strict = set->add_flag("--strict-json,--json-value", f->strict_json, "VALUE must be JSON5 (no string fallback)");
  set->add_flag("--string", f->as_string, "Take VALUE as a string, always")->excludes(strict);
  set->add_flag("--json", f->json, "Print {ok, file, path, value, changed, created}");
  add_file_option(set, *f);
  on_parsed(set, action, [f] {
    JsonErrors json_errors(f->json);  // --json: an error is {"ok": false, "error": {code, message}} on stdout
    return run_set(*f);
  });

  auto* unset = config->add_subcommand("unset", "Remove a value (and its comment lines) so that its default applies");
  unset->add_option("PATH", f->path, kPathHelp)->required();
  unset->add_flag("--json", f->json, "Print {ok, file, path, changed}");
  add_file_option(unset, *f);
  on_parsed(unset, action, [f] {
    JsonErrors json_errors(f->json);  // --json: an error is {"ok": false, "error": {code, message}} on stdout
    return run_unset(*f);
  });

  auto* validate = config->add_subcommand(
      "validate", "Check the file as the gateway would load it (schema, env vars, auth, model references)");
  validate->add_flag("--json", f->json, "Print {valid, file, exists, errors, warnings, notes}");
  add_file_option(validate, *f);
  on_parsed(validate, action, [f] { return run_validate(*f); });
}

}  // namespace pincer::app
