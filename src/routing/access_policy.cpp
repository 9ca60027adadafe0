#include "routing/access_policy.h"

#include <algorithm>

#include "routing/text_util.h"

namespace pincer::routing {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

AccessDecision allow(AccessReason reason) { return {AccessAction::Allow, reason, std::nullopt}; }
AccessDecision drop(AccessReason reason) { return {AccessAction::Drop, reason, std::nullopt}; }

const GroupSettings* find_group(const ChannelAccessConfig& config, const std::string& id) {
  const auto it = config.groups.find(id);
  return it == config.groups.end() ? nullptr : &it->second;
}

AccessDecision decide_direct(const ChannelAccessConfig& config, const AccessRequest& request) {
  switch (config.dm_policy) {
    case DmPolicy::Disabled: return drop(AccessReason::DmPolicyDisabled);
    case DmPolicy::Open: return allow(AccessReason::DmPolicyOpen);
    case DmPolicy::Pairing:
    case DmPolicy::Allowlist: break;
  }
  std::vector<std::string> entries = config.allow_from;
  if (config.dm_policy != DmPolicy::Allowlist) {
    entries.insert(entries.end(), request.paired_allow_from.begin(), request.paired_allow_from.end());
  }
  if (allow_list_matches(normalize_allow_from(entries, config.id_prefixes), request.sender)) {
    return allow(AccessReason::DmPolicyAllowlisted);
  }
  if (config.dm_policy == DmPolicy::Pairing) {
    return {AccessAction::Pair, AccessReason::DmPolicyPairingRequired,
            PairingRequest{std::string(text::trim(request.sender.id)), std::string(text::trim(request.sender.username))}};
  }
  return drop(AccessReason::DmPolicyNotAllowlisted);
}

AccessDecision decide_group(const ChannelAccessConfig& config, const AccessRequest& request) {
  if (config.group_policy == GroupPolicy::Disabled) return drop(AccessReason::GroupPolicyDisabled);

  const std::string group_id(text::trim(request.group_id));
  const GroupSettings* chat = group_id.empty() ? nullptr : find_group(config, group_id);
  // A chat without an entry of its own takes its parent conversation's, else its server's.
  const std::string parent_id(text::trim(request.parent_group_id));
  if (!chat && !parent_id.empty()) chat = find_group(config, parent_id);
  const std::string space_id(text::trim(request.space_id));
  if (!chat && !space_id.empty()) chat = find_group(config, space_id);
  const GroupSettings* wildcard = find_group(config, "*");

  // Sender allowlist of this chat: its own (senders and/or roles), else groupAllowFrom, else allowFrom.
  const std::vector<std::string>* roles = chat && chat->allow_roles && !chat->allow_roles->empty() ? &*chat->allow_roles : nullptr;
  const bool chat_has_own_list = roles || (chat && chat->allow_from && !chat->allow_from->empty());
  static const std::vector<std::string> kNoSenders;
  const std::vector<std::string>* sender_entries = &config.allow_from;
  if (chat_has_own_list) {
    sender_entries = chat->allow_from ? &*chat->allow_from : &kNoSenders;
  } else if (config.group_allow_from && !config.group_allow_from->empty()) {
    sender_entries = &*config.group_allow_from;
  }
  const AllowList senders = normalize_allow_from(*sender_entries, config.id_prefixes);
  auto sender_allowed = [&] {
    if (allow_list_matches(senders, request.sender)) return true;
    return roles && std::any_of(roles->begin(), roles->end(), [&](const std::string& r) {
             return std::find(request.sender_roles.begin(), request.sender_roles.end(), r) != request.sender_roles.end();
           });
  };

  const bool allowlist = config.group_policy == GroupPolicy::Allowlist;
  if (allowlist || !config.groups.empty()) {
    const bool sender_filter_bypass = allowlist && config.groups.empty() && !senders.empty();
    if (!(wildcard || chat || sender_filter_bypass)) return drop(AccessReason::GroupNotAllowed);
  }

  const std::optional<bool> enabled = chat && chat->enabled ? chat->enabled : (wildcard ? wildcard->enabled : std::nullopt);
  if (enabled == false) return drop(AccessReason::GroupDisabled);

  if (allowlist) {
    const bool listed_by_id = chat != nullptr;
    if (!(listed_by_id && senders.empty() && !roles)) {
      if (senders.empty() && !roles) return drop(AccessReason::GroupPolicyEmptyAllowlist);
      if (!sender_allowed()) return drop(AccessReason::GroupPolicyNotAllowlisted);
    }
  } else if (chat_has_own_list && !sender_allowed()) {
    return drop(AccessReason::GroupPolicyNotAllowlisted);
  }

  bool require_mention = true;
  if (chat && chat->require_mention) {
    require_mention = *chat->require_mention;
  } else if (wildcard && wildcard->require_mention) {
    require_mention = *wildcard->require_mention;
  }
  const bool mentioned = request.was_mentioned || request.implicit_mention || request.authorized_control_command;
  if (require_mention && request.can_detect_mention && !mentioned) return drop(AccessReason::MissingMention);
  return allow(AccessReason::GroupPolicyAllowed);
}

}  // namespace

std::string_view to_string(DmPolicy policy) {
  switch (policy) {
    case DmPolicy::Pairing: return "pairing";
    case DmPolicy::Allowlist: return "allowlist";
    case DmPolicy::Open: return "open";
    case DmPolicy::Disabled: return "disabled";
  }
  return "pairing";
}

std::string_view to_string(GroupPolicy policy) {
  switch (policy) {
    case GroupPolicy::Open: return "open";
    case GroupPolicy::Allowlist: return "allowlist";
    case GroupPolicy::Disabled: return "disabled";
  }
  return "allowlist";
}

std::optional<DmPolicy> parse_dm_policy(std::string_view raw) {
  if (raw == "pairing") return DmPolicy::Pairing;
  if (raw == "allowlist") return DmPolicy::Allowlist;
  if (raw == "open") return DmPolicy::Open;
  if (raw == "disabled") return DmPolicy::Disabled;
  return std::nullopt;
}

std::optional<GroupPolicy> parse_group_policy(std::string_view raw) {
  if (raw == "open") return GroupPolicy::Open;
  if (raw == "allowlist") return GroupPolicy::Allowlist;
  if (raw == "disabled") return GroupPolicy::Disabled;
  return std::nullopt;
}

std::string_view to_string(AccessReason reason) {
  switch (reason) {
    case AccessReason::DmPolicyOpen: return "dm_policy_open";
    case AccessReason::DmPolicyDisabled: return "dm_policy_disabled";
    case AccessReason::DmPolicyAllowlisted: return "dm_policy_allowlisted";
    case AccessReason::DmPolicyPairingRequired: return "dm_policy_pairing_required";
    case AccessReason::DmPolicyNotAllowlisted: return "dm_policy_not_allowlisted";
    case AccessReason::GroupPolicyAllowed: return "group_policy_allowed";
    case AccessReason::GroupPolicyDisabled: return "group_policy_disabled";
    case AccessReason::GroupNotAllowed: return "group_not_allowed";
    case AccessReason::GroupDisabled: return "group_disabled";
    case AccessReason::GroupPolicyEmptyAllowlist: return "group_policy_empty_allowlist";
    case AccessReason::GroupPolicyNotAllowlisted: return "group_policy_not_allowlisted";
    case AccessReason::MissingMention: return "missing_mention";
  }
  return "dm_policy_disabled";
}

AllowList normalize_allow_from(const std::vector<std::string>& entries, const std::vector<std::string>& id_prefixes) {
  AllowList list;
  for (const std::string& raw : entries) {
    std::string entry(text::trim(raw));
    if (entry.empty()) continue;
    if (entry == "*") {
      list.wildcard = true;
      continue;
    }
    const std::string lowered = text::lower(entry);
    for (const std::string& prefix : id_prefixes) {
      const std::string p = text::token(prefix) + ":";
      if (p.size() > 1 && lowered.starts_with(p)) {
        entry = std::string(text::trim(std::string_view(entry).substr(p.size())));
        break;
      }
    }
    if (entry.starts_with('@')) {
      std::string name = text::token(std::string_view(entry).substr(1));
      if (!name.empty()) list.usernames.push_back(std::move(name));
    } else if (!entry.empty()) {
      list.ids.push_back(text::lower(entry));
    }
  }
  return list;
}

bool allow_list_matches(const AllowList& list, const SenderIdentity& sender) {
  if (list.wildcard) return true;
  const std::string id = text::token(sender.id);
  if (!id.empty() && contains(list.ids, id)) return true;
  std::string_view name = text::trim(sender.username);
  if (name.starts_with('@')) name.remove_prefix(1);
  const std::string username = text::lower(name);
  return !username.empty() && contains(list.usernames, username);
}

AccessDecision decide_access(const ChannelAccessConfig& config, const AccessRequest& request) {
  return request.is_group ? decide_group(config, request) : decide_direct(config, request);
}

}  // namespace pincer::routing
