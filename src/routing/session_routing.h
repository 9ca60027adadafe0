// Session keys for inbound channel messages (SPEC RT-1, RT-2, RT-4; research/openclaw-protocol.md
// §5.5). Builds on the key grammar in store/session_keys.h (agent/account id normalisation, the
// main key); this file adds the channel/peer shapes, dmScope, identity links and thread suffixes.
//
// Shapes (OpenClaw src/routing/session-key.ts buildAgentPeerSessionKey, resolveThreadSessionKeys;
// src/routing/resolve-route.ts buildAgentSessionKey). <a> = normalised agent id, <ch> = channel,
// <acct> = normalised account id; every key is lowercased as a whole.
//
//   direct, dmScope main (default)          agent:<a>:<mainKey>              e.g. agent:main:main
//   direct, dmScope per-peer                agent:<a>:direct:<peer>
//   direct, dmScope per-channel-peer        agent:<a>:<ch>:direct:<peer>
//   direct, dmScope per-account-channel-peer agent:<a>:<ch>:<acct>:direct:<peer>
//   group / channel (any dmScope)           agent:<a>:<ch>:group:<id> / agent:<a>:<ch>:channel:<id>
//   thread (Slack, Discord, Telegram DMs)   <base>:thread:<threadId lowercased>
//   Telegram forum topic                    the peer id itself is "<chatId>:topic:<topicId>", so
//                                           agent:<a>:telegram:group:-100123:topic:42
//
// Identity links (RT-4, `session.identityLinks`, not applied under dmScope main): a direct peer is
// replaced by the canonical name of the first link (config order) listing "<channel>:<peerId>" or
// the bare "<peerId>" (compared trimmed and lowercased), so one person's DMs on several channels
// share a session: {alice: ["telegram:123", "discord:456"]} → agent:main:direct:alice.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pincer::routing {

/// Kind of conversation a message arrived in (SPEC CH-2; OpenClaw ChatType).
enum class PeerKind { Direct, Group, Channel };

/// "direct" | "group" | "channel".
std::string_view to_string(PeerKind kind);
/// Trimmed, case-insensitive "direct" | "dm" (legacy alias) | "group" | "channel"; else nullopt
/// (OpenClaw normalizeChatType).
std::optional<PeerKind> parse_peer_kind(std::string_view raw);

/// The conversation: a user (direct), a group chat or a channel, by its platform id as text.
struct Peer {
  PeerKind kind = PeerKind::Direct;
  std::string id;  ///< e.g. Telegram chat id "-100123", Discord channel id, IRC "#chan"
};

/// `session.dmScope` (RT-2): how direct messages map onto sessions.
enum class DmScope { Main, PerPeer, PerChannelPeer, PerAccountChannelPeer };

/// "main" | "per-peer" | "per-channel-peer" | "per-account-channel-peer".
std::string_view to_string(DmScope scope);
/// Exact (config) spelling of the four scopes; else nullopt.
std::optional<DmScope> parse_dm_scope(std::string_view raw);

/// `session.identityLinks` (RT-4): canonical name → platform ids ("telegram:123" or "123"), kept
/// in config order because the first link that lists a peer wins.
using IdentityLinks = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// The canonical name (trimmed, case kept) of the first link that lists `peer_id` or
/// "<channel>:<peer_id>" (both sides trimmed and lowercased); nullopt when none does or the
/// peer id is empty. Entries with an empty canonical name are skipped.
std::optional<std::string> resolve_linked_peer_id(const IdentityLinks& links, std::string_view channel,
                                                  std::string_view peer_id);

/// What the session key of an inbound message depends on.
struct SessionKeyInput {
  std::string_view agent_id;    ///< normalised with store::normalize_agent_id ("" → "main")
  std::string_view channel;     ///< trimmed, lowercased; "" → "unknown"
  std::string_view account_id;  ///< store::normalize_account_id ("" → "default")
  /// The conversation. nullopt = a direct message with no known peer: always the main key. A
  /// present peer with an empty id becomes "unknown" (as OpenClaw's route resolver does).
  std::optional<Peer> peer;
  DmScope dm_scope = DmScope::Main;
  /// Main session key. OpenClaw's router always passes "main" (`session.mainKey` is accepted
  /// but ignored, src/config/defaults.ts); `session.scope: "global"` callers pass "global".
  std::string_view main_key = "main";
  const IdentityLinks* identity_links = nullptr;  ///< RT-4; nullptr = none
};

/// The session key of a message (see the table at the top). Always lowercase.
std::string build_session_key(const SessionKeyInput& input);

/// Session key of a thread and the key of the session it came from.
struct ThreadSessionKeys {
  std::string session_key;         ///< base, or "<base>:thread:<threadId lowercased>"
  std::string parent_session_key;  ///< "" when none was given or there is no thread
};

/// OpenClaw resolveThreadSessionKeys: without a thread id (after trimming) the base key and no
/// parent; otherwise "<base>:thread:<lowercased thread id>" (or the base itself when
/// `use_suffix` is false, as Discord does for thread channels whose peer id is already the
/// thread) and `parent_key` as the parent. Telegram DM threads pass "<chatId>:<threadId>".
ThreadSessionKeys resolve_thread_session_keys(std::string_view base_key, std::string_view thread_id,
                                              std::string_view parent_key = {}, bool use_suffix = true);

/// Peer id of a Telegram forum topic: "<chatId>:topic:<topicId>", or the chat id alone when
/// `topic_id` is empty (OpenClaw buildTelegramGroupPeerId). The topic's parent peer for binding
/// inheritance is {Group, chatId}.
std::string telegram_topic_peer_id(std::string_view chat_id, std::string_view topic_id);

/// The key a thread or topic session hangs off: the text before the last ":thread:" or ":topic:"
/// marker (whichever comes later), or nullopt when the key has neither (OpenClaw
/// src/config/sessions/delivery-info.ts).
std::optional<std::string> thread_parent_session_key(std::string_view session_key);

/// Group history key (not a session key): "<channel>:<account>:<group|channel>:<id>" lowercased,
/// empty parts as "unknown" (OpenClaw buildGroupHistoryKey). `kind` must not be Direct.
std::string group_history_key(std::string_view channel, std::string_view account_id, PeerKind kind,
                              std::string_view peer_id);

}  // namespace pincer::routing
