// A Matrix account's settings from its merged config (`channels.matrix`, OpenClaw's key names):
// `homeserver` (http(s) URL) and `accessToken` required, `userId` optional (checked against the
// token's owner), `autoJoin` always | allowlist | off (default off) with `autoJoinAllowlist`.
// The access keys (`dm.policy`, `dm.allowFrom` or `dmPolicy`/`allowFrom`, `groupPolicy`,
// `groups`/`rooms`) are read by the inbound pipeline.
//
// Pure; any thread.
#pragma once

#include <filesystem>

#include "channels/channel_accounts.h"
#include "channels/matrix/matrix_channel.h"
#include "core/result.h"

namespace pincer::channels::matrix {

/// `state_dir` only names the state file (<state>/channels/matrix/<account>.json; nothing is
/// read). Errors: "CONFIG_INVALID" naming the key, e.g. `channels.matrix.accessToken: required …`.
Result<MatrixSettings> matrix_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);

}  // namespace pincer::channels::matrix
