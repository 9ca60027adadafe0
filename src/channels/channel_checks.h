// The checks a channel account's settings must pass before it can run (SPEC CH-6), state-free:
// no instance, no files, no sockets. `pincer config validate`, `pincer doctor`, `pincer config set`
// and the gateway (start, reload, the pre-restart check) all use these, so that what one accepts
// the others accept too.
//
// Pure functions; any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/channel_accounts.h"
#include "channels/discord/discord_channel.h"
#include "channels/slack/slack_channel.h"
#include "channels/telegram/telegram_channel.h"
#include "channels/webhook/webhook_channel.h"
#include "core/result.h"

namespace pincer::channels {

/// A Telegram account's settings from its merged config. `state_dir` only names the offset file
/// (nothing is read). Errors: "CONFIG_INVALID" naming the key, e.g.
/// `channels.telegram.accounts.a.webhookSecret: required with webhookUrl, at least 16 characters …`.
Result<telegram::TelegramSettings> telegram_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);

/// A webhook account's settings (secret ≥ 16 characters, a usable path, callbackUrl in callback
/// mode). `state_dir` only names the replay and dedupe files. Errors as telegram_settings_of.
Result<webhook::WebhookSettings> webhook_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);

/// A Discord account's settings (`token` required; `apiRoot`, `ackReaction`). `state_dir` only
/// names the session state file. Errors as telegram_settings_of.
Result<discord::DiscordSettings> discord_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);
/// A Slack account's settings: `botToken` (xoxb-) required; `mode` "socket" (the default: `appToken`
/// xapp- required) or "http" (the Events API: `signingSecret` required, `webhookPath` a path of
/// its own — route_path_problem); a "${NAME}" reference passes, swapped tokens are named as such;
/// `apiRoot`, `slashCommand`. `state_dir` only places the state file
/// (<state>/channels/slack/<account>.json).
Result<slack::SlackSettings> slack_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);

/// Whether the account can be built: its settings parse and check (above; irc: irc_settings.h).
/// Returns the HTTP path it serves on the gateway's port ("" = none). Errors: "CONFIG_INVALID".
Result<std::string> check_account(const ChannelAccount& spec);

/// Every problem of the `channels` section of `effective`, one line each, in config order: each
/// account that cannot be built, and each value two accounts must not share (an HTTP path, a bot
/// token, an IRC nick on one server). Empty = every account can run.
std::vector<std::string> channel_problems(const nlohmann::json& effective);

/// The group entries of channels other than Discord that set `roles` (`channels.<id>[.accounts.<a>]
/// .groups|channels|rooms.<chat>.roles`): only Discord senders have roles, so elsewhere the key lets
/// nobody in (an entry with roles and no allowFrom/users admits no one). One warning line each,
/// naming the path. `config validate`, `doctor`, the gateway's start and a reload say them.
std::vector<std::string> group_role_warnings(const nlohmann::json& effective);

/// Whether `value` is a whole "${NAME}" reference (NAME: A-Z 0-9 _, not starting with a digit) —
/// what `pincer config set` sees for a secret the gateway's environment provides (it checks with
/// the references unexpanded): format checks of tokens skip such values; the gateway checks the
/// expanded value when it starts.
bool is_unexpanded_env_reference(std::string_view value);

/// Why `path` cannot be an HTTP route on the gateway's port (the probes /health …, a file of the
/// web chat, characters outside letters, digits and / - . _ ~), or "" when it can.
std::string route_path_problem(const std::string& path);

}  // namespace pincer::channels
