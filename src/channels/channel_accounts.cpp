#include "channels/channel_accounts.h"

#include <algorithm>
#include <set>

namespace pincer::channels {

using nlohmann::json;

namespace {

/// Keys a named account must give itself: credentials and endpoints that identify one account.
const std::set<std::string> kNotInherited = {
    "botToken", "webhookUrl", "webhookPath", "webhookSecret",  // telegram
    "nick", "password", "sasl", "nickserv",                   // irc
    "secret", "path", "callbackUrl",                          // webhook
    "token",                                                  // discord
    "accessToken", "userId",                                  // matrix
    "appToken", "signingSecret",                              // slack (and botToken, webhookPath)
    "address",                                                // email
};

/// Whether the channel object itself configures an account (holds the channel's credentials).
bool has_own_credentials(const std::string& channel, const json& c) {
  if (channel == "telegram") return c.contains("botToken");
  if (channel == "irc") return c.contains("host") && c.contains("nick");
  if (channel == "webhook") return c.contains("secret");
  if (channel == "discord") return c.contains("token");
  if (channel == "matrix") return c.contains("accessToken");
  if (channel == "slack") return c.contains("botToken");
  if (channel == "email") return c.contains("address");
  return true;  // unknown channels: the object is the account
}

json base_of(const json& c) {
  json base = c;
  base.erase("accounts");
  return base;
}

json merged(const json& base, const json& entry, bool named) {
  json out = base;
  if (named) {
    for (const auto& key : kNotInherited) out.erase(key);
  }
  for (const auto& [key, value] : entry.items()) out[key] = value;
  return out;
}

/// The accounts of channel `c`; `disabled_too`: also those `enabled: false` turns off.
void add_accounts(const std::string& channel, const json& c, std::vector<ChannelAccount>& out, bool disabled_too = false) {
  if (!c.is_object() || (!disabled_too && !c.value("enabled", true))) return;
  const std::string prefix = "channels." + channel;
  const json accounts = c.value("accounts", json::object());
  const json base = base_of(c);
  if (accounts.empty()) {
    out.push_back({channel, "default", prefix, base});
    return;
  }
  if (!accounts.contains("default") && has_own_credentials(channel, c)) out.push_back({channel, "default", prefix, base});
  for (const auto& [id, entry] : accounts.items()) {
    if (!entry.is_object() || (!disabled_too && !entry.value("enabled", true))) continue;
    out.push_back({channel, id, prefix + ".accounts." + id, merged(base, entry, id != "default")});
  }
}

}  // namespace

std::vector<ChannelAccount> list_channel_accounts(const json& channels) {
  std::vector<ChannelAccount> out;
  if (!channels.is_object()) return out;
  for (const auto& [channel, c] : channels.items()) add_accounts(channel, c, out);
  return out;
}

std::vector<ChannelAccount> list_disabled_channel_accounts(const json& channels) {
  std::vector<ChannelAccount> out;
  if (!channels.is_object()) return out;
  for (const auto& [channel, c] : channels.items()) {
    std::vector<ChannelAccount> on, all;
    add_accounts(channel, c, on);
    add_accounts(channel, c, all, true);
    for (auto& a : all) {
      const bool enabled = std::any_of(on.begin(), on.end(), [&a](const ChannelAccount& e) { return e.account_id == a.account_id; });
      if (!enabled) out.push_back(std::move(a));
    }
  }
  return out;
}

json channel_account_config(const json& channels, const std::string& channel, const std::string& account_id) {
  if (!channels.is_object() || !channels.contains(channel) || !channels[channel].is_object()) return json::object();
  const json& c = channels[channel];
  const json accounts = c.value("accounts", json::object());
  if (accounts.contains(account_id) && accounts[account_id].is_object()) {
    return merged(base_of(c), accounts[account_id], account_id != "default");
  }
  return base_of(c);
}

}  // namespace pincer::channels
