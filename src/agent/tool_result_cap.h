// The size cap on one tool result before it enters the conversation (SPEC CX-8; OpenClaw's rule
// in research/openclaw-protocol.md §9 "Tool results"). A huge result must never fill the context
// window or be held in memory forever (LESSONS 7).
//
// Formula (all sizes in UTF-8 bytes, called "chars"):
//   cap(context_tokens) = max(2 000, min(floor(context_tokens × 0.3) × 4, 16 000))
//   — 30 % of the context window at ~4 chars per token, never more than 16 000 chars (the SPEC's
//   ceiling; OpenClaw's is 400 000), never less than the 2 000 chars that are always kept.
//   context_tokens <= 0 (unknown) gives 16 000.
//
// Cutting a text longer than the cap (cap_text):
//   budget = max(2 000, cap − length of the closing note)
//   * The closing note "[Output truncated: kept K of N chars …]" always ends the result.
//   * When the last 2 000 chars look important (has_important_tail) and budget > 4 000, keep the
//     head and the tail: tail = min(30 % of budget, 4 000), head = the rest of the budget minus the
//     "[… M chars omitted …]" marker placed between them.
//   * Otherwise keep only the head (budget chars).
//   * A head cut snaps back to the last newline when that newline lies within the last 20 % of
//     the head; a tail start snaps forward past the next newline when it lies within the first
//     20 % of the tail. Cuts never split a UTF-8 character.
//   The result is at most max(cap, 2 000 + note length) chars long.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pincer::agent {

inline constexpr std::size_t kToolResultMaxChars = 16'000;     ///< CX-8 ceiling
inline constexpr std::size_t kToolResultMinKeepChars = 2'000;  ///< CX-8: always kept
inline constexpr double kToolResultContextShare = 0.3;         ///< CX-8: 30 % of the context
inline constexpr std::int64_t kCharsPerToken = 4;              ///< CX-5 style estimate

/// The cap for one tool result in chars, from the model's context window in tokens (see the
/// formula above).
std::size_t tool_result_cap_chars(std::int64_t context_tokens);

/// A possibly shortened text.
struct CappedText {
  std::string text;               ///< what goes to the model
  bool truncated = false;         ///< true when `text` is not the whole input
  std::size_t original_chars = 0; ///< size of the input
};

/// Cuts `text` to `max_chars` (raised to 2 000 if lower) as described above; a text that fits is
/// returned unchanged.
CappedText cap_text(std::string_view text, std::size_t max_chars);

/// cap_text(text, tool_result_cap_chars(context_tokens)).
CappedText cap_tool_result(std::string_view text, std::int64_t context_tokens);

/// Whether the last 2 000 chars of `text` carry information worth keeping when cutting: words
/// such as error, exception, failed, fatal, traceback, panic, "stack trace", errno, "exit code"
/// (whole words, any case), a closing `}` at the very end (JSON), or a summary word (total,
/// summary, result, complete, finished, done).
bool has_important_tail(std::string_view text);

}  // namespace pincer::agent
