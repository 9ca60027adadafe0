#include "routing/session_routing.h"

#include "routing/text_util.h"
#include "store/session_keys.h"

namespace pincer::routing {
namespace {

std::string channel_token(std::string_view channel) {
  std::string c = text::token(channel);
  return c.empty() ? std::string("unknown") : c;
}

}  // namespace

std::string_view to_string(PeerKind kind) {
  switch (kind) {
    case PeerKind::Direct: return "direct";
    case PeerKind::Group: return "group";
    case PeerKind::Channel: return "channel";
  }
  return "direct";
}

std::optional<PeerKind> parse_peer_kind(std::string_view raw) {
  const std::string v = text::token(raw);
  if (v == "direct" || v == "dm") return PeerKind::Direct;
  if (v == "group") return PeerKind::Group;
  if (v == "channel") return PeerKind::Channel;
  return std::nullopt;
}

std::string_view to_string(DmScope scope) {
  switch (scope) {
    case DmScope::Main: return "main";
    case DmScope::PerPeer: return "per-peer";
    case DmScope::PerChannelPeer: return "per-channel-peer";
    case DmScope::PerAccountChannelPeer: return "per-account-channel-peer";
  }
  return "main";
}

std::optional<DmScope> parse_dm_scope(std::string_view raw) {
  if (raw == "main") return DmScope::Main;
  if (raw == "per-peer") return DmScope::PerPeer;
  if (raw == "per-channel-peer") return DmScope::PerChannelPeer;
  if (raw == "per-account-channel-peer") return DmScope::PerAccountChannelPeer;
  return std::nullopt;
}

std::optional<std::string> resolve_linked_peer_id(const IdentityLinks& links, std::string_view channel,
                                                  std::string_view peer_id) {
  const std::string_view trimmed = text::trim(peer_id);
  if (trimmed.empty()) return std::nullopt;
  const std::string bare = text::lower(trimmed);
  const std::string ch = text::token(channel);
  const std::string scoped = ch.empty() ? std::string() : text::token(ch + ":" + std::string(trimmed));
  for (const auto& [canonical, ids] : links) {
    const std::string_view name = text::trim(canonical);
    if (name.empty()) continue;
    for (const std::string& id : ids) {
      const std::string normalized = text::token(id);
      if (normalized.empty()) continue;
      if (normalized == bare || (!scoped.empty() && normalized == scoped)) return std::string(name);
    }
  }
  return std::nullopt;
}

std::string build_session_key(const SessionKeyInput& in) {
  const std::string agent = store::normalize_agent_id(in.agent_id);
  std::string key;
  if (!in.peer || in.peer->kind == PeerKind::Direct) {
    std::string peer_id;
    if (in.peer) {
      peer_id = std::string(text::trim(in.peer->id));
      if (peer_id.empty()) peer_id = "unknown";
    }
    if (in.dm_scope != DmScope::Main && in.identity_links != nullptr) {
      if (auto linked = resolve_linked_peer_id(*in.identity_links, in.channel, peer_id)) peer_id = *linked;
    }
    peer_id = text::lower(peer_id);
    if (peer_id.empty() || in.dm_scope == DmScope::Main) {
      key = store::agent_main_session_key(agent, in.main_key);
    } else if (in.dm_scope == DmScope::PerAccountChannelPeer) {
      key = "agent:" + agent + ":" + channel_token(in.channel) + ":" +
            store::normalize_account_id(in.account_id) + ":direct:" + peer_id;
    } else if (in.dm_scope == DmScope::PerChannelPeer) {
      key = "agent:" + agent + ":" + channel_token(in.channel) + ":direct:" + peer_id;
    } else {
      key = "agent:" + agent + ":direct:" + peer_id;
    }
  } else {
    std::string id = text::lower(text::trim(in.peer->id));
    if (id.empty()) id = "unknown";
    key = "agent:" + agent + ":" + channel_token(in.channel) + ":" + std::string(to_string(in.peer->kind)) +
          ":" + id;
  }
  return text::lower(key);
}

ThreadSessionKeys resolve_thread_session_keys(std::string_view base_key, std::string_view thread_id,
                                              std::string_view parent_key, bool use_suffix) {
  const std::string_view thread = text::trim(thread_id);
  if (thread.empty()) return {std::string(base_key), {}};
  ThreadSessionKeys keys;
  keys.session_key = use_suffix ? std::string(base_key) + ":thread:" + text::lower(thread) : std::string(base_key);
  keys.parent_session_key = std::string(parent_key);
  return keys;
}

std::string telegram_topic_peer_id(std::string_view chat_id, std::string_view topic_id) {
  const std::string_view topic = text::trim(topic_id);
  if (topic.empty()) return std::string(chat_id);
  return std::string(chat_id) + ":topic:" + std::string(topic);
}

std::optional<std::string> thread_parent_session_key(std::string_view session_key) {
  const auto thread = session_key.rfind(":thread:");
  const auto topic = session_key.rfind(":topic:");
  std::size_t cut = std::string_view::npos;
  if (thread != std::string_view::npos) cut = thread;
  if (topic != std::string_view::npos && (cut == std::string_view::npos || topic > cut)) cut = topic;
  if (cut == std::string_view::npos || cut == 0) return std::nullopt;
  return std::string(session_key.substr(0, cut));
}

std::string group_history_key(std::string_view channel, std::string_view account_id, PeerKind kind,
                              std::string_view peer_id) {
  std::string id = text::lower(text::trim(peer_id));
  if (id.empty()) id = "unknown";
  return channel_token(channel) + ":" + store::normalize_account_id(account_id) + ":" +
         std::string(to_string(kind)) + ":" + id;
}

}  // namespace pincer::routing
