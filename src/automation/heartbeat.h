// The heartbeat's rules (AT-1, docs/automation.md "The heartbeat"), pure: OpenClaw's
// `agents.defaults.heartbeat` / `agents.list[].heartbeat` settings merged per agent, its duration
// strings ("30m", default unit minutes), the active-hours window in the user's zone, whether a
// HEARTBEAT.md has anything to do, and whether a reply is only the `HEARTBEAT_OK` acknowledgement.
//
// Who beats (OpenClaw's enrolment): when some `agents.list[]` entry has a `heartbeat` block, only
// those agents; otherwise the default agent. Each agent's block is merged over the defaults.
// Heartbeats are on by default (every 30 m, OpenClaw's default); `every: "0m"` turns them off.
//
// Pure apart from reading zone files (schedule.h) and HEARTBEAT.md; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::automation {

/// OpenClaw's acknowledgement token: a heartbeat reply that is only this is never delivered.
inline constexpr std::string_view kHeartbeatToken = "HEARTBEAT_OK";
/// OpenClaw's defaults: every 30 minutes, at most 300 characters beside the token still count as
/// an acknowledgement, delivery to the chat the agent last heard from.
inline constexpr int64_t kHeartbeatDefaultEveryMs = 30 * 60 * 1000;
inline constexpr int64_t kHeartbeatDefaultAckMaxChars = 300;
inline constexpr std::string_view kHeartbeatDefaultEvery = "30m";
/// The shortest `every` (ms): the same floor as a cron job's everyMs.
inline constexpr int64_t kHeartbeatMinEveryMs = 1000;

/// The prompt of a heartbeat turn when `prompt` is not set (OpenClaw's semantics, our words).
std::string default_heartbeat_prompt();

/// `activeHours {start, end, timezone}`: minutes since midnight; start inclusive, end exclusive,
/// a window with end before start wraps past midnight, start == end is never active.
struct ActiveHours {
  int start_min = 0;     ///< "HH:MM", 00:00..23:59
  int end_min = 1440;    ///< "HH:MM", 00:00..24:00
  std::string timezone;  ///< IANA, "user"/"" = agents.defaults.userTimezone, "local" = the host's
  bool operator==(const ActiveHours&) const = default;
};

/// One agent's merged settings.
struct HeartbeatSettings {
  std::string agent_id;
  bool enabled = true;          ///< enrolled and `every` > 0
  std::string every = std::string(kHeartbeatDefaultEvery);  ///< as written ("disabled" when off)
  int64_t every_ms = kHeartbeatDefaultEveryMs;
  std::string prompt;           ///< the turn's message (the default when not set)
  std::string target = "last";  ///< "last" | "none" | a channel id ("telegram" …)
  std::string to;               ///< the recipient (chat id) for a channel target; "" = the last chat's
  std::string account_id;       ///< the channel account; "" = the last chat's / the first running
  std::string model;            ///< "" = the session's model
  int64_t ack_max_chars = kHeartbeatDefaultAckMaxChars;
  int64_t timeout_seconds = 0;  ///< 0 = min(every, 600 s) as OpenClaw (unless agents.defaults.timeoutSeconds)
  std::optional<ActiveHours> active_hours;
  std::string user_zone;        ///< agents.defaults.userTimezone ("" = the host's)
  std::filesystem::path workspace;  ///< where HEARTBEAT.md is
  bool operator==(const HeartbeatSettings&) const = default;
};

/// OpenClaw's duration strings: a number with `ms`, `s`, `m`, `h` or `d` ("30m", "1h", "90s",
/// "1.5h"); a bare number is in minutes. nullopt when malformed or negative.
std::optional<int64_t> parse_heartbeat_duration_ms(std::string_view text);

/// "HH:MM" → minutes (00:00..23:59, and 24:00 when `allow_24`); nullopt when malformed.
std::optional<int> parse_active_hours_time(std::string_view text, bool allow_24);

/// Checks one `heartbeat` block of a validated config (beyond the schema's types): every is a
/// duration, activeHours times are HH:MM (end may be 24:00), the zone is known. Error messages
/// name the field under `where` ("agents.defaults.heartbeat.every: …"); empty = fine.
std::vector<std::string> heartbeat_problems(const nlohmann::json& block, const std::string& where);

/// The agents that beat and their merged settings. `agents` are (id, workspace, is_default) of
/// the resolved agents. Blocks that fail heartbeat_problems() make that agent's heartbeat
/// disabled (the config check reports them before a start).
struct HeartbeatAgent {
  std::string id;
  std::filesystem::path workspace;
  bool is_default = false;
};
std::vector<HeartbeatSettings> heartbeat_settings_from_config(const nlohmann::json& config,
                                                              const std::vector<HeartbeatAgent>& agents);

/// Whether `now_ms` is inside the window, in its zone (`user_zone` for "user"/"", the host's for
/// "local"; an unknown zone counts as always active, as OpenClaw). No window = always.
bool within_active_hours(const std::optional<ActiveHours>& window, const std::string& user_zone, int64_t now_ms);

/// OpenClaw's "effectively empty" HEARTBEAT.md: only blank lines, Markdown headers, HTML
/// comments, fence markers and empty list items ("- ", "- [ ]"). Such a file means nothing to do:
/// the beat is skipped without a model call. (A missing file is not empty: the model decides.)
bool heartbeat_content_empty(std::string_view content);

/// What a heartbeat reply comes to: `deliver` false when it is only the acknowledgement — the
/// token at its start or end (also in Markdown emphasis or HTML tags, with trailing punctuation)
/// and at most `ack_max_chars` other characters — or empty, or a silent NO_REPLY; otherwise the
/// text to deliver, without the token.
struct HeartbeatReply {
  bool deliver = false;
  bool token = false;  ///< the acknowledgement token was found (status "ok-token", else "ok-empty")
  std::string text;
};
HeartbeatReply classify_heartbeat_reply(std::string_view reply, int64_t ack_max_chars);

}  // namespace pincer::automation
