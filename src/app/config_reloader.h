// Applies edits of pincer.json to the running gateway (SPEC CF-2, CH-7): the ConfigWatcher
// notices a change, the file is loaded and validated like at start-up (an invalid file is
// rejected with its error logged, and the running config kept), the changed paths are matched
// against gateway/config_reload.h's rules, and per `gateway.reload.mode`:
//   hot changes (channels, bindings, session, messages, agents, models, tools) are applied in
//   place — ChannelManager::reload restarts only the changed accounts, AgentService and the
//   pipeline take the rest for the next message/run;
//   restart changes (gateway.*, logging …) restart the gateway in process (SIGUSR1, hybrid and
//   restart modes) or are logged as needing a restart (hot mode).
//
// Loop affinity: event-loop thread only.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel_manager.h"
#include "core/config.h"
#include "gateway/config_reload.h"
#include "gateway/config_watcher.h"
#include "gateway/gateway.h"

namespace pincer::app {

/// How often the config file's metadata is checked, ms.
inline constexpr int64_t kConfigPollMs = 250;

class ConfigReloader {
 public:
  /// `running`: the effective config the gateway started with.
  ConfigReloader(EventLoop& loop, std::filesystem::path config_path, config::EnvLookup env, nlohmann::json running,
                 gateway::Gateway& gateway, agent::AgentService& agents, channels::ChannelManager& channels);

  /// Starts watching unless gateway.reload.mode is "off".
  void start();

 private:
  void on_change();
  /// False (logged) when the channels reject it: then nothing was applied.
  bool apply_hot(const config::LoadedConfig& next);
  void restart(const std::string& why);

  std::filesystem::path config_path_;
  config::EnvLookup env_;
  nlohmann::json running_;
  gateway::Gateway& gateway_;
  agent::AgentService& agents_;
  channels::ChannelManager& channels_;
  gateway::ReloadMode mode_;
  gateway::ConfigWatcher watcher_;
};

}  // namespace pincer::app
