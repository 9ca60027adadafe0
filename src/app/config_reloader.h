// Applies edits of pincer.json to the running gateway (SPEC CF-2, CH-7): the ConfigWatcher
// notices a change, the file is loaded and validated like at start-up (an invalid or removed file
// is rejected with the reason logged, and the running config kept), the changed paths are matched
// against gateway/config_reload.h's rules, and per `gateway.reload.mode` (the one in the new
// file; "off": the edit is not applied, the file stays watched):
//   hot changes (channels, bindings, session, messages, agents, models, tools) are applied in
//   place — ChannelManager::reload restarts only the changed accounts, AgentService and the
//   pipeline take the rest for the next message/run;
//   restart changes (gateway.*, logging …) restart the gateway in process (SIGUSR1) in hybrid and
//   restart modes — after a preflight (the new settings resolve, a new address can be bound, every
//   channel account builds; else the change is rejected) and once no run is in progress (at most
//   kRestartMaxWaitMs), so that no reply is cut off; in hot mode they are logged as needing a
//   restart.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel_manager.h"
#include "core/config.h"
#include "gateway/config_reload.h"
#include "gateway/config_watcher.h"
#include "gateway/gateway.h"

namespace pincer::app {

/// How often the config file's metadata is checked where inotify is unavailable (ConfigWatcher), ms.
inline constexpr int64_t kConfigPollMs = 250;
/// Longest a config-triggered restart waits for runs in progress, ms (then it restarts anyway).
inline constexpr int64_t kRestartMaxWaitMs = 300'000;

class ConfigReloader {
 public:
  /// Checks that a config needing a restart could run (settings, address, channels); an error
  /// rejects the change.
  using Preflight = std::function<Status(const config::LoadedConfig& next)>;

  /// `running`: the effective config the gateway started with. `checks`: what every change must
  /// pass before anything of it applies (cli/config_checks.h errors); an error rejects it.
  ConfigReloader(EventLoop& loop, std::filesystem::path config_path, config::EnvLookup env, nlohmann::json running,
                 gateway::Gateway& gateway, agent::AgentService& agents, channels::ChannelManager& channels,
                 Preflight preflight, Preflight checks = {});

  /// Starts watching (in every mode: an edit whose gateway.reload.mode is "off" is not applied,
  /// and a later edit with another mode applies everything changed since the running config).
  void start();
  /// Called with the new effective config after a hot reload was applied (the cron scheduler).
  void on_hot_applied(std::function<void(const nlohmann::json&)> fn) { on_hot_applied_ = std::move(fn); }

 private:
  void on_change();
  /// Logs a rejected reload (its reason and the file) and tells the gateway (status.config,
  /// client errors).
  void reject(const std::string& why);
  /// False (logged) when the channels reject it: then nothing was applied. Else logs "config
  /// changed: `changed`" before the rest applies.
  bool apply_hot(const config::LoadedConfig& next, const std::string& changed);
  void restart_when_idle(const std::string& why);
  void poll_restart(const std::string& why);

  EventLoop& loop_;
  std::filesystem::path config_path_;
  config::EnvLookup env_;
  nlohmann::json running_;
  gateway::Gateway& gateway_;
  agent::AgentService& agents_;
  channels::ChannelManager& channels_;
  Preflight preflight_;
  Preflight checks_;
  gateway::ReloadMode mode_;
  gateway::ConfigWatcher watcher_;
  std::function<void(const nlohmann::json&)> on_hot_applied_;
  bool restart_pending_ = false;  ///< a restart waits for runs to finish (or is under way)
  int64_t restart_asked_ms_ = 0;  ///< steady ms
};

}  // namespace pincer::app
