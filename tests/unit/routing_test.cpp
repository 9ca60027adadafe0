// Routing of inbound channel messages (SPEC RT-1..RT-4, QL-4, CH-3): session keys for every
// dmScope, groups, channels, threads and topics; binding resolution order; inbound dedupe;
// access decisions. Expected values are OpenClaw's (src/routing/session-key.ts,
// src/routing/resolve-route.ts, src/infra/dedupe.ts, src/security/dm-policy-shared.ts).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "routing/access_policy.h"
#include "routing/bindings.h"
#include "routing/dedupe.h"
#include "routing/routing_config.h"
#include "routing/session_routing.h"

namespace pincer::routing {
namespace {

// ---------------------------------------------------------------------------------------------
// Session keys
// ---------------------------------------------------------------------------------------------

struct KeyCase {
  const char* name;
  const char* agent;
  const char* channel;
  const char* account;
  std::optional<Peer> peer;
  DmScope scope;
  const char* expected;
};

TEST(SessionRouting, ShapesForEveryScopeAndPeerKind) {
  const std::vector<KeyCase> cases = {
      {"dm main", "main", "telegram", "", Peer{PeerKind::Direct, "12345"}, DmScope::Main, "agent:main:main"},
      {"dm per-peer", "main", "telegram", "", Peer{PeerKind::Direct, "12345"}, DmScope::PerPeer,
       "agent:main:direct:12345"},
      {"dm per-channel-peer", "main", "telegram", "", Peer{PeerKind::Direct, "12345"}, DmScope::PerChannelPeer,
       "agent:main:telegram:direct:12345"},
      {"dm per-account-channel-peer", "main", "telegram", "Work", Peer{PeerKind::Direct, "12345"},
       DmScope::PerAccountChannelPeer, "agent:main:telegram:work:direct:12345"},
      {"dm account defaults", "main", "telegram", "", Peer{PeerKind::Direct, "7"}, DmScope::PerAccountChannelPeer,
       "agent:main:telegram:default:direct:7"},
      {"group ignores dmScope", "main", "discord", "", Peer{PeerKind::Group, "987"}, DmScope::Main,
       "agent:main:discord:group:987"},
      {"channel", "ops", "slack", "", Peer{PeerKind::Channel, "C01ABC"}, DmScope::PerPeer,
       "agent:ops:slack:channel:c01abc"},
      {"everything lowercased", "Ops", "Telegram", "", Peer{PeerKind::Direct, "UserX"}, DmScope::PerChannelPeer,
       "agent:ops:telegram:direct:userx"},
      {"no peer = main key", "main", "telegram", "", std::nullopt, DmScope::PerPeer, "agent:main:main"},
      {"empty direct id = unknown", "main", "telegram", "", Peer{PeerKind::Direct, "  "}, DmScope::PerPeer,
       "agent:main:direct:unknown"},
      {"empty group id = unknown", "main", "", "", Peer{PeerKind::Group, ""}, DmScope::Main,
       "agent:main:unknown:group:unknown"},
      {"agent id normalised", "My Agent!", "irc", "", Peer{PeerKind::Channel, "#Pincer"}, DmScope::Main,
       "agent:my-agent:irc:channel:#pincer"},
      {"telegram topic peer", "main", "telegram", "", Peer{PeerKind::Group, telegram_topic_peer_id("-100123", "42")},
       DmScope::Main, "agent:main:telegram:group:-100123:topic:42"},
  };
  for (const KeyCase& c : cases) {
    SessionKeyInput in;
    in.agent_id = c.agent;
    in.channel = c.channel;
    in.account_id = c.account;
    in.peer = c.peer;
    in.dm_scope = c.scope;
    EXPECT_EQ(build_session_key(in), c.expected) << c.name;
  }
}

TEST(SessionRouting, IdentityLinksMergeDirectMessagesAcrossChannels) {
  const IdentityLinks links = {{"Alice", {"telegram:123", "Discord:456"}}, {"bob", {"789"}}};
  struct Case {
    const char* channel;
    const char* peer;
    DmScope scope;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"telegram", "123", DmScope::PerPeer, "agent:main:direct:alice"},
      {"discord", "456", DmScope::PerPeer, "agent:main:direct:alice"},
      {"discord", "456", DmScope::PerChannelPeer, "agent:main:discord:direct:alice"},
      {"telegram", "456", DmScope::PerPeer, "agent:main:direct:456"},  // scoped id, other channel
      {"irc", "789", DmScope::PerPeer, "agent:main:direct:bob"},       // bare id: any channel
      {"telegram", "123", DmScope::Main, "agent:main:main"},           // links unused under main
  };
  for (const Case& c : cases) {
    SessionKeyInput in;
    in.agent_id = "main";
    in.channel = c.channel;
    in.peer = Peer{PeerKind::Direct, c.peer};
    in.dm_scope = c.scope;
    in.identity_links = &links;
    EXPECT_EQ(build_session_key(in), c.expected) << c.channel << ":" << c.peer;
  }
  EXPECT_EQ(resolve_linked_peer_id(links, "telegram", " 123 "), "Alice");
  EXPECT_EQ(resolve_linked_peer_id(links, "telegram", ""), std::nullopt);
  // The first link listing an id wins.
  const IdentityLinks twice = {{"first", {"x:1"}}, {"second", {"x:1"}}};
  EXPECT_EQ(resolve_linked_peer_id(twice, "x", "1"), "first");
}

TEST(SessionRouting, ThreadSuffixesAndParents) {
  EXPECT_EQ(resolve_thread_session_keys("agent:main:slack:channel:c1", "1700.55").session_key,
            "agent:main:slack:channel:c1:thread:1700.55");
  const auto keys = resolve_thread_session_keys("agent:main:main", " ABC ", "agent:main:main");
  EXPECT_EQ(keys.session_key, "agent:main:main:thread:abc");
  EXPECT_EQ(keys.parent_session_key, "agent:main:main");
  const auto none = resolve_thread_session_keys("agent:main:main", "  ", "agent:main:main");
  EXPECT_EQ(none.session_key, "agent:main:main");
  EXPECT_EQ(none.parent_session_key, "");
  EXPECT_EQ(resolve_thread_session_keys("agent:main:discord:channel:t9", "t9", "p", false).session_key,
            "agent:main:discord:channel:t9");
  // Telegram DM threads use "<chatId>:<threadId>" as the thread id.
  EXPECT_EQ(resolve_thread_session_keys("agent:main:main", "555:12").session_key, "agent:main:main:thread:555:12");

  EXPECT_EQ(thread_parent_session_key("agent:main:slack:channel:c1:thread:17"), "agent:main:slack:channel:c1");
  EXPECT_EQ(thread_parent_session_key("agent:main:telegram:group:-1:topic:4"), "agent:main:telegram:group:-1");
  EXPECT_EQ(thread_parent_session_key("agent:main:x:thread:1:topic:2"), "agent:main:x:thread:1");
  EXPECT_EQ(thread_parent_session_key("agent:main:main"), std::nullopt);
  EXPECT_EQ(telegram_topic_peer_id("-100", ""), "-100");
  EXPECT_EQ(group_history_key("Telegram", "", PeerKind::Group, "-100ABC"), "telegram:default:group:-100abc");
}

TEST(SessionRouting, ParsesConfigSpellings) {
  EXPECT_EQ(parse_dm_scope("per-account-channel-peer"), DmScope::PerAccountChannelPeer);
  EXPECT_EQ(parse_dm_scope("per_peer"), std::nullopt);
  EXPECT_EQ(parse_peer_kind(" DM "), PeerKind::Direct);
  EXPECT_EQ(parse_peer_kind("channel"), PeerKind::Channel);
  EXPECT_EQ(parse_peer_kind("room"), std::nullopt);
  for (DmScope s : {DmScope::Main, DmScope::PerPeer, DmScope::PerChannelPeer, DmScope::PerAccountChannelPeer}) {
    EXPECT_EQ(parse_dm_scope(to_string(s)), s);
  }
}

// ---------------------------------------------------------------------------------------------
// Bindings (RT-3)
// ---------------------------------------------------------------------------------------------

Binding bind(const char* agent, const char* channel) {
  Binding b;
  b.agent_id = agent;
  b.match.channel = channel;
  return b;
}

/// A message in Discord thread "t1" (parent channel "c1") of guild "g1" from a member with role
/// "r1", on account "default".
RouteInput discord_thread_message() {
  RouteInput in;
  in.channel = "discord";
  in.peer = Peer{PeerKind::Channel, "t1"};
  in.parent_peer = Peer{PeerKind::Channel, "c1"};
  in.guild_id = "g1";
  in.team_id = "team1";
  in.member_role_ids = {"r1"};
  return in;
}

TEST(Bindings, EachTierBeatsTheNext) {
  // One binding per tier, listed from least to most specific so config order cannot explain the
  // result. Removing the winner each time must hand the message to the next tier.
  Binding peer = bind("peer", "discord");
  peer.match.peer = BindingPeer{"channel", "t1"};
  Binding parent = bind("parent", "discord");
  parent.match.peer = BindingPeer{"channel", "c1"};
  Binding roles = bind("roles", "discord");
  roles.match.guild_id = "g1";
  roles.match.roles = {"r9", "r1"};
  Binding guild = bind("guild", "discord");
  guild.match.guild_id = "g1";
  Binding team = bind("team", "discord");
  team.match.team_id = "team1";
  Binding account = bind("account", "discord");  // accountId omitted = "default"
  Binding channel = bind("channel", "discord");
  channel.match.account_id = "*";

  RoutingConfig config;
  config.bindings = {channel, account, team, guild, roles, parent, peer};
  const std::vector<std::pair<const char*, MatchedBy>> order = {
      {"peer", MatchedBy::Peer},   {"parent", MatchedBy::PeerParent}, {"roles", MatchedBy::GuildRoles},
      {"guild", MatchedBy::Guild}, {"team", MatchedBy::Team},         {"account", MatchedBy::Account},
      {"channel", MatchedBy::Channel}, {"main", MatchedBy::Default},
  };
  for (const auto& [agent, matched_by] : order) {
    const ResolvedRoute route = resolve_route(config, discord_thread_message());
    EXPECT_EQ(route.agent_id, agent);
    EXPECT_EQ(route.matched_by, matched_by) << to_string(route.matched_by);
    if (!config.bindings.empty()) config.bindings.pop_back();
  }
}

TEST(Bindings, ConstraintsAndFilters) {
  struct Case {
    const char* name;
    Binding binding;
    RouteInput input;
    const char* expected_agent;
  };
  RouteInput tg;
  tg.channel = " Telegram ";
  tg.peer = Peer{PeerKind::Group, "-100"};
  RouteInput tg_work = tg;
  tg_work.account_id = "Work";

  auto with = [](Binding b, auto&& edit) {
    edit(b);
    return b;
  };
  const std::vector<Case> cases = {
      {"channel must match", bind("x", "discord"), tg, "main"},
      {"channel compared lowercased", bind("x", "TELEGRAM"), tg, "x"},
      {"omitted account = default only", bind("x", "telegram"), tg_work, "main"},
      {"account normalised", with(bind("x", "telegram"), [](Binding& b) { b.match.account_id = " WORK "; }), tg_work,
       "x"},
      {"account * = any", with(bind("x", "telegram"), [](Binding& b) { b.match.account_id = "*"; }), tg_work, "x"},
      {"group matches channel kind",
       with(bind("x", "telegram"), [](Binding& b) { b.match.peer = BindingPeer{"channel", "-100"}; }), tg, "x"},
      {"direct never matches group",
       with(bind("x", "telegram"), [](Binding& b) { b.match.peer = BindingPeer{"direct", "-100"}; }), tg, "main"},
      {"dm is direct", with(bind("x", "telegram"), [](Binding& b) { b.match.peer = BindingPeer{"dm", "-100"}; }),
       [] {
         RouteInput in;
         in.channel = "telegram";
         in.peer = Peer{PeerKind::Direct, "-100"};
         return in;
       }(),
       "x"},
      {"peer ids exact", with(bind("x", "telegram"), [](Binding& b) { b.match.peer = BindingPeer{"group", "-1000"}; }),
       tg, "main"},
      {"invalid peer kind never matches",
       with(bind("x", "telegram"), [](Binding& b) { b.match.peer = BindingPeer{"room", "-100"}; }), tg, "main"},
      {"peer + guild needs both",
       with(bind("x", "telegram"),
            [](Binding& b) {
              b.match.peer = BindingPeer{"group", "-100"};
              b.match.guild_id = "g";
            }),
       tg, "main"},
      {"roles need a guild id on the message",
       with(bind("x", "discord"),
            [](Binding& b) {
              b.match.guild_id = "g1";
              b.match.roles = {"r1"};
            }),
       [] {
         RouteInput in = discord_thread_message();
         in.member_role_ids.clear();
         return in;
       }(),
       "main"},
  };
  for (const Case& c : cases) {
    RoutingConfig config;
    config.bindings = {c.binding};
    EXPECT_EQ(resolve_route(config, c.input).agent_id, c.expected_agent) << c.name;
  }
}

TEST(Bindings, FirstInConfigOrderWinsWithinATier) {
  RoutingConfig config;
  config.bindings = {bind("first", "irc"), bind("second", "irc")};
  RouteInput in;
  in.channel = "irc";
  EXPECT_EQ(resolve_route(config, in).agent_id, "first");
}

TEST(Bindings, AgentMustExistAndKeysUseTheChosenAgent) {
  RoutingConfig config;
  config.agents.agent_ids = {"main", "Work"};
  config.agents.default_agent_id = "main";
  config.dm_scope = DmScope::PerChannelPeer;
  config.bindings = {bind("ghost", "telegram")};
  RouteInput in;
  in.channel = "telegram";
  in.peer = Peer{PeerKind::Direct, "42"};
  ResolvedRoute route = resolve_route(config, in);
  EXPECT_EQ(route.agent_id, "main");  // unknown agent → default
  EXPECT_EQ(route.matched_by, MatchedBy::Account);
  EXPECT_EQ(route.session_key, "agent:main:telegram:direct:42");
  EXPECT_EQ(route.main_session_key, "agent:main:main");
  EXPECT_EQ(route.account_id, "default");

  config.bindings = {bind("WORK", "telegram")};
  route = resolve_route(config, in);
  EXPECT_EQ(route.agent_id, "work");
  EXPECT_EQ(route.session_key, "agent:work:telegram:direct:42");
  EXPECT_EQ(route.main_session_key, "agent:work:main");

  config.agents.agent_ids.clear();  // no list: any id goes
  config.bindings = {bind("Other One", "telegram")};
  EXPECT_EQ(resolve_route(config, in).agent_id, "other-one");
}

TEST(Bindings, ReadFromTheEffectiveConfig) {
  const auto effective = nlohmann::json::parse(R"({
    "agents": {"list": [{"id": "main"}, {"id": "work", "default": true}]},
    "session": {"dmScope": "per-peer", "identityLinks": {"alice": ["telegram:1", 2]}},
    "bindings": [
      {"type": "acp", "agentId": "main", "match": {"channel": "telegram"}},
      {"agentId": "main", "match": {"channel": "telegram", "accountId": "*",
                                    "peer": {"kind": "direct", "id": 99}, "roles": ["a"]}}
    ]
  })");
  const RoutingConfig config = routing_config_from_json(effective);
  EXPECT_EQ(config.agents.default_agent_id, "work");
  EXPECT_EQ(config.agents.agent_ids.size(), 2u);
  EXPECT_EQ(config.dm_scope, DmScope::PerPeer);
  ASSERT_EQ(config.identity_links.size(), 1u);
  EXPECT_EQ(config.identity_links[0].second, (std::vector<std::string>{"telegram:1", "2"}));
  ASSERT_EQ(config.bindings.size(), 1u);  // the acp binding does not route
  EXPECT_EQ(config.bindings[0].match.peer->id, "99");

  RouteInput in;
  in.channel = "telegram";
  in.peer = Peer{PeerKind::Direct, "1"};
  const ResolvedRoute route = resolve_route(config, in);
  EXPECT_EQ(route.agent_id, "work");
  EXPECT_EQ(route.session_key, "agent:work:direct:alice");
  EXPECT_TRUE(routing_config_from_json(nlohmann::json()).bindings.empty());
}

// ---------------------------------------------------------------------------------------------
// Dedupe (QL-4)
// ---------------------------------------------------------------------------------------------

InboundMessageId msg(const char* message_id, const char* peer = "42", const char* channel = "telegram") {
  return InboundMessageId{channel, "", Peer{PeerKind::Direct, peer}, "", message_id};
}

TEST(Dedupe, SecondSightingWithinTtlIsADuplicate) {
  ManualClock clock;
  InboundDedupe dedupe(clock, 1000, 10);
  EXPECT_FALSE(dedupe.seen(msg("1")));
  EXPECT_TRUE(dedupe.seen(msg("1")));
  EXPECT_FALSE(dedupe.seen(msg("2")));
  EXPECT_FALSE(dedupe.seen(msg("1", "43")));                 // other peer
  EXPECT_FALSE(dedupe.seen(msg("1", "42", "discord")));      // other channel
  EXPECT_TRUE(dedupe.seen(InboundMessageId{" TELEGRAM ", "default", Peer{PeerKind::Direct, "42"}, "", "1"}));
  EXPECT_FALSE(dedupe.seen(InboundMessageId{"telegram", "work", Peer{PeerKind::Direct, "42"}, "", "1"}));
  EXPECT_FALSE(dedupe.seen(msg("")));  // no id: never a duplicate
  EXPECT_FALSE(dedupe.seen(msg("")));
}

TEST(Dedupe, TtlSlidesOnEachSightingThenExpires) {
  ManualClock clock;
  InboundDedupe dedupe(clock, 1000, 10);
  EXPECT_FALSE(dedupe.seen(msg("1")));
  clock.advance(999);
  EXPECT_TRUE(dedupe.seen(msg("1")));  // refreshed at t=999
  clock.advance(999);
  EXPECT_TRUE(dedupe.peek(msg("1")));
  clock.advance(1);  // 1000 ms since the last sighting
  EXPECT_FALSE(dedupe.peek(msg("1")));
  EXPECT_FALSE(dedupe.seen(msg("1")));
  EXPECT_EQ(dedupe.size(), 1u);  // the expired entry was pruned, the new one recorded
}

TEST(Dedupe, SizeCapEvictsLeastRecentlySeen) {
  ManualClock clock;
  InboundDedupe dedupe(clock, 0, 3);
  for (const char* id : {"a", "b", "c"}) EXPECT_FALSE(dedupe.seen(msg(id)));
  EXPECT_TRUE(dedupe.seen(msg("a")));   // a is now the most recent
  EXPECT_FALSE(dedupe.seen(msg("d")));  // evicts b
  EXPECT_EQ(dedupe.size(), 3u);
  EXPECT_FALSE(dedupe.peek(msg("b")));
  EXPECT_TRUE(dedupe.peek(msg("a")));
  EXPECT_TRUE(dedupe.peek(msg("c")));
  for (int i = 0; i < 100; ++i) (void)dedupe.seen(msg(std::to_string(i).c_str()));
  EXPECT_EQ(dedupe.size(), 3u);

  InboundDedupe none(clock, 1000, 0);
  EXPECT_FALSE(none.seen(msg("x")));
  EXPECT_FALSE(none.seen(msg("x")));
}

TEST(Dedupe, KeysCannotImitateEachOther) {
  EXPECT_NE(InboundDedupe::key_of(InboundMessageId{"a", "", Peer{PeerKind::Direct, "b:c"}, "", "1"}),
            InboundDedupe::key_of(InboundMessageId{"a", "", Peer{PeerKind::Direct, "b"}, "c", "1"}));
  EXPECT_EQ(InboundDedupe::key_of(msg("")), "");
}

// ---------------------------------------------------------------------------------------------
// Access policy (CH-3)
// ---------------------------------------------------------------------------------------------

AccessRequest dm_from(const char* id, const char* username = "") {
  AccessRequest r;
  r.sender = SenderIdentity{id, username};
  return r;
}

AccessRequest group_msg(const char* group, const char* sender, bool mentioned) {
  AccessRequest r;
  r.is_group = true;
  r.group_id = group;
  r.sender = SenderIdentity{sender, ""};
  r.was_mentioned = mentioned;
  return r;
}

TEST(AccessPolicy, DirectMessages) {
  struct Case {
    const char* name;
    DmPolicy policy;
    std::vector<std::string> allow_from;
    AccessRequest request;
    AccessAction action;
    AccessReason reason;
  };
  AccessRequest paired = dm_from("555");
  paired.paired_allow_from = {"555"};
  const std::vector<Case> cases = {
      {"disabled", DmPolicy::Disabled, {"*"}, dm_from("1"), AccessAction::Drop, AccessReason::DmPolicyDisabled},
      {"open", DmPolicy::Open, {}, dm_from("1"), AccessAction::Allow, AccessReason::DmPolicyOpen},
      {"pairing, listed", DmPolicy::Pairing, {"1"}, dm_from("1"), AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"pairing, unknown", DmPolicy::Pairing, {"1"}, dm_from("2", "bob"), AccessAction::Pair,
       AccessReason::DmPolicyPairingRequired},
      {"pairing, approved earlier", DmPolicy::Pairing, {}, paired, AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"allowlist ignores pairing approvals", DmPolicy::Allowlist, {}, paired, AccessAction::Drop,
       AccessReason::DmPolicyNotAllowlisted},
      {"allowlist, listed", DmPolicy::Allowlist, {"telegram:1"}, dm_from("1"), AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"allowlist, tg prefix", DmPolicy::Allowlist, {"TG:1"}, dm_from("1"), AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"allowlist, @username", DmPolicy::Allowlist, {"@Alice"}, dm_from("9", "alice"), AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"allowlist, username never matches an id", DmPolicy::Allowlist, {"@9"}, dm_from("9"), AccessAction::Drop,
       AccessReason::DmPolicyNotAllowlisted},
      {"allowlist, wildcard", DmPolicy::Allowlist, {"*"}, dm_from("9"), AccessAction::Allow,
       AccessReason::DmPolicyAllowlisted},
      {"allowlist, empty list", DmPolicy::Allowlist, {}, dm_from("9"), AccessAction::Drop,
       AccessReason::DmPolicyNotAllowlisted},
      {"allowlist, sender without id", DmPolicy::Allowlist, {"1"}, dm_from(""), AccessAction::Drop,
       AccessReason::DmPolicyNotAllowlisted},
  };
  for (const Case& c : cases) {
    ChannelAccessConfig config;
    config.dm_policy = c.policy;
    config.allow_from = c.allow_from;
    config.id_prefixes = {"telegram", "tg"};
    const AccessDecision d = decide_access(config, c.request);
    EXPECT_EQ(d.action, c.action) << c.name;
    EXPECT_EQ(d.reason, c.reason) << c.name << ": " << to_string(d.reason);
    EXPECT_EQ(d.pairing.has_value(), c.action == AccessAction::Pair) << c.name;
  }
  ChannelAccessConfig config;
  const AccessDecision d = decide_access(config, dm_from(" 2 ", "bob"));  // defaults: pairing
  ASSERT_TRUE(d.pairing);
  EXPECT_EQ(d.pairing->sender_id, "2");
  EXPECT_EQ(d.pairing->username, "bob");
}

TEST(AccessPolicy, Groups) {
  struct Case {
    const char* name;
    GroupPolicy policy;
    std::vector<std::string> allow_from;
    std::optional<std::vector<std::string>> group_allow_from;
    std::map<std::string, GroupSettings> groups;
    AccessRequest request;
    AccessReason reason;
  };
  const GroupSettings listed{};
  const GroupSettings quiet{false, std::nullopt, std::nullopt, std::nullopt};
  const GroupSettings off{std::nullopt, false, std::nullopt, std::nullopt};
  const GroupSettings own_list{std::nullopt, std::nullopt, std::vector<std::string>{"7"}, std::nullopt};
  const std::vector<Case> cases = {
      {"disabled", GroupPolicy::Disabled, {"*"}, {}, {{"*", listed}}, group_msg("g", "1", true),
       AccessReason::GroupPolicyDisabled},
      {"open, mentioned", GroupPolicy::Open, {}, {}, {}, group_msg("g", "1", true), AccessReason::GroupPolicyAllowed},
      {"open, not mentioned", GroupPolicy::Open, {}, {}, {}, group_msg("g", "1", false),
       AccessReason::MissingMention},
      {"open, requireMention false on *", GroupPolicy::Open, {}, {}, {{"*", quiet}}, group_msg("g", "1", false),
       AccessReason::GroupPolicyAllowed},
      {"open, groups listed: others not allowed", GroupPolicy::Open, {}, {}, {{"g2", listed}},
       group_msg("g", "1", true), AccessReason::GroupNotAllowed},
      {"open, chat's own allowFrom", GroupPolicy::Open, {}, {}, {{"g", own_list}}, group_msg("g", "1", true),
       AccessReason::GroupPolicyNotAllowlisted},
      {"allowlist, chat not listed", GroupPolicy::Allowlist, {"1"}, {}, {{"g2", listed}}, group_msg("g", "1", true),
       AccessReason::GroupNotAllowed},
      {"allowlist, no groups, sender list lets any chat in", GroupPolicy::Allowlist, {}, {{"1"}}, {},
       group_msg("g", "1", true), AccessReason::GroupPolicyAllowed},
      {"allowlist, no groups, no senders", GroupPolicy::Allowlist, {}, {}, {}, group_msg("g", "1", true),
       AccessReason::GroupNotAllowed},
      {"allowlist, chat listed, no senders = whole chat", GroupPolicy::Allowlist, {}, {}, {{"g", listed}},
       group_msg("g", "1", true), AccessReason::GroupPolicyAllowed},
      {"allowlist, * only, no senders", GroupPolicy::Allowlist, {}, {}, {{"*", listed}}, group_msg("g", "1", true),
       AccessReason::GroupPolicyEmptyAllowlist},
      {"allowlist, sender not listed", GroupPolicy::Allowlist, {"2"}, {}, {{"*", listed}}, group_msg("g", "1", true),
       AccessReason::GroupPolicyNotAllowlisted},
      {"allowlist, groupAllowFrom beats allowFrom", GroupPolicy::Allowlist, {"1"}, {{"2"}}, {{"*", listed}},
       group_msg("g", "1", true), AccessReason::GroupPolicyNotAllowlisted},
      {"allowlist, falls back to allowFrom", GroupPolicy::Allowlist, {"1"}, {}, {{"*", listed}},
       group_msg("g", "1", true), AccessReason::GroupPolicyAllowed},
      {"allowlist, chat's own list beats groupAllowFrom", GroupPolicy::Allowlist, {}, {{"1"}}, {{"g", own_list}},
       group_msg("g", "7", true), AccessReason::GroupPolicyAllowed},
      {"chat disabled", GroupPolicy::Open, {}, {}, {{"g", off}}, group_msg("g", "1", true),
       AccessReason::GroupDisabled},
      {"* disabled, chat without entry", GroupPolicy::Open, {}, {}, {{"*", off}}, group_msg("g", "1", true),
       AccessReason::GroupDisabled},
      {"chat quiet beats *", GroupPolicy::Open, {}, {}, {{"*", listed}, {"g", quiet}}, group_msg("g", "1", false),
       AccessReason::GroupPolicyAllowed},
  };
  for (const Case& c : cases) {
    ChannelAccessConfig config;
    config.group_policy = c.policy;
    config.allow_from = c.allow_from;
    config.group_allow_from = c.group_allow_from;
    config.groups = c.groups;
    const AccessDecision d = decide_access(config, c.request);
    EXPECT_EQ(d.reason, c.reason) << c.name << ": got " << to_string(d.reason);
    EXPECT_EQ(d.action, c.reason == AccessReason::GroupPolicyAllowed ? AccessAction::Allow : AccessAction::Drop)
        << c.name;
  }
}

TEST(AccessPolicy, AServerEntryCoversItsChatsWithoutOneOfTheirOwn) {
  ChannelAccessConfig config;
  config.group_policy = GroupPolicy::Allowlist;
  config.allow_from = {"1"};
  config.groups["guild-9"] = GroupSettings{false, std::nullopt, std::nullopt, std::nullopt};   // no mention needed
  config.groups["chan-2"] = GroupSettings{true, std::nullopt, std::nullopt, std::nullopt};     // its own: mention
  AccessRequest r = group_msg("chan-1", "1", false);
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::GroupNotAllowed) << "no space: not listed";
  r.space_id = "guild-9";
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::GroupPolicyAllowed) << "the guild's entry applies";
  r.group_id = "chan-2";
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::MissingMention) << "the chat's own entry wins";
  r.group_id = "chan-1";
  r.space_id = "guild-8";
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::GroupNotAllowed) << "another guild";
  r.group_id = "thread-5";
  r.parent_group_id = "chan-2";
  r.space_id = "guild-9";
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::MissingMention) << "a thread takes its parent's entry first";
}

TEST(AccessPolicy, MentionGateBypasses) {
  ChannelAccessConfig config;
  config.group_policy = GroupPolicy::Open;
  AccessRequest r = group_msg("g", "1", false);
  EXPECT_EQ(decide_access(config, r).reason, AccessReason::MissingMention);
  r.implicit_mention = true;  // a reply to the bot
  EXPECT_EQ(decide_access(config, r).action, AccessAction::Allow);
  r.implicit_mention = false;
  r.authorized_control_command = true;
  EXPECT_EQ(decide_access(config, r).action, AccessAction::Allow);
  r.authorized_control_command = false;
  r.can_detect_mention = false;  // cannot tell: do not drop
  EXPECT_EQ(decide_access(config, r).action, AccessAction::Allow);
  // Pairing approvals never count in groups.
  ChannelAccessConfig strict;
  AccessRequest paired = group_msg("g", "5", true);
  paired.paired_allow_from = {"5"};
  strict.groups = {{"*", GroupSettings{}}};
  EXPECT_EQ(decide_access(strict, paired).reason, AccessReason::GroupPolicyEmptyAllowlist);
}

TEST(AccessPolicy, AllowFromNormalisation) {
  const AllowList list = normalize_allow_from({" 123 ", "", "@Bob", "telegram:456", "TELEGRAM:@Carol", "*"}, {"telegram"});
  EXPECT_TRUE(list.wildcard);
  EXPECT_EQ(list.ids, (std::vector<std::string>{"123", "456"}));
  EXPECT_EQ(list.usernames, (std::vector<std::string>{"bob", "carol"}));
  const AllowList no_wild = normalize_allow_from({"abc"});
  EXPECT_TRUE(allow_list_matches(no_wild, SenderIdentity{"ABC", ""}));
  EXPECT_FALSE(allow_list_matches(no_wild, SenderIdentity{"", "abc"}));
  EXPECT_FALSE(allow_list_matches(AllowList{}, SenderIdentity{"x", "x"}));
  EXPECT_TRUE(allow_list_matches(normalize_allow_from({"@x"}), SenderIdentity{"1", "@X"}));
  for (DmPolicy p : {DmPolicy::Pairing, DmPolicy::Allowlist, DmPolicy::Open, DmPolicy::Disabled}) {
    EXPECT_EQ(parse_dm_policy(to_string(p)), p);
  }
  for (GroupPolicy p : {GroupPolicy::Open, GroupPolicy::Allowlist, GroupPolicy::Disabled}) {
    EXPECT_EQ(parse_group_policy(to_string(p)), p);
  }
  EXPECT_EQ(parse_dm_policy("Pairing"), std::nullopt);
}

}  // namespace
}  // namespace pincer::routing
