#include "app/config_reloader.h"

#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "agent/model_registry.h"
#include "channels/channel_checks.h"
#include "cli/config_checks.h"
#include "core/clock.h"
#include "core/redact.h"

namespace pincer::app {

using nlohmann::json;

namespace {

std::string join_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (std::size_t i = 0; i < paths.size() && i < 8; ++i) out += (i ? ", " : "") + paths[i];
  if (paths.size() > 8) out += " and " + std::to_string(paths.size() - 8) + " more";
  return out;
}

/// `why` (one problem a line) with each problem about a value an $include'd file writes named by
/// that file, its line and its path there, as `config validate` names it (cli/config_checks.h).
std::string naming_included_files(const std::string& why, const std::filesystem::path& config_path) {
  std::vector<std::string> lines = cli::lines_of(why);
  cli::name_included_files(lines, config_path);
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out.empty() ? why : out;
}

gateway::ReloadMode mode_of(const json& effective) {
  return gateway::reload_mode_from(effective["gateway"]["reload"].value("mode", "hybrid"));
}

}  // namespace

ConfigReloader::ConfigReloader(EventLoop& loop, std::filesystem::path config_path, config::EnvLookup env, json running,
                               gateway::Gateway& gateway, agent::AgentService& agents, channels::ChannelManager& channels,
                               Preflight preflight, Preflight checks)
    : loop_(loop),
      config_path_(std::move(config_path)),
      env_(std::move(env)),
      running_(std::move(running)),
      gateway_(gateway),
      agents_(agents),
      channels_(channels),
      preflight_(std::move(preflight)),
      checks_(std::move(checks)),
      mode_(mode_of(running_)),
      watcher_(loop, config_path_, kConfigPollMs, running_["gateway"]["reload"].value("debounceMs", int64_t{300}),
               [this] { on_change(); }) {}

void ConfigReloader::start() {
  // Watched in every mode: "off" keeps edits from applying, and an edit that sets another mode
  // applies (with everything changed since), without a restart.
  watcher_.start();
  if (mode_ == gateway::ReloadMode::Off) {
    spdlog::info("config: gateway.reload.mode is \"off\": edits of {} are not applied until one sets another mode "
                 "(or the gateway restarts)",
                 config_path_.string());
  }
}

void ConfigReloader::on_change() {
  if (restart_pending_) return;  // the coming restart reads the file as it is then
  auto next = config::load(config_path_, env_);
  // New keys and tokens are masked before anything about the new config is logged or applied.
  if (next) {
    for (const auto& secret : config::sensitive_values(next->effective)) redact::add_secret(secret);
  }
  if (!next) return reject(next.error().message);
  if (!next->exists) {  // deleted or moved away: not a wish for the defaults
    return reject(config_path_.string() + " was removed (put it back, or restart the gateway to start from a new one)");
  }
  const gateway::ReloadPlan plan = gateway::plan_reload(running_, next->effective);
  if (plan.changed.empty()) {  // e.g. an edit undone: the file matches what runs again
    gateway_.set_config(next->effective, next->hash);
    return;
  }
  for (const auto& w : next->warnings) spdlog::warn("config: {}", w);  // a repeated key
  // "config changed: …" is said only of an edit that goes ahead: a rejected one is logged as the
  // rejection alone (its reason and the file), not first listed as if it applied.
  const std::string changed = join_paths(plan.changed);
  using gateway::ReloadMode;
  const ReloadMode mode = mode_of(next->effective);  // the file's own wish applies to this edit
  if (mode == ReloadMode::Off) {  // nothing applies; running_ stays, so a later edit applies all of it
    mode_ = mode;
    spdlog::info("config changed: {}", changed);
    spdlog::info("config: gateway.reload.mode is \"off\": this edit is not applied (it applies at the next start, "
                 "or when an edit sets gateway.reload.mode to hybrid, hot or restart)");
    return;
  }
  if (auto st = checks_ ? checks_(*next) : Status(Ok{}); !st) return reject(st.error().message);
  const bool restart = mode == ReloadMode::Restart || (mode == ReloadMode::Hybrid && !plan.restart_reasons.empty());
  if (restart) {
    if (auto st = preflight_ ? preflight_(*next) : Status(Ok{}); !st) return reject(st.error().message);
    spdlog::info("config changed: {}", changed);
    return restart_when_idle(join_paths(mode == ReloadMode::Restart ? plan.changed : plan.restart_reasons));
  }
  if (plan.hot && !apply_hot(*next, changed)) return;
  if (!plan.hot) spdlog::info("config changed: {}", changed);
  if (!plan.restart_reasons.empty()) {
    spdlog::warn("config: {} need a gateway restart to take effect (gateway.reload.mode is \"hot\")",
                 join_paths(plan.restart_reasons));
  }
  running_ = next->effective;
  gateway_.set_config(next->effective, next->hash, next->written);
  mode_ = mode;
}

void ConfigReloader::reject(const std::string& problems) {
  const std::string why = naming_included_files(problems, config_path_);
  spdlog::error("config reload rejected ({}), the running config is kept: {}", config_path_.string(), why);
  // Clients learn it too (status.config, errors of chat.send/agent): only the console saw it before.
  gateway_.config_reload_rejected(redact::apply(why));
}

bool ConfigReloader::apply_hot(const config::LoadedConfig& next, const std::string& changed) {
  // Channels first: an account that cannot be built rejects the whole change.
  if (auto st = channels_.reload(next.effective); !st) {
    reject(st.error().message);
    return false;
  }
  spdlog::info("config changed: {}", changed);
  agents_.reconfigure(next.effective);
  if (on_hot_applied_) on_hot_applied_(next.effective);
  spdlog::info("config reloaded");
  for (const auto& w : agent::model_reference_warnings(next.effective)) spdlog::warn("config: {}", w);
  for (const auto& w : cli::mcp_server_warnings(next.effective)) spdlog::warn("config: {}", w);
  for (const auto& w : channels::group_role_warnings(next.effective)) spdlog::warn("config: {}", w);
  return true;
}

void ConfigReloader::restart_when_idle(const std::string& why) {
  if (restart_pending_) return;  // one restart at a time; it reads the newest file
  restart_pending_ = true;
  restart_asked_ms_ = SystemClock::instance().steady_ms();
  const std::size_t runs = agents_.active_runs(), messages = channels_.pending();
  if (runs + messages > 0) {
    spdlog::info("config: {} changed; the gateway restarts once {} run(s) and {} channel message(s) in progress are done",
                 why, runs, messages);
  }
  poll_restart(why);
}

void ConfigReloader::poll_restart(const std::string& why) {
  const bool waited_enough = SystemClock::instance().steady_ms() - restart_asked_ms_ >= kRestartMaxWaitMs;
  if (agents_.active_runs() + channels_.pending() > 0 && !waited_enough) {
    loop_.after(500, [this, why] { poll_restart(why); });
    return;
  }
  // The file may have changed while runs finished: the restart must be able to run what is there.
  auto next = config::load(config_path_, env_);
  Status ready = !next ? Status(next.error())
                 : !next->exists ? Status(Error{"CONFIG_INVALID", config_path_.string() + " was removed"})
                 : preflight_ ? preflight_(*next)
                              : Status(Ok{});
  if (!ready) {
    restart_pending_ = false;
    const std::string why = naming_included_files(ready.error().message, config_path_);
    spdlog::error("config: restart cancelled ({}), the running config is kept: {}", config_path_.string(), why);
    gateway_.config_reload_rejected(redact::apply(why));
    return;
  }
  spdlog::warn("config: {} changed; restarting the gateway in place", why);
  ::kill(::getpid(), SIGUSR1);  // the transport's signal handler shuts down; run_gateway starts again
}

}  // namespace pincer::app
