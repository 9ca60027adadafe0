// What a config change needs (SPEC CF-2, CH-7): the changed paths between two validated configs,
// each matched against a rule table by its longest prefix, so that a channel change restarts only
// that channel and a routing change applies to the next message, while a change the running
// gateway cannot apply (its port, bind, auth, logging) asks for a restart.
//
//   prefix                      kind      applied by
//   channels                    Hot       ChannelManager::reload (only the changed accounts)
//   bindings, session, messages Hot       InboundPipeline::reconfigure (next message)
//   agents, models, tools       Hot       AgentService::reconfigure (next run)
//   memory                      Hot       MemoryService::reconfigure (changed indexes reopened)
//   gateway.reload, meta, $schema None
//   everything else (gateway.*, logging …) Restart
//
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::gateway {

/// `gateway.reload.mode` (CF-2): hybrid (default) applies hot changes and restarts the gateway in
/// process for the rest; hot applies hot changes and only warns about the rest; restart restarts
/// for any change; off does not apply edits (the file stays watched: an edit that sets another
/// mode applies everything changed since).
enum class ReloadMode { Hybrid, Hot, Restart, Off };
ReloadMode reload_mode_from(const std::string& s);  ///< unknown → Hybrid (the schema allows only these)

enum class ChangeKind { None, Hot, Restart };

struct ReloadPlan {
  std::vector<std::string> changed;          ///< dotted paths, e.g. "channels.telegram.dmPolicy"
  std::vector<std::string> restart_reasons;  ///< the changed paths that need a restart
  bool hot = false;  ///< some change is applied hot (the appliers are cheap and diff themselves)
};

/// Dotted paths of every leaf that differs (added, removed or changed). Arrays compare whole.
std::vector<std::string> changed_paths(const nlohmann::json& before, const nlohmann::json& after);

/// The rule for one changed path (longest matching prefix).
ChangeKind change_kind(const std::string& path);

/// What to do about a rejected reload, for people: when `reason` is a missing env var (the
/// gateway runs in an environment without it), restart where it is set or put it in the config's
/// `env` section; otherwise fix the file. `config_path` is named in the advice.
std::string config_reload_fix(const std::string& reason, const std::string& config_path);

/// The plan for going from `before` to `after` (both effective configs).
ReloadPlan plan_reload(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace pincer::gateway
