#include "tools/sandbox/sandbox.h"

#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

#include "core/paths.h"
#include "tools/subprocess.h"

namespace pincer::tools::sandbox {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kHostname = "pincer-sandbox";

/// /etc entries ordinary commands need (users, name resolution, TLS roots, the loader's cache,
/// time zone); the rest of /etc stays outside.
constexpr const char* kEtcFiles[] = {"passwd",        "group",       "hosts",       "resolv.conf", "nsswitch.conf",
                                     "host.conf",     "gai.conf",    "services",    "protocols",   "ssl",
                                     "ca-certificates", "alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
                                     "localtime",     "timezone",    "mime.types",  "profile",     "bash.bashrc",
                                     "inputrc",       "environment", "mailcap",     "magic"};

/// Top-level entries that are symlinks into /usr on a merged-/usr system, or directories.
constexpr const char* kSystemDirs[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

Error invalid(const std::string& path, const std::string& message) {
  return Error{"CONFIG_INVALID", path + ": " + message};
}

/// Host paths never bound into a sandbox, nor anything beneath them, nor a directory holding one
/// (OpenClaw's BLOCKED_HOST_PATHS): system state, devices, the init system, the Docker socket.
constexpr const char* kBlockedHostPaths[] = {"/etc", "/proc", "/sys", "/dev", "/root", "/boot", "/run", "/var/run",
                                             "/var/run/docker.sock", "/run/docker.sock"};
/// Credential directories of the user's home, blocked the same way (OpenClaw's BLOCKED_HOME_SUBPATHS).
constexpr const char* kBlockedHomeEntries[] = {".aws", ".cargo", ".config", ".docker", ".gnupg", ".netrc", ".npm", ".ssh"};
/// Inside paths the sandbox mounts itself: a bind there would replace them.
constexpr const char* kReservedTargets[] = {"/proc", "/dev", "/sys"};

/// `p` lexically normalised, without a trailing slash ("/a/b/../c/" → "/a/c").
std::string normal_path(const std::string& p) {
  std::string out = fs::path(p).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

/// Whether `inner` is `outer` or beneath it (both normalised absolute paths).
bool path_within(const std::string& outer, const std::string& inner) {
  if (outer == "/") return true;
  return inner == outer || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

/// Why binding host path `source` (normalised) is refused, or "". `workspace`: the check of an
/// agent workspace, where /root is root's home (its credential folders stay blocked below).
std::string blocked_source_reason(const std::string& source, bool workspace = false) {
  if (source == "/") return "binds the host's whole file system \"/\"";
  std::vector<std::string> blocked;
  for (const char* b : kBlockedHostPaths) {
    if (!workspace || std::string_view(b) != "/root") blocked.emplace_back(b);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    const std::string h = normal_path(home);
    if (h != "/") {
      for (const char* e : kBlockedHomeEntries) blocked.push_back(h + "/" + e);
    }
  }
  for (const auto& b : blocked) {
    if (path_within(b, source)) return "binds " + source + (source == b ? "" : ", inside " + b);
    if (path_within(source, b)) return "holds " + b;
  }
  return "";
}

/// Pincer's own state directory (credentials, paired device tokens, pincer.json, transcripts) as
/// written and as resolved through symlinks, and the agent workspaces a bind may still reach
/// inside it: `<state>/workspace*` and every configured agent workspace beneath the state dir.
struct StateDirForms {
  std::vector<std::string> state_forms;      ///< normalised absolute; the lexical form first
  std::vector<std::string> workspace_forms;  ///< configured workspaces, normalised absolute
};
StateDirForms make_state_dir_forms(const json& config, const fs::path& state_dir);

/// The forms, resolved (readlink per path component) only when a bind is checked: a turn of an
/// agent without binds does not pay for them.
class StateDirGuard {
 public:
  StateDirGuard(const json& config, fs::path state_dir) : config_(config), state_dir_(std::move(state_dir)) {}
  const StateDirForms& forms() const {
    if (!forms_) forms_ = make_state_dir_forms(config_, state_dir_);
    return *forms_;
  }

 private:
  const json& config_;
  fs::path state_dir_;
  mutable std::optional<StateDirForms> forms_;
};

/// "~", "~/x" and paths relative to the state directory, as agent/agents_config.h resolves a
/// workspace (tools/ must not depend on agent/).
std::string sandbox_guard_workspace_path(const std::string& raw, const fs::path& state) {
  if (raw == "~" || raw.starts_with("~/")) {
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
      return normal_path(raw == "~" ? std::string(home) : (fs::path(home) / raw.substr(2)).string());
    }
  }
  fs::path p(raw);
  if (p.is_relative()) p = state / p;
  return normal_path(p.string());
}

StateDirForms make_state_dir_forms(const json& config, const fs::path& state_dir) {
  StateDirForms g;
  std::error_code ec;
  fs::path state = fs::absolute(state_dir, ec);
  if (ec) state = state_dir;
  const std::string lexical = normal_path(state.string());
  g.state_forms.push_back(lexical);
  const fs::path real = fs::weakly_canonical(state, ec);
  if (!ec && normal_path(real.string()) != lexical) g.state_forms.push_back(normal_path(real.string()));
  auto add_workspace = [&](const json& node) {
    if (!node.is_object()) return;
    auto it = node.find("workspace");
    if (it == node.end() || !it->is_string() || it->get<std::string>().empty()) return;
    const std::string ws = sandbox_guard_workspace_path(it->get<std::string>(), state);
    g.workspace_forms.push_back(ws);
    const fs::path ws_real = fs::weakly_canonical(ws, ec);
    if (!ec && normal_path(ws_real.string()) != ws) g.workspace_forms.push_back(normal_path(ws_real.string()));
  };
  if (config.is_object()) {
    if (auto a = config.find("agents"); a != config.end() && a->is_object()) {
      if (auto d = a->find("defaults"); d != a->end()) add_workspace(*d);
      if (auto l = a->find("list"); l != a->end() && l->is_array()) {
        for (const auto& e : *l) add_workspace(e);
      }
    }
  }
  return g;
}

/// Why binding `source` (normalised) exposes Pincer's state directory, or "": it is the state
/// directory, holds it, or lies inside it outside every agent workspace.
std::string state_dir_reason(const std::string& source, const StateDirGuard& guard) {
  const StateDirForms& g = guard.forms();
  for (const auto& state : g.state_forms) {
    if (source == state) return "binds Pincer's state directory " + state;
    if (path_within(source, state)) return "holds Pincer's state directory " + state;
    if (!path_within(state, source)) continue;
    // The first component beneath the state dir: workspace, workspace-<id> are the agents' own.
    const std::string rest = source.substr(state == "/" ? 1 : state.size() + 1);
    if (rest.substr(0, rest.find('/')).starts_with("workspace")) return "";
    for (const auto& ws : g.workspace_forms) {
      if (ws != state && path_within(state, ws) && path_within(ws, source)) return "";
    }
    return "binds " + source + ", inside Pincer's state directory " + state;
  }
  return "";
}

Result<Bind> parse_bind(const std::string& path, const std::string& spec, const StateDirGuard& guard) {
  // A newline, NUL or other control character is never part of a path the user meant; bwrap would
  // get a different argument than the file shows.
  for (unsigned char c : spec) {
    if (c < 0x20 || c == 0x7f) return invalid(path, "contains a control character (newline, tab, NUL …): not a bind");
  }
  // "/src", "/src:/dst", "/src:ro", "/src:/dst:rw"
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i == spec.size() || spec[i] == ':') {
      parts.push_back(spec.substr(start, i - start));
      start = i + 1;
    }
  }
  Bind b;
  if (parts.size() > 1 && (parts.back() == "ro" || parts.back() == "rw")) {
    b.read_only = parts.back() == "ro";
    parts.pop_back();
  }
  if (parts.empty() || parts.size() > 2) return invalid(path, "\"" + spec + "\" is not \"/host/path[:/inside/path][:ro|rw]\"");
  b.source = parts[0];
  b.target = parts.size() == 2 ? parts[1] : parts[0];
  if (b.source.empty() || b.source[0] != '/') return invalid(path, "\"" + spec + "\" is not an absolute host path");
  if (b.target.empty() || b.target[0] != '/') {
    // "/src:rx" is a mistyped mode more often than a relative inside path: say both.
    return invalid(path, "\"" + spec + "\": \"" + b.target + "\" is neither an absolute inside path nor a mode (ro or rw)");
  }
  b.source = normal_path(b.source);
  b.target = normal_path(b.target);
  // System directories, credentials and the Docker socket stay outside (as OpenClaw refuses them),
  // also when a symlink leads there.
  std::error_code real_ec;
  const std::string real = normal_path(fs::weakly_canonical(b.source, real_ec).string());
  const bool through_link = !real_ec && real != b.source;
  std::string reason = blocked_source_reason(b.source);
  if (reason.empty() && through_link) {
    reason = blocked_source_reason(real);
    if (!reason.empty()) reason += " (through the symlink " + b.source + " → " + real + ")";
  }
  if (!reason.empty()) {
    return invalid(path, "\"" + spec + "\" " + reason + ": system directories, credentials and the Docker socket "
                         "are never bound into the sandbox (bind a project directory instead)");
  }
  // Pincer's own state: a sandboxed command must not read its tokens nor rewrite its config.
  reason = state_dir_reason(b.source, guard);
  if (reason.empty() && through_link) {
    reason = state_dir_reason(real, guard);
    if (!reason.empty()) reason += " (through the symlink " + b.source + " → " + real + ")";
  }
  if (!reason.empty()) {
    return invalid(path, "\"" + spec + "\" " + reason + ": the state directory holds Pincer's credentials, paired "
                         "device tokens, pincer.json and transcripts; it, a directory holding it and anything in it "
                         "outside the agent workspaces are never bound into the sandbox (bind a project directory or "
                         "an agent workspace instead)");
  }
  if (b.target == "/") return invalid(path, "\"" + spec + "\": the inside path \"/\" would replace the sandbox's root");
  for (const char* r : kReservedTargets) {
    if (path_within(r, b.target)) {
      return invalid(path, "\"" + spec + "\": the inside path " + b.target + " would hide the sandbox's own " + r +
                               " (choose another inside path)");
    }
  }
  b.config_path = path;
  return b;
}

/// Applies the keys present in `node` (an agents.defaults.sandbox or agents.list[].sandbox object).
Status apply(Settings& s, const json& node, const std::string& path, const StateDirGuard& guard) {
  if (!node.is_object()) return invalid(path, "must be an object");
  auto str = [&](const char* key) -> std::optional<std::string> {
    auto it = node.find(key);
    if (it == node.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (auto m = str("mode")) {
    if (*m == "off") s.mode = Mode::kOff;
    else if (*m == "non-main") s.mode = Mode::kNonMain;
    else if (*m == "all") s.mode = Mode::kAll;
    else return invalid(path + ".mode", "\"" + *m + "\" is not off, non-main or all");
  }
  if (auto b = str("backend")) {
    if (*b != "bwrap") {
      return invalid(path + ".backend", "\"" + *b + "\" is not a sandbox backend Pincer has (only bwrap)");
    }
    s.backend = *b;
  }
  if (auto it = node.find("bwrap"); it != node.end() && it->is_object()) {
    if (auto c = it->find("command"); c != it->end() && c->is_string()) s.command = c->get<std::string>();
  }
  if (auto a = str("workspaceAccess")) {
    if (*a == "rw") s.workspace_access = WorkspaceAccess::kRw;
    else if (*a == "ro") s.workspace_access = WorkspaceAccess::kRo;
    else if (*a == "none") s.workspace_access = WorkspaceAccess::kNone;
    else return invalid(path + ".workspaceAccess", "\"" + *a + "\" is not rw, ro or none");
  }
  if (auto n = node.find("network"); n != node.end() && !n->is_null()) {
    const std::string v = n->is_string() ? n->get<std::string>() : n->is_boolean() ? (n->get<bool>() ? "on" : "off") : "";
    if (v == "on") s.network = true;
    else if (v == "off" || v == "none") s.network = false;
    else return invalid(path + ".network", "must be on or off");
  }
  if (auto it = node.find("binds"); it != node.end() && it->is_array()) {
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string at = path + ".binds[" + std::to_string(i) + "]";
      if (!(*it)[i].is_string()) return invalid(at, "must be a string");
      auto b = parse_bind(at, (*it)[i].get<std::string>(), guard);
      if (!b) return b.error();
      s.binds.push_back(std::move(*b));
    }
  }
  return Ok{};
}

/// MA-4: the `binds` array of `node` (agents.defaults or an agents.list[] entry) as shared folders.
Status add_shared(std::vector<Bind>& out, const json& node, const std::string& path, const StateDirGuard& guard) {
  auto it = node.find("binds");
  if (it == node.end() || it->is_null()) return Ok{};
  if (!it->is_array()) return invalid(path + ".binds", "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string at = path + ".binds[" + std::to_string(i) + "]";
    if (!(*it)[i].is_string()) return invalid(at, "must be a string");
    const std::string spec = (*it)[i].get<std::string>();
    auto b = parse_bind(at, spec, guard);
    if (!b) return b.error();
    if (spec.size() >= 3 && spec.compare(spec.size() - 3, 3, ":rw") == 0) {
      return invalid(at, "\"" + spec + "\": shared folders are read-only (drop \":rw\"; a writable directory inside "
                         "the sandbox is an agents.*.sandbox.binds entry)");
    }
    b->read_only = true;
    out.push_back(std::move(*b));
  }
  return Ok{};
}

/// The shared folders of `agent_id` as binds (agents.defaults.binds, then the entry's).
Result<std::vector<Bind>> shared_binds(const json& config, std::string_view agent_id, const StateDirGuard& guard) {
  std::vector<Bind> out;
  const json* agents = config.is_object() && config.contains("agents") ? &config["agents"] : nullptr;
  if (agents == nullptr || !agents->is_object()) return out;
  if (auto d = agents->find("defaults"); d != agents->end() && d->is_object()) {
    if (auto st = add_shared(out, *d, "agents.defaults", guard); !st) return st.error();
  }
  if (auto list = agents->find("list"); list != agents->end() && list->is_array()) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json& a = (*list)[i];
      if (!a.is_object() || a.value("id", "") != agent_id) continue;
      if (auto st = add_shared(out, a, "agents.list[" + std::to_string(i) + "]", guard); !st) return st.error();
    }
  }
  return out;
}

std::mutex g_probe_mu;
std::set<std::string> g_probed_ok;  // guarded by g_probe_mu

}  // namespace

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::kOff: return "off";
    case Mode::kNonMain: return "non-main";
    case Mode::kAll: return "all";
  }
  return "off";
}

std::string_view to_string(WorkspaceAccess access) {
  switch (access) {
    case WorkspaceAccess::kRw: return "rw";
    case WorkspaceAccess::kRo: return "ro";
    case WorkspaceAccess::kNone: return "none";
  }
  return "rw";
}

Result<Settings> settings_for_agent(const json& config, std::string_view agent_id) {
  return settings_for_agent(config, agent_id, paths::state_dir(pincer::config::process_env()));
}

Result<Settings> settings_for_agent(const json& config, std::string_view agent_id, const fs::path& state_dir) {
  Settings s;
  const StateDirGuard guard(config, state_dir);
  const json* agents = config.is_object() && config.contains("agents") ? &config["agents"] : nullptr;
  if (agents == nullptr || !agents->is_object()) return s;
  if (auto d = agents->find("defaults"); d != agents->end() && d->is_object()) {
    if (auto sb = d->find("sandbox"); sb != d->end() && !sb->is_null()) {
      if (auto st = apply(s, *sb, "agents.defaults.sandbox", guard); !st) return st.error();
    }
  }
  if (auto list = agents->find("list"); list != agents->end() && list->is_array()) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json& a = (*list)[i];
      if (!a.is_object() || a.value("id", "") != agent_id) continue;
      if (auto sb = a.find("sandbox"); sb != a.end() && !sb->is_null()) {
        if (auto st = apply(s, *sb, "agents.list[" + std::to_string(i) + "].sandbox", guard); !st) return st.error();
      }
    }
  }
  // MA-4: the agent's read-only shared folders are bound too.
  auto shared = shared_binds(config, agent_id, guard);
  if (!shared) return shared.error();
  for (auto& b : *shared) s.binds.push_back(std::move(b));
  // Two binds on one inside path: the later would silently hide the earlier.
  for (size_t i = 0; i < s.binds.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (s.binds[i].target == s.binds[j].target) {
        return invalid(s.binds[i].config_path, "the inside path " + s.binds[i].target + " is already bound by " +
                                                   s.binds[j].config_path + " (each inside path can be bound once)");
      }
    }
  }
  return s;
}

Result<std::vector<SharedFolder>> shared_folders_for_agent(const json& config, std::string_view agent_id) {
  return shared_folders_for_agent(config, agent_id, paths::state_dir(pincer::config::process_env()));
}

Result<std::vector<SharedFolder>> shared_folders_for_agent(const json& config, std::string_view agent_id,
                                                           const fs::path& state_dir) {
  auto binds = shared_binds(config, agent_id, StateDirGuard(config, state_dir));
  if (!binds) return binds.error();
  std::vector<SharedFolder> out;
  for (const auto& b : *binds) out.push_back(SharedFolder{b.source, b.target, b.config_path});
  return out;
}

bool applies(const Settings& settings, std::string_view agent_id, std::string_view session_key) {
  switch (settings.mode) {
    case Mode::kOff: return false;
    case Mode::kAll: return true;
    case Mode::kNonMain: return session_key != "agent:" + std::string(agent_id) + ":main";
  }
  return false;
}

Result<fs::path> backend_binary(const Settings& settings) {
  const std::string& cmd = settings.command;
  auto unavailable = [&](const std::string& why) {
    return Error{"SANDBOX_UNAVAILABLE", "sandbox backend bwrap: " + why +
                                            " (install bubblewrap: apt-get install bubblewrap, or set "
                                            "agents.defaults.sandbox.mode to off); nothing was run on the host"};
  };
  if (cmd.empty()) return unavailable("bwrap.command is empty");
  if (cmd.find('/') != std::string::npos) {
    if (::access(cmd.c_str(), X_OK) != 0) return unavailable("\"" + cmd + "\" is not an executable file");
    std::error_code ec;
    fs::path abs = fs::absolute(cmd, ec);
    return ec ? fs::path(cmd) : abs;
  }
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env != nullptr && *path_env != '\0' ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    if (!dir.empty()) {
      const fs::path candidate = fs::path(dir) / cmd;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return unavailable("\"" + cmd + "\" not found on PATH");
}

Status check_backend(const Settings& settings) {
  auto bin = backend_binary(settings);
  if (!bin) return bin.error();
  {
    std::lock_guard lock(g_probe_mu);
    if (g_probed_ok.count(bin->string() + (settings.network ? "+net" : ""))) return Ok{};
  }
  // The probe uses the real flags; /tmp is the stand-in workspace (it exists everywhere).
  Settings probe = settings;
  probe.binds.clear();
  SpawnOptions o;
  o.command = "true";
  o.cwd = "/";
  o.wrapper = bwrap_wrapper(probe, *bin, "/tmp", "/tmp");
  o.env = {"PATH=/usr/bin:/bin"};
  o.timeout = std::chrono::seconds(20);
  o.head_bytes = 2048;
  o.tail_bytes = 2048;
  o.log = false;
  auto proc = ManagedProcess::spawn(std::move(o));
  if (!proc) return Error{"SANDBOX_UNAVAILABLE", "sandbox backend bwrap: cannot start " + bin->string() + ": " +
                                                     proc.error().message + "; nothing was run on the host"};
  (*proc)->wait_for(std::chrono::seconds(30));
  const ProcessStatus st = (*proc)->status();
  if (!st.finished || st.exit_code != 0) {
    std::string said = (*proc)->output();
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (said.empty()) said = st.finished ? "it failed without a message" : "it did not finish";
    return Error{"SANDBOX_UNAVAILABLE", "sandbox backend bwrap (" + bin->string() + ") cannot create a sandbox: " +
                                            said +
                                            " (user namespaces may be disabled: sysctl "
                                            "kernel.unprivileged_userns_clone / user.max_user_namespaces); "
                                            "nothing was run on the host"};
  }
  std::lock_guard lock(g_probe_mu);
  g_probed_ok.insert(bin->string() + (settings.network ? "+net" : ""));
  return Ok{};
}

Status check_binds(const Settings& settings) {
  for (const auto& b : settings.binds) {
    std::error_code ec;
    if (!fs::exists(b.source, ec)) {
      return Error{"SANDBOX_UNAVAILABLE", b.config_path + ": host path \"" + b.source +
                                              "\" does not exist (create it or remove the bind); nothing was run on the host"};
    }
  }
  return Ok{};
}

std::vector<std::string> bwrap_wrapper(const Settings& settings, const fs::path& bwrap, const fs::path& workspace,
                                       const fs::path& cwd) {
  std::vector<std::string> a = {bwrap.string(), "--unshare-all"};
  if (settings.network) a.push_back("--share-net");
  for (const char* f : {"--die-with-parent", "--new-session", "--hostname", kHostname}) a.emplace_back(f);
  a.insert(a.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* d : kSystemDirs) {
    std::error_code ec;
    const auto st = fs::symlink_status(d, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      a.insert(a.end(), {"--symlink", fs::read_symlink(d, ec).string(), d});
    } else if (fs::is_directory(st)) {
      a.insert(a.end(), {"--ro-bind", d, d});
    }
  }
  for (const char* e : kEtcFiles) {
    const std::string p = std::string("/etc/") + e;
    a.insert(a.end(), {"--ro-bind-try", p, p});
  }
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  const std::string ws = workspace.string();
  switch (settings.workspace_access) {
    case WorkspaceAccess::kRw: a.insert(a.end(), {"--bind", ws, ws}); break;
    case WorkspaceAccess::kRo: a.insert(a.end(), {"--ro-bind", ws, ws}); break;
    case WorkspaceAccess::kNone: a.insert(a.end(), {"--tmpfs", ws}); break;
  }
  for (const auto& b : settings.binds) a.insert(a.end(), {b.read_only ? "--ro-bind" : "--bind", b.source, b.target});
  a.insert(a.end(), {"--setenv", "HOME", ws, "--unsetenv", "TMPDIR"});
  a.insert(a.end(), {"--chdir", settings.workspace_access == WorkspaceAccess::kNone ? ws : cwd.string(), "--"});
  return a;
}

std::string workspace_host_path_refusal(const fs::path& path) {
  const std::string lexical = normal_path(path.string());
  std::string reason = blocked_source_reason(lexical, true);
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(path, ec);
  if (reason.empty() && !ec && normal_path(real.string()) != lexical) {
    reason = blocked_source_reason(normal_path(real.string()), true);
  }
  if (reason.starts_with("binds ")) reason = "is " + reason.substr(6);  // (a bind's wording)
  return reason;
}

std::string file_tool_refusal(const Settings& settings, std::string_view tool) {
  const bool fs_tool = tool == "read" || tool == "write" || tool == "edit" || tool == "apply_patch";
  if (!fs_tool) return "";
  if (settings.workspace_access == WorkspaceAccess::kNone) {
    return std::string(tool) +
           ": the workspace is not visible in this sandbox (agents.defaults.sandbox.workspaceAccess is none)";
  }
  if (settings.workspace_access == WorkspaceAccess::kRo && tool != "read") {
    return std::string(tool) +
           ": the workspace is read-only in this sandbox (agents.defaults.sandbox.workspaceAccess is ro)";
  }
  return "";
}

}  // namespace pincer::tools::sandbox
