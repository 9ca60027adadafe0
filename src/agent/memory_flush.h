// The memory flush before compaction (SPEC CX-10; OpenClaw's memoryFlush): when a session's last
// request came within `softThresholdTokens` of the point where it will be compacted, the next
// user turn is preceded by a silent turn that asks the agent to write durable notes to today's
// `memory/YYYY-MM-DD.md`. Once per compaction cycle: the count of compaction entries at the flush
// is kept in sessions.json (`memoryFlushCompactionCount`, OpenClaw's field), so the next flush
// waits for the next compaction.
//
// The silent turn's events reach no client and no channel (its sink is empty); a `NO_REPLY`
// answer is recognised as OpenClaw recognises it (agent/silent_reply.h). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/silent_reply.h"  // kSilentReplyToken, is_silent_reply

namespace pincer::agent {

/// True for a transcript message (pi JSON) that chat.history leaves out: an assistant answer that
/// is a silent reply or only HEARTBEAT_OK (and calls no tool), or the user message of a flush turn
/// (the default prompt's first words). (Messages marked `display: false`, the startup context,
/// are left out by chat.history itself: `pincer sessions show --startup-context` asks for them.)
bool hidden_from_history(const nlohmann::json& message);

/// True for the text of a flush turn's user message: it carries the flush prompt's required hints
/// (memory_flush_prompt always adds them, to a custom prompt too), for any day.
bool is_memory_flush_prompt(std::string_view text);

/// CX-10: which of a session's messages (pi JSON, in transcript order) user-facing history —
/// chat.history, `pincer sessions show`, `pincer chat`, `/tree` — leaves out: every flush turn
/// whole (its prompt and what follows up to the next user message: tool calls, their results,
/// the NO_REPLY or an aborted marker) and any other message hidden_from_history names. The
/// transcript file keeps them all. Compute over the whole list before taking the last N.
std::vector<bool> hidden_messages(const std::vector<nlohmann::json>& messages);

/// agents.defaults.compaction.memoryFlush.
struct MemoryFlushSettings {
  bool enabled = true;
  int64_t soft_threshold_tokens = 4000;
  std::string prompt;         ///< "" = the default (OpenClaw's wording)
  std::string system_prompt;  ///< "" = the default
};
MemoryFlushSettings memory_flush_settings(const nlohmann::json& config);

/// The token count from which a flush is due: the prompt budget (CX-6) minus the soft threshold,
/// the threshold capped at half the budget for small windows. Never below 1.
int64_t memory_flush_threshold(const MemoryFlushSettings& settings, int64_t window_tokens, int64_t reserve_tokens);

/// Whether the next user turn is preceded by a flush: enabled, `last_total_tokens` (the session's
/// totalTokens) at or above the threshold, and no flush yet in this compaction cycle
/// (`flushed_at_compactions`, nullopt = never flushed, differs from `compactions`).
bool memory_flush_due(const MemoryFlushSettings& settings, int64_t last_total_tokens, int64_t window_tokens,
                      int64_t reserve_tokens, int64_t compactions, std::optional<int64_t> flushed_at_compactions);

/// The flush turn's user message for the day `stamp` (YYYY-MM-DD), with the current time line
/// ("Current time: …"); every "YYYY-MM-DD" of a custom prompt is replaced by `stamp`, and the
/// required hints (target file, append only, bootstrap files read-only, NO_REPLY) are added when
/// a custom prompt lacks them.
std::string memory_flush_prompt(const MemoryFlushSettings& settings, std::string_view stamp, std::string_view time_line);
/// The text appended to the system prompt of the flush turn (same rules).
std::string memory_flush_system_prompt(const MemoryFlushSettings& settings, std::string_view stamp);

}  // namespace pincer::agent
