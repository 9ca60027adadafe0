// `pincer import openclaw [--from DIR] [--dry-run] [--force] [--json]`: moves an OpenClaw state
// dir into Pincer's (cli/openclaw_import.h; docs/cli.md). Exit codes: 0 imported (or dry run),
// 1 I/O failure / target items exist / gateway running, 2 bad source or invalid openclaw.json.
#include <iostream>
#include <memory>

#include "app/client_support.h"
#include "app/commands.h"
#include "cli/openclaw_import.h"
#include "core/clock.h"
#include "core/paths.h"

namespace pincer::app {
namespace {

struct ImportFlags {
  std::string from;
  bool dry_run = false, force = false, json = false;
};

// --from, else $OPENCLAW_STATE_DIR, else ~/.openclaw ("~/" expanded with $HOME).
std::optional<std::filesystem::path> openclaw_dir(const ImportFlags& f, const config::EnvLookup& env) {
  const std::string home = env("HOME").value_or("");
  std::string dir = !f.from.empty() ? f.from : env("OPENCLAW_STATE_DIR").value_or("");
  if (dir.empty()) {
    if (home.empty()) return std::nullopt;
    return std::filesystem::path(home) / ".openclaw";
  }
  if (!home.empty() && (dir == "~" || dir.starts_with("~/"))) return std::filesystem::path(home) / dir.substr(dir == "~" ? 1 : 2);
  return std::filesystem::path(dir);
}

int run_import_openclaw(const ImportFlags& f) {
  const auto env = config::process_env();
  auto source = openclaw_dir(f, env);
  if (!source) return fail(2, "import openclaw: HOME is not set; name the OpenClaw state dir with --from");
  cli::openclaw::ImportOptions options;
  options.source = *source;
  options.target = paths::state_dir(env);
  options.dry_run = f.dry_run;
  options.force = f.force;
  options.env = env;
  options.now_ms = SystemClock::instance().wall_ms();
  const auto outcome = cli::openclaw::run_import(options);
  if (f.json) {
    print_json(cli::openclaw::to_json(outcome));
  } else if (outcome.exit_code != cli::openclaw::kExitBadSource) {
    std::cout << cli::openclaw::to_text(outcome) << std::flush;
  }
  if (outcome.error) return fail(outcome.exit_code, "import openclaw: " + outcome.error->message);
  return outcome.exit_code;
}

}  // namespace

void register_import_command(CLI::App& app, Action& action) {
  auto* group = app.add_subcommand("import", "Import the state of another agent gateway");
  group->require_subcommand(1);
  auto f = std::make_shared<ImportFlags>();
  auto* openclaw = group->add_subcommand(
      "openclaw", "Import an OpenClaw state dir: config, workspaces, sessions, paired devices, cron jobs");
  openclaw->add_option("--from", f->from, "OpenClaw state dir (default $OPENCLAW_STATE_DIR, else ~/.openclaw)");
  openclaw->add_flag("--dry-run", f->dry_run, "Print what would be imported; write nothing");
  openclaw->add_flag("--force", f->force,
                     "Move existing Pincer items aside (to *.pre-import-<time>) instead of refusing");
  openclaw->add_flag("--json", f->json, "Print the report as JSON");
  on_parsed(openclaw, action, [f] { return run_import_openclaw(*f); });
}

}  // namespace pincer::app
