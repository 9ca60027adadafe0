// One person's accounts on other channels, from `session.identityLinks` (SPEC RT-4, RT-5): what
// channel docking (`/dock_<channel>`, channels/session_docks.h) asks before it moves a session's
// replies to another channel.
//
// Shape: canonical name → platform ids, each "<channel>:<id>" or a bare "<id>" (matches any
// channel), e.g. {alice: ["telegram:123", "discord:456"]} (routing/session_routing.h
// IdentityLinks). A sender belongs to the first link (config order) that lists "<channel>:<id>"
// or the bare id, compared trimmed and lowercased — the rule that merges DM sessions (RT-4). Its
// account on another channel is the first id of that link written "<target>:<id>" (OpenClaw
// src/auto-reply/reply/commands-dock.ts resolveLinkedTargetPeerId; a bare id names no channel,
// so it is never a docking target).
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "routing/session_routing.h"

namespace pincer::routing {

/// The sender's account on another channel.
struct LinkedAccount {
  std::string identity;  ///< the link's canonical name (trimmed, case kept), e.g. "alice"
  std::string peer_id;   ///< the id on the target channel, trimmed, case kept, e.g. "456"
};

/// The account on `target_channel` linked to sender `peer_id` of `channel` (see above); nullopt
/// when the sender is in no link, its link lists no "<target_channel>:" id, or an argument is
/// empty. Channels compare trimmed and lowercased.
std::optional<LinkedAccount> linked_account_on(const IdentityLinks& links, std::string_view channel,
                                               std::string_view peer_id, std::string_view target_channel);

}  // namespace pincer::routing
