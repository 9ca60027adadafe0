// The access settings of one channel account (routing/access_policy.h) read from its config
// subtree `channels.<id>` (or an account of it), accepting OpenClaw's spellings beside Pincer's:
//   dmPolicy / allowFrom           or  dm: {policy, allowFrom, enabled}        (the flat keys win)
//   groups: {<chat>: {…}}          or  channels: {<chat>: {…}} (Slack), rooms: {<room>: {…}}
//                                      (Matrix), guilds: {<guild>: {…, channels: {<channel>: {…}}}}
//                                      (Discord)                                (`groups` wins)
//   a chat's enabled               or  allow                                   (`enabled` wins)
//   a chat's allowFrom             or  users (Discord guilds)                   (`allowFrom` wins)
// A Discord guild entry covers the guild's channels without one of their own (the pipeline looks
// a chat up by its id, then its parent's, then its guild's, then `*`); its `channels` entries are
// keyed by channel id. Pure; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "routing/access_policy.h"

namespace pincer::channels {

/// The access settings of `channels.<channel>` (a validated config subtree; missing = defaults).
routing::ChannelAccessConfig access_config_from_json(const nlohmann::json& channel_config, const std::string& channel);

}  // namespace pincer::channels
