#include "routing/bindings.h"

#include <algorithm>
#include <array>

#include "routing/text_util.h"
#include "store/session_keys.h"

namespace pincer::routing {
namespace {

/// The tier a binding belongs to (its most specific constraint).
enum class Tier { Peer, GuildRoles, Guild, Team, Account, Channel };

/// A binding that passed the channel and account filter, with its constraints normalised.
struct Candidate {
  const Binding* binding = nullptr;
  Tier tier = Tier::Channel;
  bool peer_invalid = false;             ///< a peer constraint with unknown kind or empty id
  std::optional<Peer> peer;              ///< valid peer constraint
  std::string guild_id;
  std::string team_id;
  const std::vector<std::string>* roles = nullptr;  ///< non-null when non-empty
};

bool account_matches(const std::optional<std::string>& pattern, const std::string& account) {
  const std::string_view p = pattern ? text::trim(*pattern) : std::string_view();
  if (p.empty()) return account == store::kDefaultAccountId;
  if (p == "*") return true;
  return store::normalize_account_id(p) == account;
}

bool kinds_compatible(PeerKind a, PeerKind b) {
  if (a == b) return true;
  return a != PeerKind::Direct && b != PeerKind::Direct;  // group ~ channel
}

Candidate classify(const Binding& b) {
  Candidate c;
  c.binding = &b;
  if (b.match.peer) {
    const auto kind = parse_peer_kind(b.match.peer->kind);
    const std::string_view id = text::trim(b.match.peer->id);
    if (kind && !id.empty()) {
      c.peer = Peer{*kind, std::string(id)};
    } else {
      c.peer_invalid = true;
    }
  }
  c.guild_id = std::string(text::trim(b.match.guild_id));
  c.team_id = std::string(text::trim(b.match.team_id));
  if (!b.match.roles.empty()) c.roles = &b.match.roles;
  const std::string_view account = b.match.account_id ? text::trim(*b.match.account_id) : std::string_view();
  if (c.peer) {
    c.tier = Tier::Peer;
  } else if (!c.guild_id.empty() && c.roles) {
    c.tier = Tier::GuildRoles;
  } else if (!c.guild_id.empty()) {
    c.tier = Tier::Guild;
  } else if (!c.team_id.empty()) {
    c.tier = Tier::Team;
  } else if (account != "*") {
    c.tier = Tier::Account;
  } else {
    c.tier = Tier::Channel;
  }
  return c;
}

/// All of a binding's constraints hold for this message (OpenClaw matchesBindingScope), with
/// `scope_peer` standing for the message's peer (the parent peer in tier 2).
bool satisfies(const Candidate& c, const std::optional<Peer>& scope_peer, const RouteInput& in,
               const std::string& guild_id, const std::string& team_id) {
  if (c.peer_invalid) return false;
  if (c.peer) {
    if (!scope_peer || !kinds_compatible(c.peer->kind, scope_peer->kind) || scope_peer->id != c.peer->id) {
      return false;
    }
  }
  if (!c.guild_id.empty() && c.guild_id != guild_id) return false;
  if (!c.team_id.empty() && c.team_id != team_id) return false;
  if (c.roles) {
    return std::any_of(c.roles->begin(), c.roles->end(), [&](const std::string& role) {
      return std::find(in.member_role_ids.begin(), in.member_role_ids.end(), role) != in.member_role_ids.end();
    });
  }
  return true;
}

std::optional<Peer> normalized_peer(const std::optional<Peer>& peer) {
  if (!peer) return std::nullopt;
  return Peer{peer->kind, std::string(text::trim(peer->id))};
}

}  // namespace

std::string_view to_string(MatchedBy matched_by) {
  switch (matched_by) {
    case MatchedBy::Peer: return "binding.peer";
    case MatchedBy::PeerParent: return "binding.peer.parent";
    case MatchedBy::GuildRoles: return "binding.guild+roles";
    case MatchedBy::Guild: return "binding.guild";
    case MatchedBy::Team: return "binding.team";
    case MatchedBy::Account: return "binding.account";
    case MatchedBy::Channel: return "binding.channel";
    case MatchedBy::Default: return "default";
  }
  return "default";
}

std::string pick_existing_agent_id(const AgentDirectory& agents, std::string_view requested) {
  const std::string fallback = store::normalize_agent_id(agents.default_agent_id);
  const std::string_view trimmed = text::trim(requested);
  if (trimmed.empty()) return fallback;
  const std::string wanted = store::normalize_agent_id(trimmed);
  if (agents.agent_ids.empty()) return wanted;
  for (const std::string& id : agents.agent_ids) {
    if (!text::trim(id).empty() && store::normalize_agent_id(id) == wanted) return wanted;
  }
  return fallback;
}

ResolvedRoute resolve_route(const RoutingConfig& config, const RouteInput& in) {
  const std::string channel = text::token(in.channel);
  const std::string account = store::normalize_account_id(in.account_id);
  const std::optional<Peer> peer = normalized_peer(in.peer);
  const std::optional<Peer> parent = normalized_peer(in.parent_peer);
  const std::string guild_id(text::trim(in.guild_id));
  const std::string team_id(text::trim(in.team_id));

  std::vector<Candidate> candidates;
  for (const Binding& b : config.bindings) {
    const std::string bound_channel = text::token(b.match.channel);
    if (bound_channel.empty() || bound_channel != channel) continue;
    if (!account_matches(b.match.account_id, account)) continue;
    candidates.push_back(classify(b));
  }

  struct TierSpec {
    MatchedBy matched_by;
    Tier tier;
    bool enabled;
    const std::optional<Peer>* scope_peer;
  };
  const std::optional<Peer> parent_scope = (parent && !parent->id.empty()) ? parent : std::nullopt;
  const std::array<TierSpec, 7> tiers{{
      {MatchedBy::Peer, Tier::Peer, peer.has_value(), &peer},
      {MatchedBy::PeerParent, Tier::Peer, parent_scope.has_value(), &parent_scope},
      {MatchedBy::GuildRoles, Tier::GuildRoles, !guild_id.empty() && !in.member_role_ids.empty(), &peer},
      {MatchedBy::Guild, Tier::Guild, !guild_id.empty(), &peer},
      {MatchedBy::Team, Tier::Team, !team_id.empty(), &peer},
      {MatchedBy::Account, Tier::Account, true, &peer},
      {MatchedBy::Channel, Tier::Channel, true, &peer},
  }};

  std::string agent_requested = config.agents.default_agent_id;
  MatchedBy matched_by = MatchedBy::Default;
  for (const TierSpec& tier : tiers) {
    if (!tier.enabled) continue;
    const auto hit = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return c.tier == tier.tier && satisfies(c, *tier.scope_peer, in, guild_id, team_id);
    });
    if (hit != candidates.end()) {
      agent_requested = hit->binding->agent_id;
      matched_by = tier.matched_by;
      break;
    }
  }

  ResolvedRoute route;
  route.agent_id = pick_existing_agent_id(config.agents, agent_requested);
  route.channel = channel;
  route.account_id = account;
  route.matched_by = matched_by;
  SessionKeyInput key;
  key.agent_id = route.agent_id;
  key.channel = channel;
  key.account_id = account;
  key.peer = peer;
  key.dm_scope = config.dm_scope;
  key.identity_links = &config.identity_links;
  route.session_key = build_session_key(key);
  route.main_session_key = store::agent_main_session_key(route.agent_id, store::kDefaultMainKey);
  return route;
}

}  // namespace pincer::routing
