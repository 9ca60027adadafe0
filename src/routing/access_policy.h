// Who may talk to the agent through a channel (SPEC CH-3): the decision for one inbound message
// from `channels.<id>.dmPolicy | groupPolicy | allowFrom | groupAllowFrom | groups` and the
// senders approved by pairing. Pure: no I/O, no pairing store; the caller passes what it read.
//
// Direct messages (OpenClaw src/security/dm-policy-shared.ts resolveDmGroupAccessDecision):
//   dmPolicy disabled → drop dm_policy_disabled; open → allow dm_policy_open (OpenClaw's config
//   validation also demands allowFrom ["*"] for open); otherwise the sender is checked against
//   allowFrom plus the paired senders (the paired list is ignored under `allowlist`): a match →
//   allow dm_policy_allowlisted; no match → pair dm_policy_pairing_required under `pairing`
//   (the owner approves the code, SPEC CH-3), drop dm_policy_not_allowlisted under `allowlist`.
//
// Groups and channels (OpenClaw src/config/group-policy.ts resolveChannelGroupPolicy and
// resolveChannelGroupRequireMention, src/telegram/group-access.ts), in this order:
//   1. groupPolicy disabled → drop group_policy_disabled.
//   2. The chat allowlist `groups` (keys: chat ids — or, for a chat without an entry of its own,
//      the id of the conversation it is a thread of (AccessRequest::parent_group_id), else of the
//      server / workspace it belongs to (AccessRequest::space_id) —,
//      "*" = every chat) applies when groupPolicy is
//      allowlist or `groups` is non-empty: the chat must be listed, or "*" present, or (allowlist,
//      no `groups` at all, a non-empty sender allowlist) → else drop group_not_allowed.
//   3. `enabled: false` on the chat's entry (or, without one, on "*") → drop group_disabled.
//   4. Sender allowlist: the chat's own `allowFrom`, else `groupAllowFrom`, else `allowFrom`
//      (pairing approvals never count in groups). Under allowlist: a chat listed by id with no
//      sender entries is allowed as a whole; otherwise an empty list → drop
//      group_policy_empty_allowlist and an unlisted sender → drop group_policy_not_allowlisted.
//      Under open only a chat's own `allowFrom` restricts senders.
//   5. Mention gating: `requireMention` of the chat's entry, else of "*", else true. When required
//      and the channel can detect mentions, a message that neither mentions the bot, nor replies
//      to it (implicit mention), nor is an authorized control command → drop missing_mention
//      (OpenClaw src/channels/mention-gating.ts). Such messages may still be kept as group context
//      by the caller.
//   Otherwise allow group_policy_allowed.
//
// allowFrom entries (strings or numbers in the file): "*" matches everyone; an optional
// "<prefix>:" from ChannelAccessConfig::id_prefixes is stripped (e.g. "telegram:123", "tg:123");
// "@name" matches the sender's username, anything else the sender id; both compare trimmed and
// ASCII-lowercased. Usernames can change hands on some platforms (OpenClaw's Telegram accepts
// numeric ids only): adapters of such platforms leave SenderIdentity::username empty.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::routing {

/// `channels.<id>.dmPolicy` (default pairing).
enum class DmPolicy { Pairing, Allowlist, Open, Disabled };
/// `channels.<id>.groupPolicy` (default allowlist).
enum class GroupPolicy { Open, Allowlist, Disabled };

std::string_view to_string(DmPolicy policy);
std::string_view to_string(GroupPolicy policy);
/// Exact config spellings; nullopt otherwise.
std::optional<DmPolicy> parse_dm_policy(std::string_view raw);
std::optional<GroupPolicy> parse_group_policy(std::string_view raw);

/// One `channels.<id>.groups.<chatId>` entry (or "*").
struct GroupSettings {
  std::optional<bool> require_mention;
  std::optional<bool> enabled;
  std::optional<std::vector<std::string>> allow_from;  ///< sender allowlist of this chat
  /// Discord role ids whose members are allowed in this chat (OpenClaw's guild/channel `roles`):
  /// a sender in allow_from or with one of these roles is let in.
  std::optional<std::vector<std::string>> allow_roles;
};

/// The access settings of one channel account.
struct ChannelAccessConfig {
  DmPolicy dm_policy = DmPolicy::Pairing;
  GroupPolicy group_policy = GroupPolicy::Allowlist;
  std::vector<std::string> allow_from;
  std::optional<std::vector<std::string>> group_allow_from;  ///< nullopt/empty = use allow_from
  std::map<std::string, GroupSettings> groups;               ///< chat id (exact) or "*"
  /// Prefixes accepted in front of allowFrom ids, without the colon, e.g. {"telegram", "tg"}.
  std::vector<std::string> id_prefixes;
};

/// Who sent the message.
struct SenderIdentity {
  std::string id;        ///< stable platform user id, e.g. Telegram "123456789"
  std::string username;  ///< without "@"; "" when unknown or not a stable identity
};

/// One inbound message, as access control sees it.
struct AccessRequest {
  bool is_group = false;         ///< group or channel conversation (false = direct message)
  std::string group_id;          ///< the chat id when is_group
  /// The server / workspace the chat belongs to ("" = none; a Discord guild id): a `groups`
  /// entry keyed by it applies to each of its chats that has no entry of its own.
  std::string space_id;
  /// The conversation group_id is a thread of ("" = none): its `groups` entry applies when the
  /// thread has none of its own (before the space's).
  std::string parent_group_id;
  SenderIdentity sender;
  std::vector<std::string> sender_roles;  ///< the sender's role ids in the server (Discord guilds)
  bool was_mentioned = false;    ///< the bot was @mentioned / named
  bool implicit_mention = false; ///< e.g. a reply to one of the bot's messages
  bool can_detect_mention = true;
  bool authorized_control_command = false;  ///< a slash command from an allowed sender
  std::vector<std::string> paired_allow_from;  ///< senders approved by pairing (DMs only)
};

enum class AccessAction { Allow, Drop, Pair };

/// Why (OpenClaw's reason codes where it has them).
enum class AccessReason {
  DmPolicyOpen,             ///< "dm_policy_open"
  DmPolicyDisabled,         ///< "dm_policy_disabled"
  DmPolicyAllowlisted,      ///< "dm_policy_allowlisted"
  DmPolicyPairingRequired,  ///< "dm_policy_pairing_required"
  DmPolicyNotAllowlisted,   ///< "dm_policy_not_allowlisted"
  GroupPolicyAllowed,       ///< "group_policy_allowed"
  GroupPolicyDisabled,      ///< "group_policy_disabled"
  GroupNotAllowed,          ///< "group_not_allowed" (chat not in `groups`)
  GroupDisabled,            ///< "group_disabled" (`enabled: false`)
  GroupPolicyEmptyAllowlist,    ///< "group_policy_empty_allowlist"
  GroupPolicyNotAllowlisted,    ///< "group_policy_not_allowlisted"
  MissingMention,           ///< "missing_mention"
};
std::string_view to_string(AccessReason reason);

/// What to ask the owner to approve (SPEC CH-3 pairing).
struct PairingRequest {
  std::string sender_id;
  std::string username;
};

struct AccessDecision {
  AccessAction action = AccessAction::Drop;
  AccessReason reason = AccessReason::DmPolicyDisabled;
  std::optional<PairingRequest> pairing;  ///< set exactly when action is Pair
};

/// Normalised allowFrom list (see the header comment for the entry syntax).
struct AllowList {
  bool wildcard = false;
  std::vector<std::string> ids;        ///< lowercased
  std::vector<std::string> usernames;  ///< lowercased, without "@"
  bool empty() const { return !wildcard && ids.empty() && usernames.empty(); }
};
AllowList normalize_allow_from(const std::vector<std::string>& entries,
                               const std::vector<std::string>& id_prefixes = {});
/// True when the list has "*" or lists the sender's id or username. An empty list matches no one.
bool allow_list_matches(const AllowList& list, const SenderIdentity& sender);

/// The decision for one message (see the header comment).
AccessDecision decide_access(const ChannelAccessConfig& config, const AccessRequest& request);

}  // namespace pincer::routing
