// pincer.json editing for the CLI (contract in config_file.h).
#include "cli/config_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <system_error>
#include <utility>

#include "cli/config_checks.h"
#include "core/ids.h"
#include "core/paths.h"
#include "store/atomic_file.h"

namespace pincer::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using config::schema::Kind;
using config::schema::Node;

/// Replaces every occurrence of `from` in `text` with `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// Whether `node` can take a key step (objects, maps) or an index step (arrays).
bool takes_step(const Node& node, bool key_step) {
  return key_step ? node.kind() == Kind::kObject || node.kind() == Kind::kMap : node.kind() == Kind::kArray;
}

/// The alternative of a union that can hold the next path step.
const Node* pick(const Node& node, bool key_step) {
  if (node.kind() != Kind::kUnion) return &node;
  for (const Node& alt : node.alternatives()) {
    if (takes_step(alt, key_step)) return &alt;
  }
  return nullptr;
}

std::string field_names(const Node& node) {
  std::string out;
  for (const auto& f : node.fields()) out += (out.empty() ? "" : "|") + f.name;
  return out;
}

void restore_env_references(json& masked, const json& original) {
  if (masked.is_string() && original.is_string()) {
    if (masked.get_ref<const std::string&>() == config::kRedacted && is_env_reference(original.get_ref<const std::string&>())) {
      masked = original;
    }
  } else if (masked.is_object() && original.is_object()) {
    for (auto& [key, child] : masked.items()) {
      if (auto it = original.find(key); it != original.end()) restore_env_references(child, *it);
    }
  } else if (masked.is_array() && original.is_array()) {
    for (std::size_t i = 0; i < masked.size() && i < original.size(); ++i) restore_env_references(masked[i], original[i]);
  }
}

}  // namespace

fs::path config_path(const std::optional<std::string>& file_flag, const config::EnvLookup& env) {
  if (file_flag && !file_flag->empty()) return fs::path(*file_flag);
  return paths::config_file(paths::state_dir(env));
}

config::EnvLookup keep_env_references() {
  return [](const std::string& name) -> std::optional<std::string> { return "${" + name + "}"; };
}

Result<config::LoadedConfig> load_for_local_command(const std::filesystem::path& file, const config::EnvLookup& env) {
  auto loaded = config::load_keeping_missing_env(file, env);
  if (!loaded) return loaded;
  for (const auto& m : loaded->missing_env) {
    std::cerr << "pincer: warning: " << file.string() << ": missing env var \"" << m.name << "\" referenced at config path "
              << m.path << " (left as written here: what uses it does not work from this shell)\n";
  }
  return loaded;
}

bool is_env_reference(std::string_view value) {
  if (value.size() < 4 || value.substr(0, 2) != "${" || value.back() != '}') return false;
  const std::string_view name = value.substr(2, value.size() - 3);
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

Result<ConfigText> read_config_text(const fs::path& path) {
  ConfigText out;
  out.path = path;
  auto text = store::read_file(path, config::kMaxFileBytes);
  if (!text) {
    if (text.error().code == "NOT_FOUND") return out;
    if (text.error().code == "TOO_LARGE") return Error{"TOO_LARGE", path.string() + ": file is larger than 2 MiB"};
    return text.error();
  }
  out.exists = true;
  out.text = std::move(*text);
  return out;
}

namespace {

/// `text` loaded exactly as the gateway would load it from `path`, env references kept.
Result<config::LoadedConfig> load_text(const fs::path& path, const std::string& text) {
  // Validate from a file next to the real one, so that $include paths resolve exactly as the
  // gateway will resolve them; the private temp file is removed before returning.
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path probe = dir / (".pincer-check-" + ids::random_token(9) + ".json");
  if (auto st = store::write_file_atomic(probe, text, 0600); !st) return st.error();
  auto loaded = config::load(probe, keep_env_references());
  std::error_code ec;
  fs::remove(probe, ec);
  if (!loaded) return Error{loaded.error().code, replace_all(loaded.error().message, probe.string(), path.string())};
  return loaded;
}

/// Every error check_config_file finds in `text` as the file `path` would hold it — load()'s
/// (JSON5, $include, each schema violation: "<path>: <key path>: …") and check_config()'s — as an
/// edit is judged: "${NAME}" references kept as written, and this shell's gateway secrets left
/// out (the gateway's environment may provide them: a warning there, not an error). Checked in a
/// private probe file beside `path` (so that $include paths resolve as the gateway resolves them;
/// removed before returning), each line naming `path`. `model_refs_are_errors`:
/// ConfigCheckOptions's (false for a set: the provider may be set next). Errors: writing the probe.
Result<std::vector<std::string>> edit_errors(const fs::path& path, const std::string& text, bool model_refs_are_errors = false) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path probe = dir / (".pincer-check-" + ids::random_token(9) + ".json");
  if (auto st = store::write_file_atomic(probe, text, 0600); !st) return st.error();
  const config::EnvLookup shell = config::process_env();
  const config::EnvLookup env = [shell](const std::string& name) -> std::optional<std::string> {
    if (name == "PINCER_GATEWAY_TOKEN" || name == "PINCER_GATEWAY_PASSWORD") return std::nullopt;
    return shell(name);
  };
  ConfigCheckOptions options;
  options.runtime_env_known = false;
  options.model_refs_are_errors = model_refs_are_errors;
  options.reference_env = keep_env_references();
  auto report = check_config_file(probe, env, options);
  std::error_code ec;
  fs::remove(probe, ec);
  std::vector<std::string> out;
  for (auto& e : report.problems.errors) out.push_back(replace_all(std::move(e), probe.string(), path.string()));
  return out;
}

/// An exclusive flock(2) on `<config>.lock`, held while an edit re-reads the file, compares it with
/// what it was based on and replaces it: every writer (config set/unset, onboard) goes through
/// write_config_text, so two of them can no longer both pass the check and one overwrite the
/// other. Blocks until the lock is free; released on destruction (or when the process dies).
class EditLock {
 public:
  static Result<EditLock> acquire(const fs::path& config) {
    const fs::path file = fs::path(config.string() + ".lock");
    std::error_code ec;
    if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return Error{"IO_ERROR", "cannot open lock file " + file.string() + ": " + std::strerror(errno)};
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return Error{"IO_ERROR", "cannot lock " + file.string() + ": " + std::strerror(err)};
    }
    return EditLock(fd);
  }
  EditLock(EditLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  EditLock& operator=(EditLock&&) = delete;
  EditLock(const EditLock&) = delete;
  ~EditLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit EditLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace

Status validate_config_text(const fs::path& path, const std::string& text) {
  auto loaded = load_text(path, text);
  if (!loaded) return loaded.error();
  return Ok{};
}

namespace {

/// Validation of write_config_text and edit_config_file: every error of `text` (edit_errors) that
/// `original` had not. An error the file had already does not block an edit (it may be the first of
/// several fixes, or about something else): it goes to `kept` when given.
Status check_edit(const ConfigText& original, const std::string& text, std::vector<std::string>* kept = nullptr) {
  auto after = edit_errors(original.path, text);
  if (!after) return after.error();
  std::vector<std::string> before;
  if (original.exists && !after->empty()) {
    if (auto b = edit_errors(original.path, original.text)) before = std::move(*b);
  }
  std::string added;
  for (auto& e : *after) {
    if (std::find(before.begin(), before.end(), e) != before.end()) {
      if (kept != nullptr) kept->push_back(std::move(e));
    } else {
      added += (added.empty() ? "" : "\n") + e;
    }
  }
  if (!added.empty()) return Error{"CONFIG_INVALID", added};
  return Ok{};
}

}  // namespace

std::vector<std::string> references_left_by_removal(const ConfigText& original, const std::string& text) {
  if (!original.exists) return {};
  return model_reference_errors_added(original, text);
}

std::vector<std::string> model_reference_errors_added(const ConfigText& original, const std::string& text) {
  auto after = edit_errors(original.path, text, true);
  if (!after || after->empty()) return {};
  // What is an error anyway (a schema violation, a channel that cannot start …) is refused by
  // check_edit in its own words: only what counts because model references do is left here.
  auto plain = edit_errors(original.path, text, false);
  Result<std::vector<std::string>> before = std::vector<std::string>{};
  if (original.exists) before = edit_errors(original.path, original.text, true);
  const auto in = [](const Result<std::vector<std::string>>& lines, const std::string& e) {
    return lines && std::find(lines->begin(), lines->end(), e) != lines->end();
  };
  std::vector<std::string> added;
  for (auto& e : *after) {
    if (!in(before, e) && !in(plain, e)) added.push_back(std::move(e));
  }
  return added;
}

namespace {

/// The file a write replaces: a symlinked config is written through to its target.
fs::path write_target(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path resolved = fs::canonical(path, ec);
    if (!ec) return resolved;
  }
  return path;
}

}  // namespace

Status write_config_text(const ConfigText& original, const std::string& text) {
  if (auto st = check_edit(original, text); !st) return st;
  const fs::path target = write_target(original.path);
  // Re-read, compare and replace under the lock: without it two writers could both see the text
  // they started from and the second rename would drop the first one's edit.
  auto lock = EditLock::acquire(target);
  if (!lock) return lock.error();
  auto now = read_config_text(original.path);
  if (!now) return now.error();
  if (now->exists != original.exists || now->text != original.text) {
    return Error{"CONFLICT", original.path.string() + ": the file changed while it was being edited; try again"};
  }
  return store::write_file_atomic(target, text, 0600);
}

Result<ConfigText> edit_config_file(const fs::path& path, const ConfigEdit& edit, std::vector<std::string>* already_invalid) {
  const fs::path target = write_target(path);
  // The lock is taken before the file is read: a concurrent edit of another key waits and then
  // edits the text this one wrote, instead of failing with CONFLICT.
  auto lock = EditLock::acquire(target);
  if (!lock) return Error{"LOCK_FAILED", lock.error().message};
  auto original = read_config_text(path);
  if (!original) return original.error();
  auto edited = edit(*original);
  if (!edited) return edited.error();
  if (!*edited) return *original;  // nothing to change
  if (auto st = check_edit(*original, **edited, already_invalid); !st) return st.error();
  if (auto st = store::write_file_atomic(target, **edited, 0600); !st) return st.error();
  return *original;
}

std::string config_template(int port, const std::string& token) {
  return "// Pincer configuration (JSON5: comments, trailing commas and unquoted keys are fine).\n"
         "// Reference: docs/configuration.md. Edit by hand or with `pincer config set PATH VALUE`;\n"
         "// `pincer config validate` checks it. Secrets can stay out of this file: \"${ENV_VAR}\".\n"
         "{\n"
         "  // The gateway: the local server the CLI, the web chat and channels connect to.\n"
         "  gateway: {\n"
         "    port: " + std::to_string(port) + ",\n"
         "    bind: \"loopback\",  // loopback = this machine only; lan = every interface (needs auth)\n"
         "    auth: {\n"
         "      mode: \"token\",\n"
         "      // Clients present this token to connect. Keep it secret.\n"
         "      token: \"" + token + "\",\n"
         "    },\n"
         "  },\n"
         "  // Model providers: where the agent's LLM runs. A model is named \"<provider>/<model id>\".\n"
         "  models: {\n"
         "    providers: {},\n"
         "  },\n"
         "  // Agents: the model they use and their workspace (AGENTS.md, SOUL.md, ... live there).\n"
         "  agents: {\n"
         "    defaults: {},\n"
         "  },\n"
         "}\n";
}

Result<const Node*> schema_node_at(const json5::Path& path) {
  const Node* node = &config::schema::root();
  json5::Path walked;
  for (const auto& seg : path) {
    if (node->kind() == Kind::kAny) return node;
    const bool key_step = std::holds_alternative<std::string>(seg);
    const std::string here = walked.empty() ? std::string("the configuration") : json5::format_path(walked);
    walked.push_back(seg);
    const std::string full = json5::format_path(walked);
    const Node* holder = pick(*node, key_step);
    if (holder == nullptr || !takes_step(*holder, key_step)) {
      return Error{"PATH_UNKNOWN", full + ": " + here + (key_step ? " has no keys" : " is not a list") + " (it is " +
                                       node->expectation() + ")"};
    }
    if (holder->kind() == Kind::kObject) {
      const auto& key = std::get<std::string>(seg);
      const auto* field = holder->find(key);
      if (field == nullptr) {
        const std::string suggestion = config::schema::suggested_key(*holder, key);
        return Error{"PATH_UNKNOWN", full + ": unknown config key \"" + key + "\" in " + here +
                                         (suggestion.empty() ? "" : ", did you mean `" + suggestion + "`?") +
                                         " (expected one of " + field_names(*holder) + ")"};
      }
      node = &field->node;
    } else {
      node = &holder->item();
    }
  }
  return node;
}

json mask_secrets(const json& doc) {
  json masked = config::redact(doc);
  restore_env_references(masked, doc);
  return masked;
}

}  // namespace pincer::cli
