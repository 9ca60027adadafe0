// `pincer doctor` and `pincer logs [-f]`.
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "automation/cron_store.h"
#include "cli/invoked_command.h"
#include "tools/sandbox/sandbox.h"
#include "app/commands.h"
#include "channels/dm_scope_check.h"
#include "cli/doctor.h"

namespace pincer::app {
namespace {

using nlohmann::json;

int run_doctor(bool as_json) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto findings = cli::run_doctor(state, paths::config_file(state), env);
  // A broken cron/jobs.json: the gateway runs none of its jobs and saves no change (AT-2).
  {
    automation::CronStore jobs(state / "cron", "");
    if (auto st = jobs.load(); !st) {
      findings.push_back({"cron", "fail", st.error().message, "fix or remove " + jobs.jobs_path().string()});
    } else {
      for (const auto& issue : jobs.issues())
        findings.push_back({"cron", "warn", issue, cli::invoked_command() + " cron edit, or fix it in " + jobs.jobs_path().string()});
    }
  }
  // Direct messages of several people in one main session (session.dmScope "main").
  if (auto loaded = config::load(paths::config_file(state), env); loaded) {
    for (auto& w : channels::dm_scope_warnings(loaded->effective, state)) {
      findings.push_back({"dm-scope", "warn", std::move(w), cli::invoked_command() + " config set session.dmScope per-channel-peer"});
    }
    // A configured sandbox that cannot start is an error, never a run on the host (TL-5).
    if (auto agents = agent::resolve_agents(loaded->effective, state, env)) {
      for (const auto& a : agents->agents) {
        auto sb = tools::sandbox::settings_for_agent(loaded->effective, a.id);
        if (!sb) {
          findings.push_back({"sandbox", "fail", sb.error().message, cli::invoked_command() + " config validate"});
        } else if (sb->mode != tools::sandbox::Mode::kOff) {
          auto st = tools::sandbox::check_backend(*sb);
          findings.push_back({"sandbox", st ? "ok" : "fail",
                              "agent " + a.id + ": " + (st ? "bwrap sandbox starts" : st.error().message),
                              st ? "" : "apt-get install bubblewrap (and allow user namespaces), or set agents.defaults.sandbox.mode off"});
        }
      }
    }
  }
  bool any_fail = false;
  json out = json::array();
  for (const auto& f : findings) {
    any_fail = any_fail || f.status == "fail";
    out.push_back(cli::to_json(f));
    if (as_json) continue;
    const char* mark = f.status == "ok" ? "✓" : f.status == "info" ? "i" : f.status == "warn" ? "!" : "✗";
    std::cout << mark << " " << f.check << ": " << f.message << "\n";
    if (!f.fix.empty()) std::cout << "    fix: " << f.fix << "\n";
  }
  if (as_json) print_json(json{{"ok", !any_fail}, {"findings", out}});
  return any_fail ? 1 : 0;
}

/// Prints the last `lines` lines of the gateway log; with `follow`, keeps printing what is
/// appended (and starts over when the file is truncated or replaced), until interrupted.
int run_logs(int lines, bool follow) {
  // The gateway's file: logging.file when the config sets it, else <state>/logs/gateway.log.
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto file = paths::gateway_log_file(state);
  if (auto loaded = config::load(paths::config_file(state), env); loaded) {
    if (auto configured = loaded->effective["logging"].value("file", ""); !configured.empty()) file = configured;
  }
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in && !follow) return fail(1, "no gateway log at " + file.string() + " yet (start the gateway: " +
      cli::invoked_command() + " gateway run)");
  // The tail only: at most the last 8 MiB are read.
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  const std::streamoff from = std::max<std::streamoff>(0, size - (8 << 20));
  std::string text;
  if (in) {
    in.seekg(from);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;  // the final newline ends the last line
  std::size_t start = lines == 0 ? text.size() : end;
  for (int n = 0; lines > 0 && start > 0; --start) {
    if (text[start - 1] == '\n' && ++n == lines) break;
  }
  std::cout << text.substr(start) << std::flush;
  if (!follow) return 0;
  std::uintmax_t offset = static_cast<std::uintmax_t>(from) + text.size();
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) continue;
    if (size < offset) offset = 0;  // rotated or truncated
    if (size == offset) continue;
    std::ifstream f(file, std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    std::string chunk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    offset += chunk.size();
    std::cout << chunk << std::flush;
  }
}

}  // namespace

void register_setup_commands(CLI::App& app, Action& action) {
  {
    auto as_json = std::make_shared<bool>(false);
    auto* doctor = app.add_subcommand("doctor", "Check the installation and suggest fixes");
    doctor->add_flag("--json", *as_json, "Print the findings as JSON");
    on_parsed(doctor, action, [as_json] { return run_doctor(*as_json); });
  }
  {
    auto lines = std::make_shared<int>(100);
    auto follow = std::make_shared<bool>(false);
    auto* logs = app.add_subcommand("logs", "Print the gateway log");
    logs->add_option("-n,--lines", *lines, "How many of the last lines (default 100)")->check(whole_number_check(0, 1000000, "lines", "N"));
    logs->add_flag("-f,--follow", *follow, "Keep printing new lines");
    on_parsed(logs, action, [lines, follow] { return run_logs(*lines, *follow); });
  }
}

}  // namespace pincer::app
