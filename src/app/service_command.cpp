// `pincer gateway install|uninstall|status`: run the gateway as a systemd *user* service
// (docs/cli.md "pincer gateway install"). The unit lives at
// $XDG_CONFIG_HOME/systemd/user/pincer-gateway.service (XDG_CONFIG_HOME defaults to ~/.config)
// and runs this binary's absolute path with `gateway run`, Restart=on-failure, PINCER_HOME when
// set, and the optional environment file <state>/gateway.env for the secrets pincer.json refers
// to as "${NAME}" (a service does not see the login shell's environment), with the sandboxing
// directives that leave the agent's workspace commands working (docs/security.md; no PrivateTmp when
// the binary, state dir or a workspace is under /tmp or /var/tmp: the service would not see them).
// Exit codes: 0 done (status: always, the state is in the output); 1 failure; 2 bad arguments.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/config_file.h"
#include "cli/invoked_command.h"
#include "cli/onboard.h"
#include "core/config.h"
#include "core/paths.h"
#include "store/atomic_file.h"

extern char** environ;

namespace pincer::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kUnitName = "pincer-gateway.service";

struct ServiceFlags {
  bool no_start = false;
  bool no_stop = false;
  bool json = false;
};


fs::path unit_path(const config::EnvLookup& env) {
  fs::path base;
  // A relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says (systemd does too).
  if (auto xdg = env("XDG_CONFIG_HOME"); xdg && !xdg->empty() && fs::path(*xdg).is_absolute()) base = *xdg;
  else if (auto home = env("HOME"); home && !home->empty()) base = fs::path(*home) / ".config";
  else base = ".config";
  return base / "systemd" / "user" / kUnitName;
}

fs::path self_binary() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("pincer") : p;
}

/// A word of a systemd command line or assignment: quoted when needed, '%' escaped.
std::string unit_quote(const std::string& word) {
  std::string escaped;
  bool needs_quotes = word.empty();
  for (char c : word) {
    if (c == '%') escaped += "%%";
    else if (c == '"' || c == '\\') escaped += std::string("\\") + c;
    else escaped += c;
    if (c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '\\' || c == ';') needs_quotes = true;
  }
  return needs_quotes ? "\"" + escaped + "\"" : escaped;
}

/// A path setting that systemd takes whole (EnvironmentFile=, systemd.exec(5)): quotes are not
/// removed there, so the path is written as is (spaces included), with only '%' escaped (specifiers).
std::string unit_path_value(const std::string& path) {
  std::string escaped;
  for (char c : path) escaped += c == '%' ? std::string("%%") : std::string(1, c);
  return escaped;
}

/// `path` when it is under /tmp or /var/tmp (as written or once symlinks are resolved): PrivateTmp=yes
/// gives the service an empty /tmp and /var/tmp of its own, so it would not see it.
std::optional<std::string> service_tmp_path(const fs::path& path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  const fs::path real = fs::weakly_canonical(abs, ec);
  for (const fs::path& p : {abs.lexically_normal(), ec ? abs.lexically_normal() : real}) {
    for (const char* tmp : {"/tmp", "/var/tmp"}) {
      const std::string s = p.string(), t = tmp;
      if (s == t || s.rfind(t + "/", 0) == 0) return abs.lexically_normal().string();
    }
  }
  return std::nullopt;
}

/// `tmp_paths`: what the service uses under /tmp or /var/tmp (service_tmp_path): PrivateTmp is
/// then left out, with a comment naming them.
std::string unit_text(const fs::path& binary, const config::EnvLookup& env, const fs::path& env_file,
                      const std::vector<std::string>& tmp_paths) {
  std::string private_tmp = "PrivateTmp=yes\n";
  if (!tmp_paths.empty()) {
    std::string list;
    for (const auto& p : tmp_paths) list += (list.empty() ? "" : ", ") + p;
    private_tmp = "# PrivateTmp=yes is left out: the service uses " + list + " (under /tmp), which it would hide.\n";
  }
  std::string text =
      "# Pincer gateway, written by `pincer gateway install`; remove it with `pincer gateway uninstall`.\n"
      "[Unit]\n"
      "Description=Pincer gateway (local-first AI agent gateway)\n"
      "After=network-online.target\n"
      "Wants=network-online.target\n"
      "\n"
      "[Service]\n"
      "Type=simple\n"
      "ExecStart=" + unit_quote(binary.string()) + " gateway run\n"
      "Restart=on-failure\n"
      "RestartSec=5\n"
      "# Hardening (docs/security.md \"The systemd unit\"): what cannot break the agent's commands in\n"
      "# its workspace. Left out on purpose: ProtectSystem=strict and ProtectHome (commands write caches\n"
      "# and configs in the home directory), PrivateDevices, RestrictNamespaces, RestrictAddressFamilies,\n"
      "# MemoryDenyWriteExecute, SystemCallFilter (compilers, JITs, containers and devices in tools).\n"
      "NoNewPrivileges=yes\n"
      "ProtectSystem=full\n" +
      private_tmp +
      "ProtectKernelTunables=yes\n"
      "ProtectKernelModules=yes\n"
      "ProtectKernelLogs=yes\n"
      "ProtectControlGroups=yes\n"
      "ProtectClock=yes\n"
      "ProtectHostname=yes\n"
      "RestrictSUIDSGID=yes\n"
      "RestrictRealtime=yes\n"
      "LockPersonality=yes\n"
      "SystemCallArchitectures=native\n"
      "UMask=0077\n"
      "LimitNOFILE=65536\n";
  if (auto home = env("PINCER_HOME"); home && !home->empty()) {
    std::error_code ec;
    const fs::path abs = fs::absolute(*home, ec);
    text += "Environment=" + unit_quote("PINCER_HOME=" + (ec ? *home : abs.string())) + "\n";
  }
  text += "# Secrets referenced by pincer.json as \"${NAME}\": NAME=value lines (optional file).\n"
          "EnvironmentFile=-" + unit_path_value(env_file.string()) + "\n"
          "\n"
          "[Install]\n"
          "WantedBy=default.target\n";
  return text;
}

struct Ran {
  int exit_code = -1;  ///< -1: could not start
  std::string output;  ///< stdout and stderr together, trimmed
};

/// Runs `argv` (looked up on PATH) with stdin from /dev/null; captures its output.
Ran run_command(const std::vector<std::string>& argv) {
  Ran ran;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ran;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    ran.output = argv[0] + ": " + std::strerror(rc);
    return ran;
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ran.output.size() < 65536) ran.output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!ran.output.empty() && (ran.output.back() == '\n' || ran.output.back() == ' ')) ran.output.pop_back();
  return ran;
}

Ran systemctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"systemctl", "--user"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

int run_install(const ServiceFlags& f) {
  const auto env = config::process_env();
  const fs::path unit = unit_path(env);
  const fs::path state = paths::state_dir(env);
  std::error_code ec;
  const fs::path env_file = fs::absolute(state, ec) / "gateway.env";
  // A unit file setting is one line: a path with a line break cannot be written in one.
  for (const fs::path& p : {self_binary(), env_file}) {
    if (p.string().find_first_of("\n\r") != std::string::npos) {
      return fail(1, "cannot write a systemd unit for \"" + p.string() + "\": a unit file setting cannot hold a "
                     "line break; use a PINCER_HOME (and a binary path) without one");
    }
  }
  // What the service must see: its binary, the state dir and the agents' workspaces.
  std::vector<fs::path> used = {self_binary(), state};
  if (auto loaded = config::load(paths::config_file(state), cli::keep_env_references()); loaded) {
    if (auto agents = agent::resolve_agents(loaded->effective, state, env); agents) {
      for (const auto& a : agents->agents) used.push_back(a.workspace);
    }
  }
  std::vector<std::string> tmp_paths;
  for (const auto& p : used) {
    auto tmp = service_tmp_path(p);
    const bool named = tmp && std::any_of(tmp_paths.begin(), tmp_paths.end(), [&tmp](const std::string& t) {
                         return *tmp == t || tmp->rfind(t + "/", 0) == 0;  // e.g. the workspace in the state dir
                       });
    if (tmp && !named) tmp_paths.push_back(*tmp);
  }
  for (const auto& p : tmp_paths) {
    std::cerr << "pincer: warning: " << p << " is under /tmp: the unit leaves out PrivateTmp=yes so that the service "
              << "sees it, but /tmp is emptied at reboot (and /var/tmp cleaned of old files): keep the state dir "
              << "(PINCER_HOME), the binary and the workspaces somewhere lasting, e.g. ~/.pincer\n";
  }
  const std::string text = unit_text(self_binary(), env, env_file, tmp_paths);
  auto existing = store::read_file(unit);
  const bool changed = !existing || *existing != text;
  if (changed) {
    if (auto st = store::write_file_atomic(unit, text, 0644); !st) return fail(1, st.error().message);
  }
  std::cout << (changed ? "Wrote " : "Unchanged: ") << unit.string() << "\n";

  // The variables pincer.json refers to: the loader asks for each of them.
  std::set<std::string> names;
  (void)config::load(paths::config_file(state), [&names](const std::string& name) -> std::optional<std::string> {
    names.insert(name);
    return "${" + name + "}";
  });
  if (!names.empty()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    std::cout << "pincer.json refers to " << list << ": the service does not see your shell's environment, so put\n"
              << "them in " << env_file.string() << " (NAME=value lines, chmod 600).\n";
  }

  const std::string manual = "systemctl --user daemon-reload && systemctl --user enable --now " + std::string(kUnitName);
  if (f.no_start) {
    std::cout << "Not started (--no-start). Start it with:\n  " << manual << "\n";
    return 0;
  }
  const Ran reload = systemctl({"daemon-reload"});
  if (reload.exit_code != 0) {
    std::cout << "No systemd user instance is available (" << (reload.output.empty() ? "systemctl failed" : reload.output)
              << ").\nRun the gateway in the foreground with `" + cli::invoked_command() +
                  " gateway run`, or, where systemd runs, start the unit with:\n  "
              << manual << "\n";
    return 0;
  }
  const Ran enable = systemctl({"enable", "--now", kUnitName});
  if (enable.exit_code != 0) return fail(1, "systemctl --user enable --now " + std::string(kUnitName) + " failed: " + enable.output);
  std::cout << "Enabled and started " << kUnitName << ". Check it with `" + cli::invoked_command() + " gateway status`.\n"
            << "To keep it running while you are logged out: loginctl enable-linger $USER\n";
  return 0;
}

int run_uninstall(const ServiceFlags& f) {
  const auto env = config::process_env();
  const fs::path unit = unit_path(env);
  std::error_code ec;
  if (!fs::exists(unit, ec)) {
    std::cout << "Not installed: " << unit.string() << " does not exist\n";
    return 0;
  }
  if (!f.no_stop) {
    const Ran disable = systemctl({"disable", "--now", kUnitName});
    if (disable.exit_code != 0 && !disable.output.empty()) std::cout << "systemctl: " << disable.output << "\n";
  }
  if (!fs::remove(unit, ec) || ec) return fail(1, "cannot remove " + unit.string() + ": " + ec.message());
  if (!f.no_stop) (void)systemctl({"daemon-reload"});
  std::cout << "Removed " << unit.string() << (f.no_stop ? " (not stopped: --no-stop)" : "") << "\n";
  return 0;
}

/// The ExecStart= line of a unit file ("" when absent).
std::string exec_start_of(const std::string& text) {
  const auto at = text.find("\nExecStart=");
  if (at == std::string::npos) return "";
  const auto start = at + 11;
  return text.substr(start, text.find('\n', start) - start);
}

int run_status(const ServiceFlags& f) {
  const auto env = config::process_env();
  const fs::path unit = unit_path(env);
  auto unit_file = store::read_file(unit);
  const bool installed = unit_file.ok();
  const std::string exec_start = installed ? exec_start_of(*unit_file) : "";
  const bool same_binary = installed && exec_start == unit_quote(self_binary().string()) + " gateway run";

  // systemctl answers "enabled"/"disabled"/"active"/"inactive"/... on stdout, even with a
  // non-zero exit; no answer at all means no user systemd.
  const auto query = [](const char* verb) -> json {
    const Ran r = systemctl({verb, kUnitName});
    if (r.exit_code < 0 || r.output.empty() || r.output.find(' ') != std::string::npos) return nullptr;
    return r.output;
  };
  const json enabled = query("is-enabled"), active = query("is-active");

  // The gateway: GET /health on the configured port (PINCER_GATEWAY_PORT wins, as for `gateway run`).
  const fs::path state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), cli::keep_env_references());
  const json cfg = loaded ? loaded->effective : config::with_defaults(json::object());
  int port = cfg["gateway"].value("port", 18789);
  if (auto p = env("PINCER_GATEWAY_PORT"); p && !p->empty()) {
    try {
      port = std::stoi(*p);
    } catch (const std::exception&) {
    }
  }
  std::string host = "127.0.0.1";
  if (cfg["gateway"].value("bind", "loopback") == "custom") host = cfg["gateway"].value("customBindHost", host);
  const std::string url = "http://" + host + ":" + std::to_string(port) + "/health";
  auto health = cli::http_get(url, std::chrono::milliseconds(2000));
  const bool healthy = health && health->status == 200;

  if (f.json) {
    std::cout << json{{"unit",
                       {{"path", unit.string()},
                        {"installed", installed},
                        {"execStart", installed ? json(exec_start) : json(nullptr)},
                        {"sameBinary", same_binary},
                        {"enabled", enabled},
                        {"active", active}}},
                      {"gateway",
                       {{"url", url},
                        {"healthy", healthy},
                        {"status", health ? json(health->status) : json(nullptr)},
                        {"error", health ? json(nullptr) : json(health.error().message)}}},
                      {"config", {{"path", paths::config_file(state).string()}, {"exists", !loaded || loaded->exists}}}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "unit:     " << unit.string() << (installed ? " (installed)" : " (not installed: " +
      cli::invoked_command() + " gateway install)") << "\n";
  if (installed) {
    std::cout << "          ExecStart=" << exec_start << (same_binary ? "" : "  (not this binary)") << "\n";
  }
  std::cout << "enabled:  " << (enabled.is_null() ? "unknown (systemctl --user gave no answer)" : enabled.get<std::string>()) << "\n"
            << "active:   " << (active.is_null() ? "unknown (systemctl --user gave no answer)" : active.get<std::string>()) << "\n"
            << "gateway:  " << url << " "
            << (healthy ? "answers" : health ? "answered HTTP " + std::to_string(health->status) : "does not answer") << "\n";
  if (loaded && !loaded->exists) {  // the port above is a default, not what a gateway elsewhere uses
    std::cout << "config:   " << paths::config_file(state).string() << " does not exist: port " << port
              << " is assumed (run " + cli::invoked_command() + " onboard, or point PINCER_HOME at the gateway's state directory)\n";
  }
  return 0;
}

}  // namespace

void register_service_commands(CLI::App& app, Action& action) {
  CLI::App* gateway = app.get_subcommand("gateway");
  auto f = std::make_shared<ServiceFlags>();
  // The unit's real path ($XDG_CONFIG_HOME honoured), not the usual one.
  auto* install = gateway->add_subcommand(
      "install", "Install the gateway as a systemd user service (" + unit_path(config::process_env()).string() +
                     ") and start it");
  install->add_flag("--no-start", f->no_start, "Only write the unit file; do not call systemctl");
  on_parsed(install, action, [f] { return run_install(*f); });

  auto* uninstall = gateway->add_subcommand("uninstall", "Stop, disable and remove the gateway's systemd user service");
  uninstall->add_flag("--no-stop", f->no_stop, "Only remove the unit file; do not call systemctl");
  on_parsed(uninstall, action, [f] { return run_uninstall(*f); });

  auto* status = gateway->add_subcommand("status", "Show the service (installed, enabled, active) and whether the gateway answers");
  status->add_flag("--json", f->json, "Print {unit: {path, installed, execStart, sameBinary, enabled, active}, gateway: {url, healthy, status, error}}");
  on_parsed(status, action, [f] { return run_status(*f); });
}

}  // namespace pincer::app
