// The user's time zone for the turn context (CX-4, `agents.defaults.userTimezone`): the UTC offset
// of an IANA zone at an instant, read from the system's compiled zone files
// (/usr/share/zoneinfo, TZif version 2+ 64-bit data, as Debian's tzdata ships them).
//
// Pure apart from reading one small file per call; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pincer::agent {

/// True when `name` looks like an IANA zone name ("Europe/Berlin", "UTC", "America/Argentina/Salta"):
/// letters, digits, '_', '+', '-', '/' segments, no "." segments, at most 64 chars.
bool is_time_zone_name(std::string_view name);

/// The offset from UTC in minutes of zone `name` at `unix_ms`; nullopt when the name is invalid
/// or the zone file is missing or not TZif. After the file's last transition the last offset holds.
std::optional<int> time_zone_offset_minutes(std::string_view name, int64_t unix_ms);

}  // namespace pincer::agent
