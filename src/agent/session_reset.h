// Automatic session resets (SPEC SS-5), with OpenClaw's settings and rules
// (src/config/sessions/reset-policy.ts): `session.reset {mode, atHour, idleMinutes}`, overridden per
// session type by `session.resetByType.{direct,group,thread}` and per channel by
// `session.resetByChannel.<channel>` (a channel override replaces both).
//
//   mode  none  never (the default when nothing is configured)
//         daily a session started before the last `atHour`:00 (host time, default 4) is stale
//         idle  only `idleMinutes` counts
//   idleMinutes > 0 (in any mode but none): a session whose last interaction is older is stale.
//   A configured block without `mode` means daily; a type block inherits the base mode.
//
// Freshness is evaluated when a message arrives (AgentService::send), never by a timer: a stale
// session is reset exactly as `/reset` does (the transcript archived as `….jsonl.reset.<ts>`).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pincer::agent {

enum class ResetMode { None, Daily, Idle };

struct ResetPolicy {
  ResetMode mode = ResetMode::None;
  int at_hour = 4;                      ///< 0..23, host time
  std::optional<int64_t> idle_minutes;  ///< >0 = idle expiry on
};

/// "direct" | "group" | "thread" of a canonical session key: ":thread:"/":topic:" → thread,
/// ":group:"/":channel:" → group, else direct (OpenClaw's resolveSessionResetType).
std::string reset_type_of(std::string_view session_key);

/// The policy for a session of `type` on `channel` ("" = unknown) from the `session` config object
/// (null or missing blocks = defaults).
ResetPolicy resolve_reset_policy(const nlohmann::json& session_config, std::string_view type, std::string_view channel);

/// Why a session is stale: "daily" | "idle"; nullopt when it is fresh.
/// `started_ms`: when the session (its current id) started; `last_ms`: its last interaction.
/// `utc_offset_minutes(ms)`: the host's offset from UTC at that instant (localtime's tm_gmtoff).
std::optional<std::string> stale_reason(const ResetPolicy& policy, int64_t now_ms, int64_t started_ms, int64_t last_ms,
                                        const std::function<int(int64_t)>& utc_offset_minutes);

/// The last daily boundary (`at_hour`:00 local) at or before `now_ms`, in ms since the epoch.
int64_t daily_reset_at_ms(int64_t now_ms, int at_hour, const std::function<int(int64_t)>& utc_offset_minutes);

/// The host's UTC offset in minutes at `unix_ms` (localtime_r).
int host_utc_offset_minutes(int64_t unix_ms);

}  // namespace pincer::agent
