// Agent selection for an inbound message (SPEC RT-3; research/openclaw-protocol.md §6; OpenClaw
// src/routing/resolve-route.ts resolveAgentRoute).
//
// `bindings[]` entries `{agentId, match:{channel, accountId?, peer?:{kind,id}, guildId?, teamId?,
// roles?}}` are filtered to the message's channel and account, then tried tier by tier; the first
// tier with a matching binding wins, and within a tier the first binding in config order:
//
//   1 binding.peer         peer-constrained bindings whose peer equals the message's peer
//   2 binding.peer.parent  the same against the parent peer (a thread inherits its parent's binding)
//   3 binding.guild+roles  guild bindings with roles: same guild and any role in common
//   4 binding.guild        guild bindings without roles
//   5 binding.team         team bindings
//   6 binding.account      the rest whose accountId is not "*" (an omitted accountId = "default")
//   7 binding.channel      the rest with accountId "*"
//   8 default              the default agent
//
// A binding sits in the tier of its most specific constraint (peer > guild+roles > guild > team >
// account > channel) but must still satisfy all of its constraints (peer + guild needs both).
// Channel: the binding's, trimmed and lowercased, equals the message's. Account: an omitted or
// empty accountId matches only account "default", "*" any, otherwise normalised equality. Peer
// kinds "group" and "channel" match each other, "dm" is "direct", direct never matches a group;
// peer ids compare exactly after trimming. A peer constraint with an unknown kind or an empty id
// never matches. Roles compare exactly.
//
// Chosen agent (OpenClaw pickFirstExistingAgentId): when agents are configured, a binding naming
// an agent that is not listed falls back to the default agent; with no agents list any id is used
// (normalised). Then the session key is built with dmScope and identity links (session_routing.h)
// and the main session key with "main".
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "routing/session_routing.h"

namespace pincer::routing {

/// `bindings[].match.peer`: kind as written ("direct" | "dm" | "group" | "channel") and id.
struct BindingPeer {
  std::string kind;
  std::string id;
};

/// `bindings[].match`.
struct BindingMatch {
  std::string channel;                   ///< required; compared trimmed and lowercased
  std::optional<std::string> account_id; ///< nullopt/"" = only "default"; "*" = any account
  std::optional<BindingPeer> peer;
  std::string guild_id;                  ///< "" = no constraint (Discord guild)
  std::string team_id;                   ///< "" = no constraint (Slack/Teams workspace)
  std::vector<std::string> roles;        ///< empty = no constraint; needs guild_id to be used
};

/// One routing binding (`type` "route" or omitted; "acp" bindings do not route messages).
struct Binding {
  std::string agent_id;
  BindingMatch match;
};

/// The configured agents, as routing needs them.
struct AgentDirectory {
  std::vector<std::string> agent_ids;     ///< `agents.list[].id` in order; empty = no list
  std::string default_agent_id = "main";  ///< first `default: true`, else first, else "main"
};

/// Routing configuration: bindings, agents and the session settings keys depend on.
struct RoutingConfig {
  std::vector<Binding> bindings;  ///< route bindings only, in config order
  AgentDirectory agents;
  DmScope dm_scope = DmScope::Main;
  IdentityLinks identity_links;
};

/// Where a message came from (SPEC CH-2), as routing needs it.
struct RouteInput {
  std::string channel;                ///< e.g. "telegram"; trimmed and lowercased here
  std::string account_id;             ///< "" = "default"
  std::optional<Peer> peer;           ///< the conversation
  std::optional<Peer> parent_peer;    ///< a thread's parent conversation (tier 2)
  std::string guild_id;               ///< Discord guild ("" = none)
  std::string team_id;                ///< Slack/Teams team ("" = none)
  std::vector<std::string> member_role_ids;  ///< the sender's roles in the guild
};

/// Which tier chose the agent.
enum class MatchedBy { Peer, PeerParent, GuildRoles, Guild, Team, Account, Channel, Default };

/// OpenClaw's names: "binding.peer", "binding.peer.parent", "binding.guild+roles", "binding.guild",
/// "binding.team", "binding.account", "binding.channel", "default".
std::string_view to_string(MatchedBy matched_by);

/// The outcome of routing one message.
struct ResolvedRoute {
  std::string agent_id;          ///< normalised
  std::string channel;           ///< trimmed, lowercased
  std::string account_id;        ///< normalised ("default" when none)
  std::string session_key;       ///< build_session_key(...) for the chosen agent (no thread suffix)
  std::string main_session_key;  ///< agent:<agentId>:main
  MatchedBy matched_by = MatchedBy::Default;
};

/// The agent id used for `requested`: see "Chosen agent" above.
std::string pick_existing_agent_id(const AgentDirectory& agents, std::string_view requested);

/// Routes one message (see the tier table at the top).
ResolvedRoute resolve_route(const RoutingConfig& config, const RouteInput& input);

}  // namespace pincer::routing
