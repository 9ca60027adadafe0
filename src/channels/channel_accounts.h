// The bot accounts of each configured channel (SPEC CH-6, as OpenClaw's `channels.<id>.accounts`):
//
//   channels.telegram = { dmPolicy: "pairing", botToken: "A",          // the "default" account
//                         accounts: { alerts: { botToken: "B", dmPolicy: "open" } } }
//
// Without `accounts` a channel has one account, "default", configured by the channel object
// itself. With `accounts`, each entry is an account whose settings are the channel object's
// (without `accounts`) overlaid key by key by the entry's own (a shallow merge, as OpenClaw); the
// channel object is also the "default" account when it holds the channel's credentials itself
// (telegram `botToken`, irc `host`, webhook `secret`) and `accounts` has no "default" entry.
// Credentials and endpoints are never inherited by a named account (two accounts polling one bot
// token, or serving one webhook path, would fight): see kNotInherited in the .cpp.
//
// `enabled: false` on the channel disables every account; on an entry, that account.
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::channels {

struct ChannelAccount {
  std::string channel;      ///< "telegram"
  std::string account_id;   ///< "default", "alerts" …
  std::string config_path;  ///< for errors: "channels.telegram" or "channels.telegram.accounts.alerts"
  nlohmann::json config;    ///< the merged settings (no `accounts` key)
};

/// Every enabled account of every channel in `channels` (the `channels` config object), in
/// config order of channels, then "default" first, then the named accounts in key order.
std::vector<ChannelAccount> list_channel_accounts(const nlohmann::json& channels);

/// The accounts `enabled: false` turns off (on the channel: all of its accounts; on an entry: that
/// one), in the same order — what `channels.status` lists as disabled.
std::vector<ChannelAccount> list_disabled_channel_accounts(const nlohmann::json& channels);

/// The merged settings of one account ({} when the channel or account is not configured).
/// Used by the inbound pipeline for access control (dmPolicy, allowFrom, groups …).
nlohmann::json channel_account_config(const nlohmann::json& channels, const std::string& channel,
                                      const std::string& account_id);

}  // namespace pincer::channels
