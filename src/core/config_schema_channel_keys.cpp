// Per-channel key sets of the `channels` section (contract in config_schema_channel_keys.h). The
// keys themselves (types, docs, defaults) are declared once, in config_schema_channels.cpp; this
// file only says which channel reads which of them.
#include "core/config_schema_channel_keys.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {
namespace detail_config_schema_channel_keys {

/// One channel: its id, how its block is described, the keys it reads besides the shared ones,
/// its `mode` values (none: no `mode` key), hints for other channels' spellings, and the shared
/// keys it does not read (refused as unknown there: a setting that does nothing is a trap).
struct ChannelKeySet {
  const char* id;
  const char* description;
  std::vector<std::string> own;
  std::vector<std::string> modes;
  std::vector<std::pair<std::string, std::string>> hints;
  std::vector<std::string> not_read = {};
};

/// Keys every channel reads (channel_access.cpp, the chunker and reply streaming, the account
/// list): enabling, naming, who may talk to the bot, how replies are split and streamed.
const std::vector<std::string>& channel_keys_shared() {
  static const std::vector<std::string> keys = {
      "enabled",   "name",           "dm",     "dmPolicy",       "allowFrom", "groupPolicy",
      "groupAllowFrom", "groups",    "textChunkLimit", "chunkMode", "streaming", "streamMode",
      "blockStreaming", "blockStreamingCoalesce"};
  return keys;
}

const std::vector<ChannelKeySet>& channel_key_sets() {
  static const std::vector<ChannelKeySet> sets = {
      {"telegram", "The Telegram channel (a bot from @BotFather; docs/channels.md).",
       {"botToken", "apiRoot", "webhookUrl", "webhookPath", "webhookSecret", "pollTimeoutSeconds", "commands"},
       {},
       {{"token", "botToken"}, {"accessToken", "botToken"}}},
      {"discord", "The Discord channel (a bot of the Developer Portal; docs/channels.md).",
       {"token", "apiRoot", "ackReaction", "commands", "slashCommand", "guilds"},
       {},
       {{"botToken", "token"}, {"accessToken", "token"}}},
      {"slack", "The Slack channel (a Slack app, Socket Mode or the HTTP Events API; docs/channels.md).",
       {"botToken", "appToken", "apiRoot", "mode", "signingSecret", "webhookPath", "slashCommand", "channels"},
       {"socket", "http"},
       {{"token", "botToken"}, {"accessToken", "botToken"}}},
      {"matrix", "The Matrix channel (a bot account on a homeserver; docs/channels.md).",
       {"homeserver", "accessToken", "userId", "autoJoin", "autoJoinAllowlist", "rooms"},
       {},
       {{"botToken", "accessToken"}, {"token", "accessToken"}, {"password", "accessToken"}, {"baseUrl", "homeserver"}}},
      {"email", "The e-mail channel (IMAP in, SMTP out; docs/channels.md).",
       {"address", "imap", "smtp", "allowInsecure"},
       {},
       {{"password", "imap.password"}, {"host", "imap.host"}, {"user", "imap.user"}},
       // Mail has no group chats: every message is a direct one (dmPolicy, allowFrom apply).
       {"groupPolicy", "groupAllowFrom", "groups"}},
      {"irc", "The IRC channel (docs/channels.md).",
       {"host", "port", "tls", "nick", "username", "realname", "password", "sasl", "nickserv", "channels"},
       {},
       {{"server", "host"}}},
      {"webhook", "The webhook channel: signed HTTP requests in, replies in the response or POSTed back "
                  "(docs/channels.md).",
       {"secret", "path", "mode", "callbackUrl", "maxBodyBytes", "replyTimeoutSeconds"},
       {"sync", "callback"},
       {{"token", "secret"}, {"webhookSecret", "secret"}, {"webhookPath", "path"}},
       // The signature authenticates every sender (no DM policy, pairing or allowlist) and a
       // request is never a group message.
       {"dm", "dmPolicy", "allowFrom", "groupPolicy", "groupAllowFrom", "groups"}},
  };
  return sets;
}

bool channel_keys_contain(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

/// `every_key` (an object node) keeping only `set`'s keys — `mode` narrowed to its modes —
/// with its hints; `accounts` is left out (the caller adds the channel's own).
Node channel_keys_only(const Node& every_key, const ChannelKeySet& set, const std::string& description) {
  std::vector<Field> fields;
  for (const Field& f : every_key.fields()) {
    const bool shared = channel_keys_contain(channel_keys_shared(), f.name) && !channel_keys_contain(set.not_read, f.name);
    if (!shared && !channel_keys_contain(set.own, f.name)) continue;
    if (f.name == "mode") {
      fields.push_back(field("mode", one_of(set.modes).doc(f.node.description())));
    } else {
      fields.push_back(f);
    }
  }
  Node out = object(std::move(fields)).doc(description);
  for (const auto& h : set.hints) out = std::move(out).hint(h.first, h.second);
  return out;
}

}  // namespace detail_config_schema_channel_keys

Node channels_by_channel(const Node& every_key) {
  namespace d = detail_config_schema_channel_keys;
  const Field* accounts = every_key.find("accounts");
  std::vector<Field> channels;
  for (const auto& set : d::channel_key_sets()) {
    Node block = d::channel_keys_only(every_key, set, set.description);
    std::vector<Field> fields = block.fields();
    if (accounts != nullptr) {
      Node account = d::channel_keys_only(accounts->node.item(), set, "Settings of one bot account of the channel.");
      fields.push_back(field("accounts", map_of(std::move(account)).doc(accounts->node.description())));
    }
    Node with_accounts = object(std::move(fields)).doc(set.description).only_when_written();
    for (const auto& h : set.hints) with_accounts = std::move(with_accounts).hint(h.first, h.second);
    channels.push_back(field(set.id, std::move(with_accounts)));
  }
  return object(std::move(channels));
}

}  // namespace pincer::config::schema
