// The tool sandbox (SPEC TL-5): `exec` (and so the background processes `process` manages) runs
// inside bubblewrap, one `bwrap` per command, and the in-process file tools follow the same
// visibility rules.
//
// Configuration, OpenClaw's `agents.defaults.sandbox` with Pincer's bubblewrap backend (an entry of
// `agents.list[]` may override each key; its `binds` are added to the defaults'):
//   mode             off (default) | non-main (every session but the agent's main one,
//                    `agent:<id>:main`) | all
//   backend          bwrap (the only one)
//   bwrap.command    the bwrap binary: a name looked up on PATH (default "bwrap") or a path
//   workspaceAccess  rw (default) | ro | none — how the agent's workspace is visible inside
//   binds            ["/host/path[:/inside/path][:ro|rw]", ...] (Docker's syntax; default rw)
//   network          off (default; own network namespace: only an unconnected loopback) | on
//
// Inside: a fresh root holding a read-only /usr (and /bin, /lib… as on the host), a few
// read-only /etc files commands need (passwd, group, hosts, resolv.conf, ssl, …), a private /proc,
// a minimal /dev, an empty /tmp, the workspace at its host path (rw, ro, or with `none` an empty
// throwaway directory in its place) and the binds. Nothing else of the host — home, state
// directory, other users' files — exists inside. Every namespace is unshared (user, pid, ipc,
// uts, cgroup, and net when `network: off`); the host name is `pincer-sandbox`; the sandbox dies
// with the gateway (--die-with-parent) and has its own session (no terminal injection).
//
// File tools (read/write/edit/apply_patch run in the gateway): with `ro` only read works,
// with `none` none of them does — the same rule as inside the sandbox (`file_tool_refusal`).
//
// A configured sandbox that cannot start (bwrap missing, user namespaces refused) is never a
// silent run on the host (LESSONS 15): the tools refuse with the reason, `pincer doctor` and
// `pincer sandbox explain` report it.
//
// Threading: everything here is thread-safe; `check_backend` caches a successful probe.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "tools/workspace_path.h"

namespace pincer::tools::sandbox {

enum class Mode { kOff, kNonMain, kAll };
enum class WorkspaceAccess { kRw, kRo, kNone };

struct Bind {
  std::string source;  ///< absolute host path; must exist
  std::string target;  ///< absolute path inside
  bool read_only = false;
  std::string config_path;  ///< where it was configured, e.g. "agents.defaults.sandbox.binds[0]"
};

struct Settings {
  Mode mode = Mode::kOff;
  std::string backend = "bwrap";
  std::string command = "bwrap";  ///< bwrap.command as configured
  WorkspaceAccess workspace_access = WorkspaceAccess::kRw;
  std::vector<Bind> binds;
  bool network = false;
};

std::string_view to_string(Mode mode);
std::string_view to_string(WorkspaceAccess access);

/// The sandbox settings of `agent_id` from a loaded configuration document: agents.defaults.sandbox
/// overridden key by key by the agents.list[] entry of that id. Errors "CONFIG_INVALID" name the
/// key path, e.g. `agents.defaults.sandbox.binds[0]: "rel:/x" is not an absolute host path`.
/// A bind is refused when it holds a control character (newline, NUL …), when its host path is
/// not absolute, is "/" or lies in (or holds) one of OpenClaw's blocked host paths — /etc, /proc,
/// /sys, /dev, /root, /boot, /run, /var/run, the Docker socket, ~/.ssh, ~/.gnupg, ~/.aws,
/// ~/.config, ~/.docker, ~/.netrc, ~/.npm, ~/.cargo — also through a symlink, when its inside path
/// is "/" or within /proc, /dev or /sys (the sandbox's own), and when two binds share an inside
/// path. Pincer's own state directory (paths::state_dir of the process environment: credentials,
/// paired device tokens, pincer.json, transcripts) is refused the same way — the directory, any
/// directory holding it, anything inside it, also through a symlink — except the agent workspaces
/// beneath it (`<state>/workspace*` and the configured `agents.defaults.workspace` /
/// `agents.list[].workspace`). Paths are kept lexically normalised ("/a/../b/" → "/b").
Result<Settings> settings_for_agent(const nlohmann::json& config, std::string_view agent_id);

/// The agent's shared folders (shared_folders_for_agent) are appended to `binds`, read-only.
/// As above with the state directory given (tests; the gateway and the CLI use the one above).
Result<Settings> settings_for_agent(const nlohmann::json& config, std::string_view agent_id,
                                    const std::filesystem::path& state_dir);

/// MA-4: the read-only shared folders of `agent_id`: `agents.defaults.binds` then the
/// `agents.list[]` entry's `binds`, each "/host/path[:/mount/path][:ro]" checked with the rules of
/// a sandbox bind (above: absolute, no system or credential directory, not Pincer's state
/// directory outside the agent workspaces, no control character); ":rw" is refused (shared folders
/// are read-only; a writable directory inside the sandbox is a `sandbox.binds` entry). The file
/// tools may read beneath them (tools/workspace_path.h resolve_shared_folder_path); a sandboxed
/// exec gets them as --ro-bind (settings_for_agent adds them to `binds`). Errors "CONFIG_INVALID"
/// naming the key, e.g. `agents.list[1].binds[0]: "/srv/x:rw": shared folders are read-only …`.
Result<std::vector<SharedFolder>> shared_folders_for_agent(const nlohmann::json& config, std::string_view agent_id);
Result<std::vector<SharedFolder>> shared_folders_for_agent(const nlohmann::json& config, std::string_view agent_id,
                                                           const std::filesystem::path& state_dir);

/// Whether a session is sandboxed: mode all, or non-main and `session_key` is not
/// `agent:<agent_id>:main`.
bool applies(const Settings& settings, std::string_view agent_id, std::string_view session_key);

/// The bwrap binary `settings.command` names (PATH lookup for a bare name). Error
/// "SANDBOX_UNAVAILABLE": `sandbox backend bwrap: "bwrap" not found on PATH (install bubblewrap)`.
Result<std::filesystem::path> backend_binary(const Settings& settings);

/// Resolves the binary and starts it once (a probe with the real namespace and mount flags,
/// running `true`) so that a kernel refusing user namespaces is found before a command is.
/// Error "SANDBOX_UNAVAILABLE" with bwrap's own words. A success is cached per binary.
Status check_backend(const Settings& settings);

/// Every bind's host path exists. Error "SANDBOX_UNAVAILABLE" naming the first that does not:
/// `agents.defaults.sandbox.binds[0]: host path "/srv/x" does not exist (create it or remove the
/// bind); nothing was run on the host` — instead of bwrap's own "Can't find source path" on every
/// exec. Checked by exec before each command and by cli/config_checks.
Status check_binds(const Settings& settings);

/// The wrapper for SpawnOptions::wrapper: `bwrap <flags> --chdir <cwd> --` (the caller appends
/// `/bin/sh -c command`). `workspace` and `cwd` are canonical host paths, cwd inside workspace.
std::vector<std::string> bwrap_wrapper(const Settings& settings, const std::filesystem::path& bwrap,
                                       const std::filesystem::path& workspace, const std::filesystem::path& cwd);

/// Why `path` (absolute) must never be an agent's workspace, or "": it is "/", or is, lies in or
/// holds one of the blocked host paths of a sandbox bind (settings_for_agent: system state, devices,
/// the Docker socket, the home's credential folders ~/.ssh, ~/.aws …) except /root itself (root's
/// home holds the default state directory), lexically or through a symlink. E.g.
/// "binds /home/u/.ssh" or "holds /etc".
std::string workspace_host_path_refusal(const std::filesystem::path& path);

/// The message a file tool answers with instead of running, or "" when allowed: `write`, `edit`,
/// `apply_patch` under `ro`; every fs tool under `none`.
std::string file_tool_refusal(const Settings& settings, std::string_view tool_name);

}  // namespace pincer::tools::sandbox
