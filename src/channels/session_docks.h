// Channel docking (SPEC RT-5; OpenClaw src/auto-reply/reply/commands-dock.ts): `/dock_<channel>`
// or `/dock-<channel>`, sent in a direct chat, moves where the replies of the chat's session go —
// to the sender's own account on <channel>, as `session.identityLinks` links it
// (routing/identity_links.h). The session key, its transcript and context stay; nothing is
// rebuilt. `/dock_<the channel the message came from>` brings the replies back.
//
// The commands exist for every configured channel (they are recognised from the command word, not
// from a list of names); `/dock_<channel>` for a channel that is not configured is refused with the
// configured ones named.
//
// While a session is docked, a reply to a message from the docking person (any of their linked
// accounts) goes to the dock address; a message from anyone else sharing the session (dmScope
// "main") is answered where it came from. The agent's last chat (cron/heartbeat delivery "last",
// channels/last_route.h) follows the replies. Docks are kept per session key in
// `<state>/channels/docks.json` (written atomically when they change):
//   {"agent:main:direct:alice": {"channel": "discord", "accountId": "default", "to": "user:456",
//    "peerId": "456", "identity": "alice", "fromChannel": "telegram", "at": 1733430000000}}
//
// Loop affinity: SessionDocks is event-loop only; the parse and plan functions are pure.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "routing/session_routing.h"

namespace pincer::channels {

/// The forms of the command word, for docs and /help: "dock_" and "dock-" followed by a channel id.
inline constexpr std::string_view kDockCommandPrefixes[] = {"dock_", "dock-"};

/// The target channel of a dock command: `text` is "/dock_<channel>" or "/dock-<channel>"
/// (case-insensitive, surrounding whitespace ignored, optionally "@bot" after the word when
/// `addressed_to_us`, nothing after it), <channel> letters, digits, "_" or "-". Lowercased.
/// nullopt: not a dock command.
std::optional<std::string> parse_dock_command(std::string_view text, bool addressed_to_us);

/// Where a docked session's replies go.
struct SessionDock {
  std::string channel;     ///< "discord"
  std::string account_id;  ///< the account of `channel` that sends them
  std::string to;          ///< the chat id on `channel` (Channel::direct_chat_id of `peer_id`)
  std::string peer_id;     ///< the person's id on `channel` (from the identity link)
  std::string identity;    ///< the identity link's canonical name
  std::string from_channel;  ///< where the /dock command was sent
  int64_t at_ms = 0;       ///< wall time of the /dock
};

/// One configured account, as docking sees it.
struct DockAccount {
  std::string channel;
  std::string account_id;
  bool running = false;
};

/// What a /dock command asks for.
struct DockRequest {
  std::string target;          ///< parse_dock_command's channel
  std::string channel;         ///< the message's channel
  std::string sender_id;
  bool is_group = false;
  std::optional<SessionDock> current;  ///< the session's dock now
};

/// The outcome of a /dock: a new dock, or clearing it (`dock` nullopt); `reply` confirms.
struct DockPlan {
  std::optional<SessionDock> dock;
  std::string reply;
};

/// Decides a /dock (refusals are errors with the text for the sender, code "DOCK_REFUSED"):
/// in a group; `target` not configured (names the configured channels); the replies go to
/// `target` already; the sender has no linked account on `target`; no running account of
/// `target`; `target` cannot start a chat (a sync webhook). `accounts` lists the configured accounts in
/// config order; `direct_chat_of(channel, account, peer)` names the chat of a peer. `target` equal to
/// the message's channel while docked elsewhere clears the dock.
Result<DockPlan> plan_dock(const DockRequest& request, const routing::IdentityLinks& links,
                           const std::vector<DockAccount>& accounts,
                           const std::function<std::string(const DockAccount&, const std::string& peer)>& direct_chat_of,
                           int64_t now_ms);

/// Whether a message from `sender_id` on `channel` (not a group) is answered at `dock`: the sender
/// belongs to the dock's identity link.
bool dock_applies(const SessionDock& dock, const routing::IdentityLinks& links, std::string_view channel,
                  std::string_view sender_id, bool is_group);

/// The docks of every session, persisted (see the top).
class SessionDocks {
 public:
  /// Reads `file` (missing = none; a broken file is logged and ignored).
  explicit SessionDocks(std::filesystem::path file);
  std::optional<SessionDock> get(const std::string& session_key) const;
  /// Sets (or with nullopt clears) the dock of `session_key` and saves. Errors: "IO_ERROR".
  Status set(const std::string& session_key, const std::optional<SessionDock>& dock);

 private:
  std::filesystem::path file_;
  std::map<std::string, SessionDock> docks_;
};

}  // namespace pincer::channels
