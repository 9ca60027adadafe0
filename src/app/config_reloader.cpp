#include "app/config_reloader.h"

#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace pincer::app {

using nlohmann::json;

namespace {

std::string join_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (std::size_t i = 0; i < paths.size() && i < 8; ++i) out += (i ? ", " : "") + paths[i];
  if (paths.size() > 8) out += " and " + std::to_string(paths.size() - 8) + " more";
  return out;
}

}  // namespace

ConfigReloader::ConfigReloader(EventLoop& loop, std::filesystem::path config_path, config::EnvLookup env, json running,
                               gateway::Gateway& gateway, agent::AgentService& agents, channels::ChannelManager& channels)
    : config_path_(std::move(config_path)),
      env_(std::move(env)),
      running_(std::move(running)),
      gateway_(gateway),
      agents_(agents),
      channels_(channels),
      mode_(gateway::reload_mode_from(running_["gateway"]["reload"].value("mode", "hybrid"))),
      watcher_(loop, config_path_, kConfigPollMs, running_["gateway"]["reload"].value("debounceMs", int64_t{300}),
               [this] { on_change(); }) {}

void ConfigReloader::start() {
  if (mode_ != gateway::ReloadMode::Off) watcher_.start();
}

void ConfigReloader::on_change() {
  auto next = config::load(config_path_, env_);
  if (!next) {
    spdlog::error("config reload rejected, the running config is kept: {}", next.error().message);
    return;
  }
  const gateway::ReloadPlan plan = gateway::plan_reload(running_, next->effective);
  if (plan.changed.empty()) return;
  spdlog::info("config changed: {}", join_paths(plan.changed));
  using gateway::ReloadMode;
  if (mode_ == ReloadMode::Restart) return restart(join_paths(plan.changed));
  if (!plan.restart_reasons.empty() && mode_ == ReloadMode::Hybrid) return restart(join_paths(plan.restart_reasons));
  if (plan.hot && !apply_hot(*next)) return;
  if (!plan.restart_reasons.empty()) {
    spdlog::warn("config: {} take effect after a restart (gateway.reload.mode is \"hot\")", join_paths(plan.restart_reasons));
  }
  running_ = next->effective;
  gateway_.set_config(next->effective, next->hash);
}

bool ConfigReloader::apply_hot(const config::LoadedConfig& next) {
  // Channels first: an account that cannot be built rejects the whole change.
  if (auto st = channels_.reload(next.effective); !st) {
    spdlog::error("config reload rejected, the running config is kept: {}", st.error().message);
    return false;
  }
  agents_.reconfigure(next.effective);
  spdlog::info("config reloaded");
  return true;
}

void ConfigReloader::restart(const std::string& why) {
  spdlog::warn("config: {} changed; restarting the gateway in place", why);
  ::kill(::getpid(), SIGUSR1);  // the transport's signal handler shuts down; run_gateway starts again
}

}  // namespace pincer::app
