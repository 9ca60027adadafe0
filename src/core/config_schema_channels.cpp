// The `bindings` and `channels` sections of pincer.json (RT-3, CH-3, CH-4, CH-6; see
// config_schema_channels.h).
#include "core/config_schema_channels.h"
#include "core/config_schema_agents.h"
#include "core/config_schema_channel_keys.h"

#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {

namespace detail_config_schema_channels {

Node binding_entry() {
  return object({
      field("type", one_of({"route", "acp"}).doc(
                        "`route` (or omitted) routes messages to `agentId`; `acp` bindings are "
                        "accepted for OpenClaw compatibility and not used.")),
      field("agentId", string().required().doc(
                           "Agent that receives the matching messages. An id not in "
                           "`agents.list` falls back to the default agent.")),
      field("comment", string().doc("Free text for people reading the file.")),
      field("match",
            object({
                field("channel", string().required().doc("Channel id, e.g. `telegram`.")),
                field("accountId", string().doc(
                                       "Bot account of the channel; omitted = only the `default` "
                                       "account, `*` = any account.")),
                field("peer",
                      object({
                          field("kind", one_of({"direct", "group", "channel", "dm"})
                                            .required()
                                            .doc("Conversation kind (`dm` is a legacy alias of "
                                                 "`direct`; `group` and `channel` match each "
                                                 "other).")),
                          field("id", string().required().doc(
                                          "Platform id of the user, group or channel, exactly.")),
                      }).doc("One conversation. A thread matches its parent's binding when it "
                             "has none of its own.")),
                field("guildId", string().doc("Discord server id.")),
                field("teamId", string().doc("Slack/Teams workspace id.")),
                field("roles", array_of(string()).doc(
                                   "With `guildId`: the sender must have one of these role ids.")),
            })
                .required()
                .doc("What a message must match. The most specific binding wins: peer, parent "
                     "peer, guild + roles, guild, team, account, channel; then the default "
                     "agent (RT-3).")),
      field("acp", any().doc("Settings of an `acp` binding; not used.")),
  }).doc("One binding.");
}

Node channel_group_entry() {
  return object({
      field("requireMention", boolean().doc(
                                  "Answer only when the bot is mentioned or replied to (default "
                                  "true; a `*` entry sets it for every chat).")),
      field("enabled", boolean().doc("`false` ignores this chat.")),
      field("allow", boolean().doc("OpenClaw's spelling of `enabled` (which wins when both are set).")),
      field("allowFrom", array_of(union_of({string(), integer()})).doc(
                             "Senders allowed in this chat, overriding `groupAllowFrom`.")),
      field("users", array_of(union_of({string(), integer()})).doc(
                         "OpenClaw's spelling of `allowFrom` (Discord guilds; `allowFrom` wins).")),
      field("roles", array_of(union_of({string(), integer()})).doc(
                         "Discord: role ids whose members are allowed in this chat, besides the senders "
                         "of `allowFrom`/`users` (either one lets a sender in). Other channels have no "
                         "roles: there it admits no one by itself, and the config checks warn.")),
      field("tools", object({
                         field("allow", array_of(string()).doc("When non-empty, runs of this chat get only these tools.")),
                         field("deny", array_of(string()).doc("Tools runs of this chat never get.")),
                     }).doc("The group layer of the tool policy (TL-2), for runs started in this chat "
                            "(the `*` entry's when the chat has none). Direct messages skip it.")),
  }).doc("Settings of one group chat.");
}

/// `channels.<id>` (with_accounts) and `channels.<id>.accounts.<account>` (CH-6): the same keys.
Node channel_entry(bool with_accounts = true) {
  std::vector<Field> fields = {
      field("enabled", boolean().doc("`false` keeps the channel (or account) configured but not running "
                                     "(default true).")),
      field("name", string().doc("Display name of the account, for people reading status output. "
                                 "E-mail: the display name of the replies' From (default `Pincer`).")),
      field("botToken", string().sensitive().doc(
                            "Telegram: the bot token from @BotFather (or `${TELEGRAM_BOT_TOKEN}`). "
                            "Required to run the Telegram channel. Slack: the Bot User OAuth Token "
                            "(`xoxb-…`, OAuth & Permissions; or `${SLACK_BOT_TOKEN}`), required.")),
      field("appToken", string().sensitive().doc(
                            "Slack: the app-level token with `connections:write` (`xapp-…`, Basic "
                            "Information → App-Level Tokens; or `${SLACK_APP_TOKEN}`). Required for "
                            "Socket Mode (not used with `mode: \"http\"`).")),
      field("apiRoot", string().format("http-url").doc(
                           "Telegram: Bot API server (default `https://api.telegram.org`; a "
                           "self-hosted Bot API server or a test server). Discord: REST API root "
                           "(default `https://discord.com/api`; the Gateway URL comes from its "
                           "`GET /gateway/bot`). Slack: Web API root (default `https://slack.com/api`; "
                           "the Socket Mode URL comes from its `apps.connections.open`).")),
      field("token", string().sensitive().doc(
                         "Discord: the bot token from the Developer Portal (Bot → Token; or "
                         "`${DISCORD_BOT_TOKEN}`), without a `Bot ` prefix. Required to run the "
                         "Discord channel.")),
      field("ackReaction", string().doc(
                               "Discord: an emoji (e.g. `👀`, or `name:id` of a custom emoji) the bot "
                               "adds to each message it accepts, before it answers (default: none).")),
      field("commands", object({
                            field("native", boolean().def(true).doc(
                                                "Discord: register the chat and skill commands as slash "
                                                "commands on connect; `false` removes the ones registered "
                                                "before. Telegram: set them as the bot's command menu "
                                                "(setMyCommands); `false` clears it.")),
                        }).doc("Discord, Telegram: native commands (UI-4).")),
      field("slashCommand", object({
                                field("ephemeral", boolean().def(true).doc(
                                                       "Discord: replies to a slash command are shown only "
                                                       "to the person who ran it. Slack: the same, through the "
                                                       "command's response_url; `false` posts them in the "
                                                       "conversation.")),
                                field("enabled", boolean().doc(
                                                     "Slack: answer the slash command `/<name>` (created in the "
                                                     "Slack app; default false, as OpenClaw).")),
                                field("name", string().doc(
                                                  "Slack: the command's name without the slash (default "
                                                  "`pincer`): `/pincer /new` runs `/new`, `/pincer <text>` "
                                                  "is a message.")),
                                field("sessionPrefix", string().doc(
                                                           "Slack: accepted for OpenClaw configs; not used (Pincer "
                                                           "runs a slash command in the conversation's session).")),
                            }).doc("Discord: how slash commands are answered. Slack: the slash command "
                                   "(channels.md).")),
      field("homeserver", string().format("http-url").doc(
                              "Matrix: the homeserver's client-server API URL (e.g. "
                              "`https://matrix.example.org`). Required to run the Matrix channel.")),
      field("accessToken", string().sensitive().doc(
                               "Matrix: the bot account's access token (or `${MATRIX_ACCESS_TOKEN}`; "
                               "channels.md says how to get one). Required to run the Matrix channel.")),
      field("userId", string().doc(
                          "Matrix: the bot's full user id (`@pincer:example.org`); optional, checked "
                          "against the token's owner (`/account/whoami`).")),
      field("autoJoin", one_of({"always", "allowlist", "off"})
                            .def("off")
                            .doc("Matrix: which room invitations the bot accepts: `always`, "
                                 "`allowlist` (rooms, aliases or inviters in `autoJoinAllowlist`) or "
                                 "`off` (join by hand).")),
      field("autoJoinAllowlist", array_of(string()).doc(
                                     "Matrix, `autoJoin: \"allowlist\"`: room ids (`!id:server`), "
                                     "aliases (`#room:server`) or inviting user ids (`@user:server`) "
                                     "whose invitations are accepted; `*` = any.")),
      field("address", string().doc(
                           "E-mail: the bot's own address (`pincer@example.org`): the mailbox it reads "
                           "and the From of its replies. Required to run the e-mail channel.")),
      field("imap", object({
                        field("host", string().doc("The IMAP server (`imap.example.org`). Required.")),
                        field("port", integer().min(1).max(65535).doc(
                                          "Default 993 with `security: \"tls\"`, else 143.")),
                        field("security", one_of({"tls", "starttls", "none"}).doc(
                                              "`tls` (default: TLS from the first byte), `starttls` (upgraded "
                                              "after connecting) or `none` (only to a loopback host "
                                              "unless `allowInsecure`).")),
                        field("user", string().doc("Login name (default: `address`).")),
                        field("password", string().sensitive().doc(
                                              "The mailbox password or an app password (or "
                                              "`${EMAIL_PASSWORD}`). Required.")),
                        field("mailbox", string().doc(
                                             "The mailbox read for new mail (default `INBOX`).")),
                    }).doc("E-mail: where mail to the bot is read (IMAP with IDLE). The first start "
                           "answers nothing already in the mailbox.")),
      field("smtp", object({
                        field("host", string().doc("The SMTP submission server (`smtp.example.org`). Required.")),
                        field("port", integer().min(1).max(65535).doc(
                                          "Default 465 with `tls`, 587 with `starttls`, 25 with `none`.")),
                        field("security", one_of({"tls", "starttls", "none"}).doc(
                                              "As `imap.security`.")),
                        field("user", string().doc("Login name (default: `imap.user`).")),
                        field("password", string().sensitive().doc("Password (default: `imap.password`).")),
                    }).doc("E-mail: where replies are sent (one e-mail per reply, in the thread).")),
      field("allowInsecure", boolean().doc(
                                 "E-mail: allow `security: \"none\"` to a host that is not loopback "
                                 "(the password then travels unencrypted; default false).")),
      field("dm", object({
                      field("enabled", boolean().doc("`false` ignores direct messages.")),
                      field("policy", one_of({"pairing", "allowlist", "open", "disabled"}).doc(
                                          "As `dmPolicy` (which wins when both are set).")),
                      field("allowFrom", array_of(union_of({string(), integer()})).doc(
                                             "As `allowFrom` (which wins when both are set).")),
                  }).doc("OpenClaw's spelling of direct-message access (Matrix, Discord, Slack …); "
                         "`dmPolicy` and `allowFrom` win when set.")),
      field("rooms", map_of(channel_group_entry()).doc(
                         "Matrix: settings of rooms by room id (`!id:server`), OpenClaw's older "
                         "spelling of `groups`; an entry in `groups` wins.")),
      field("secret", string().sensitive().doc(
                          "Webhook: HMAC-SHA256 key; callers sign `<timestamp>.<body>` "
                          "(`X-Pincer-Timestamp: <Unix seconds>`, `X-Pincer-Signature: "
                          "sha256=<hex>`; see channels.md). At least 16 characters.")),
      field("path", string().doc("Webhook: the HTTP path on the gateway's port (default `/webhook`).")),
      field("mode", one_of({"sync", "callback", "socket", "http"}).doc(
                        "Webhook: `sync` = the reply is the HTTP response (default); `callback` = "
                        "answer 202 at once and POST the reply to `callbackUrl`. Slack: `socket` "
                        "(Socket Mode, the default: needs `appToken`) or `http` (the HTTP Events API: "
                        "Slack POSTs to `webhookPath`, signed with `signingSecret`).")),
      field("signingSecret", string().sensitive().doc(
                                 "Slack, `mode: \"http\"`: the app's Signing Secret (Basic Information → App "
                                 "Credentials; or `${SLACK_SIGNING_SECRET}`). Requests whose "
                                 "`X-Slack-Signature` does not match, or whose timestamp is more than 5 "
                                 "minutes off, are refused (401). Required in that mode.")),
      field("callbackUrl", string().format("http-url").doc(
                               "Webhook, `callback` mode: where replies are POSTed, signed with the "
                               "callback key derived from `secret` (channels.md).")),
      field("maxBodyBytes", integer().min(256).max(8 * 1024 * 1024).doc(
                                "Webhook: largest request body, bytes (default 1 MiB).")),
      field("replyTimeoutSeconds", integer().min(1).max(3600).doc(
                                       "Webhook, `sync` mode: how long a caller waits for the "
                                       "reply before 504 (default 120).")),
      field("webhookUrl", string().format("http-url").doc(
                              "Telegram: receive updates by webhook instead of long polling: the public "
                              "HTTPS URL that reaches `webhookPath` on this gateway (registered with "
                              "setWebhook).")),
      field("webhookPath", string().doc("Telegram, webhook mode: the path on the gateway's port "
                                        "(default `/telegram-webhook`). Slack, `mode: \"http\"`: the "
                                        "Request URL's path (default `/slack/events`, as OpenClaw).")),
      field("webhookSecret", string().sensitive().doc(
                                 "Telegram, webhook mode: secret_token Telegram sends in "
                                 "`X-Telegram-Bot-Api-Secret-Token`; other POSTs are refused. Required "
                                 "with `webhookUrl`: 16–256 characters of A-Z a-z 0-9 _ -.")),
      field("pollTimeoutSeconds", integer().min(0).max(50).doc(
                                      "Telegram: long-polling timeout of `getUpdates`, seconds "
                                      "(default 25).")),
      field("host", string().doc("IRC: server host name or address. Required to run the IRC channel.")),
      field("port", integer().min(1).max(65535).doc(
                        "IRC: server port (default 6697 with `tls`, else 6667).")),
      field("tls", boolean().doc(
                       "IRC: connect with TLS; the server certificate is verified against the "
                       "system CA store and the host name (default false).")),
      field("nick", string().doc("IRC: the bot's nick. Required to run the IRC channel; `nick_`, "
                                 "`nick__`, … are tried when it is taken.")),
      field("username", string().doc("IRC: the user name sent with USER (default: the nick).")),
      field("realname", string().doc("IRC: the real name sent with USER (default `Pincer`).")),
      field("password", string().sensitive().doc("IRC: server password (PASS), when the server needs one.")),
      field("sasl", object({
                        field("username", string().doc("Account name.")),
                        field("password", string().sensitive().doc("Account password.")),
                    }).doc("IRC: log in with SASL PLAIN during registration (both keys needed); "
                           "the connection fails rather than continue without it.")),
      field("nickserv", object({
                            field("enabled", boolean().doc("`false` skips IDENTIFY (default true).")),
                            field("service", string().doc("The service's nick (default `NickServ`).")),
                            field("password", string().sensitive().doc(
                                                  "Sent as `IDENTIFY <password>` after registration.")),
                        }).doc("IRC: identify to NickServ after connecting.")),
      field("channels", union_of({array_of(string()), map_of(channel_group_entry())}).doc(
                            "IRC: channels joined after connecting (`#name`, or `#name key` for a "
                            "channel with a key). Use the same spelling in `groups`. Slack: settings "
                            "of channels by channel id (`C…`; OpenClaw's spelling of `groups`, e.g. "
                            "`{C123: {requireMention: false}}`); an entry in `groups` wins.")),
      field("dmPolicy", one_of({"pairing", "allowlist", "open", "disabled"})
                            .def("pairing")
                            .doc("Direct messages: `pairing` = unknown senders get a pairing "
                                 "code the owner approves; `allowlist` = only `allowFrom`; "
                                 "`open` = anyone (OpenClaw also requires `allowFrom: [\"*\"]`); "
                                 "`disabled` = ignore them.")),
      field("allowFrom", array_of(union_of({string(), integer()})).doc(
                             "Senders allowed to message the bot: platform user ids, `@username`, "
                             "or `*` for everyone. A `<channel>:` prefix is accepted.")),
      field("groupPolicy", one_of({"open", "allowlist", "disabled"})
                               .def("allowlist")
                               .doc("Group chats: `open` = any group (mention gating still "
                                    "applies); `allowlist` = only chats in `groups` and senders "
                                    "in `groupAllowFrom`; `disabled` = ignore groups.")),
      field("groupAllowFrom", array_of(union_of({string(), integer()})).doc(
                                  "Senders allowed in group chats; defaults to `allowFrom`.")),
      field("groups", map_of(channel_group_entry()).doc(
                          "Group chats by chat id; `*` applies to every chat. Under `allowlist` "
                          "only the chats listed here are answered.")),
      field("guilds", map_of(object({
                          field("slug", string().doc("A name for people reading the config; not used.")),
                          field("requireMention", boolean().doc("As in `groups`, for the guild's channels.")),
                          field("enabled", boolean().doc("`false` ignores the guild.")),
                          field("allow", boolean().doc("OpenClaw's spelling of `enabled`.")),
                          field("users", array_of(union_of({string(), integer()})).doc(
                                             "User ids allowed in the guild's channels.")),
                          field("roles", array_of(union_of({string(), integer()})).doc(
                                             "Role ids whose members are allowed in the guild's channels "
                                             "(besides `users`: either one lets a sender in).")),
                          field("channels", map_of(channel_group_entry()).doc(
                                                "The guild's channels by channel id, each as a "
                                                "`groups` entry (`allow: true` lists it); one without "
                                                "`users` or `roles` of its own takes the guild's.")),
                      }))
                          .doc("Discord (OpenClaw's spelling): guilds by guild id, each entry covering "
                               "its channels without one of their own; read as `groups` entries of the "
                               "guild and of each listed channel (an entry in `groups` wins).")),
      field("textChunkLimit", integer().min(16).max(kMaxCount).doc(
                                  "Longest message sent, in the platform's units (UTF-16 code "
                                  "units for Telegram and Discord). Longer replies are split. "
                                  "Default and maximum: the channel's own limit (4000 for most, "
                                  "2000 for Discord); a larger value is capped to it.")),
      field("chunkMode", one_of({"length", "newline"})
                             .def("length")
                             .doc("How long replies are split: `length` = only when over "
                                  "`textChunkLimit`; `newline` = also one message per "
                                  "paragraph.")),
      field("streaming", union_of({one_of({"off", "partial", "block", "progress"}), boolean()})
                             .default_note("`partial` where the channel can edit messages "
                                           "(Telegram), else `off`")
                             .doc("How replies stream (CH-4): `partial` = a preview message "
                                  "edited as the reply is written, then replaced by the reply; "
                                  "`block` = the reply in blocks, one message each; `off` = the "
                                  "whole reply at the end; `progress` = accepted, behaves as "
                                  "`off` for now. Legacy booleans: `true` = `partial`, `false` = "
                                  "`off`. A channel that cannot edit messages treats `partial` "
                                  "as `off`; the webhook channel in `sync` mode is always `off`.")),
      field("streamMode", one_of({"off", "partial", "block"}).doc(
                              "Legacy alias of `streaming` (used when `streaming` is not set).")),
      field("blockStreaming", boolean().doc(
                                  "`true` = block streaming on this channel whatever `streaming` "
                                  "says (no preview); `false` = not even with "
                                  "`agents.defaults.blockStreamingDefault: \"on\"`.")),
      field("blockStreamingCoalesce", block_streaming_coalesce()),
  };
  if (!with_accounts) return object(std::move(fields)).doc("Settings of one bot account of the channel.");
  fields.push_back(field("accounts", map_of(channel_entry(false)).doc(
                                         "Several bot accounts of this channel (CH-6), by account id. "
                                         "Each account takes the channel's settings, overridden key by "
                                         "key by its own; credentials and endpoints (`botToken`, "
                                         "`webhook*`, `nick`, `password`, `sasl`, `nickserv`, `secret`, "
                                         "`path`, `callbackUrl`) are never inherited. The channel's own "
                                         "settings are the `default` account when they hold its "
                                         "credentials. Bindings select an account with "
                                         "`match.accountId`.")));
  return object(std::move(fields)).doc("Settings of one channel.");
}

}  // namespace detail_config_schema_channels

Node bindings_section() {
  namespace d = detail_config_schema_channels;
  return array_of(d::binding_entry())
      .doc("Which agent answers which channel, account, conversation, server or team (RT-3).");
}

Node channels_section() {
  namespace d = detail_config_schema_channels;
  // Each channel's block takes only the keys that channel reads (config_schema_channel_keys.h).
  return channels_by_channel(d::channel_entry())
      .doc("Messaging channels by id (`telegram`, `irc`, …): who may talk to the "
           "bot (CH-3) and how replies are split (CH-4).");
}

}  // namespace pincer::config::schema
