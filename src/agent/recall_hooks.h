// The agent's side of recall (SPEC CX-2, MM-3): what a run's start adds to the session from the
// memory files, and what it writes into them. Called by AgentService::start on the loop (small
// file reads and one append; no network).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "agent/agent_run.h"
#include "context/context_engine.h"
#include "store/session_index.h"
#include "store/transcript.h"

namespace pincer::agent {

/// The customType of the startup-context message (CX-2).
inline constexpr std::string_view kStartupContextType = "pincer.startup-context";

/// The user's UTC offset in minutes at `unix_ms`: agents.defaults.userTimezone when this host
/// knows the zone, else the host's (the day of a daily note is the user's day, not UTC's).
int user_utc_offset_minutes(const nlohmann::json& config, int64_t unix_ms);

/// CX-2: on the first turn of a session (`history` empty, no summary), records the startup
/// context — today's and yesterday's daily notes (memory/daily_notes.h) — as a custom message of
/// type "pincer.startup-context" (display false) in the transcript, and adds it to `history`.
/// Nothing when there are no notes or agents.defaults.startupContext.enabled is false. A failed
/// append is logged and the turn goes on without it.
void add_startup_context(const nlohmann::json& config, const std::filesystem::path& workspace, int64_t now_ms,
                         store::TranscriptWriter& writer, context::SessionHistory& history, const std::string& key);

/// MM-3: appends the user's `message` to today's daily note ("- HH:MM [category] text") when it
/// has a capture trigger and passes the filter (memory/capture.h), unless memory.capture.enabled
/// is false or the same line is already in today's note. Errors are logged, never fatal.
void capture_user_message(const nlohmann::json& config, const std::filesystem::path& workspace, int64_t now_ms,
                          std::string_view message, const std::string& key);

/// CX-10 (memory_flush.h): the user message of the silent flush turn due before the turn `in`
/// is about to run — `in` fully built (system prompt, tools, engine with the session's history),
/// `entry` the session's index entry, `entries` its transcript — or nullopt. Only a session with
/// a conversation (a reply of the agent in `entries`) is flushed: never before a new session's
/// first turn, however small its window. `compactions` gets
/// the transcript's compaction count, to be recorded as memoryFlushCompactionCount.
std::optional<std::string> memory_flush_before(const nlohmann::json& config, const store::SessionEntry* entry,
                                               const std::vector<store::TranscriptEntry>& entries,
                                               const RunInputs& in, int64_t now_ms, int64_t& compactions);

/// The text added to the system prompt of a flush turn for the day of `now_ms`.
std::string memory_flush_system_text(const nlohmann::json& config, int64_t now_ms);

/// CX-10: a flush turn's tools, restricted as OpenClaw restricts them: `write` becomes the
/// append-only write of tools/memory_flush_write.h for memory/YYYY-MM-DD.md of the day of
/// `now_ms` (made once per path and kept in `made`, which the service owns: runs point to it), and
/// a call of any tool but `read` and `write` is refused with flush_tool_refusal's message
/// (in.hooks.before_tool_call). Unlike OpenClaw the other tools stay offered: the request keeps
/// the session's frame, whose size the context engine calibrates the provider's usage on — a
/// smaller frame would inflate the estimate and compact the very conversation being saved.
void restrict_to_flush_tools(const nlohmann::json& config, int64_t now_ms, RunInputs& in,
                             std::map<std::string, std::unique_ptr<tools::Tool>>& made);

/// The refusal of a call of `tool` in a flush turn whose note is `note_path`; "" for read/write.
std::string flush_tool_refusal(std::string_view tool, const std::string& note_path);

}  // namespace pincer::agent
