// Daily notes `memory/YYYY-MM-DD.md` (SPEC MM-1, CX-2): the user's calendar day, the startup
// context that brings today's and yesterday's notes into a new session, and appends to today's
// note (auto-capture MM-3, the /new archive MM-9 names its file by the same day).
//
// Where the notes go (OpenClaw's startup-context prelude, not the system prompt): the first turn
// of a session gets one message, recorded in its transcript before the user's, that quotes the
// recent notes as untrusted background. The system prompt stays byte-identical for the whole
// session, and so does that message: a session that runs past midnight keeps the notes it started
// with (the agent can read newer ones with memory_get); the next session gets the new day's.
//
// Blocking file I/O (small files): call where the session's transcript is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::memory {

/// `agents.defaults.startupContext` (OpenClaw's keys and defaults).
struct StartupContextLimits {
  bool enabled = true;
  int daily_memory_days = 2;            ///< today and yesterday (1..14)
  std::size_t max_file_bytes = 16384;   ///< a larger note is skipped (1..65536)
  std::size_t max_file_chars = 1200;    ///< chars kept of each note (1..10000)
  std::size_t max_total_chars = 2800;   ///< of all quoted notes together (1..50000)
};

/// The limits from a config's agents.defaults.startupContext (missing or wrong-typed values take
/// the defaults; numbers are clamped to the ranges above).
StartupContextLimits startup_context_limits(const nlohmann::json& config);

/// "YYYY-MM-DD" of the instant `unix_ms` in a zone `utc_offset_minutes` east of UTC.
std::string date_stamp(int64_t unix_ms, int utc_offset_minutes);

/// The stamp `days` calendar days before `stamp` ("2026-03-01", 1 → "2026-02-28"); `stamp` itself
/// when it is not a date.
std::string days_before(std::string_view stamp, int days);

/// `memory/<stamp>.md` under `workspace`.
std::filesystem::path daily_note_path(const std::filesystem::path& workspace, std::string_view stamp);

/// The startup-context message for a new session: the notes of the last `daily_memory_days`
/// days (newest first; each day's `<stamp>.md`, then up to 4 `<stamp>-<slug>.md` archives, newest
/// first), each trimmed to max_file_chars and quoted in a fenced block under a header that says
/// they are untrusted notes; the whole within max_total_chars of quoted blocks. "" when disabled
/// or no note has text.
std::string build_startup_context(const std::filesystem::path& workspace, int64_t now_ms, int utc_offset_minutes,
                                  const StartupContextLimits& limits);

/// Appends `text` (a newline is added when missing) to `memory/<stamp>.md`, creating `memory/`
/// and the file (with a "# <stamp>" heading) when needed. One write(2) with O_APPEND, so
/// concurrent appenders never interleave inside a block. Errors: "IO_ERROR" naming the path.
Status append_daily_note(const std::filesystem::path& workspace, std::string_view stamp, std::string_view text);

}  // namespace pincer::memory
