// Whether one user message can fit the model's context window at all (SPEC AG-5, CX-5, CX-6).
//
// A message that alone, with the system prompt and tool definitions, leaves no room in the prompt
// budget is refused before any model call: no compaction can make it fit (the history is not the
// problem), and a session reset would not either. The runner (agent/agent_run_fit.cpp) refuses
// such a turn with error reason kMessageTooLargeReason and leaves the session as it was: the
// refused message is NOT recorded in the transcript, so the next message is answered with the
// earlier history in context.
//
// Pure functions; no I/O, no threads. Units are tokens (the CX-5 estimate, uncorrected: the
// chars/4 × 1.2 heuristic already errs high, and a provider that counts more still gets the
// overflow recovery of AG-5).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "context/context_engine.h"
#include "llm/messages.h"

namespace pincer::context {

/// RunEvent::error_reason of a turn refused because its message does not fit the window.
inline constexpr std::string_view kMessageTooLargeReason = "message_too_large";
/// RunEvent::error_reason of a turn refused because the system prompt and tool definitions alone
/// take the whole window (frame_fills_window): a setup problem no message can get around.
inline constexpr std::string_view kContextWindowTooSmallReason = "context_window_too_small";

struct MessageFit {
  int64_t message_tokens = 0;  ///< estimate_tokens(message_chars(message))
  int64_t frame_tokens = 0;    ///< estimate_tokens(fixed_chars(system prompt, tools))
  int64_t window_tokens = 0;   ///< the effective window the run works in
  int64_t budget_tokens = 0;   ///< prompt_budget(window, reserve): the window after the reply reserve
  /// What a message may take: the budget less the frame, where the frame counts at most half the
  /// budget (a frame larger than that is a setup problem the provider decides on, not a reason to
  /// refuse every message). At least 1.
  int64_t room_tokens = 0;
  bool fits() const { return message_tokens <= room_tokens; }
};

/// The fit of `message` (text, images as budget.h counts them) in a request with `frame`, in a
/// window of `window_tokens` with `reserve_tokens` kept for the reply (CX-6 prompt_budget, as the
/// runner budgets every call).
MessageFit fit_message(const llm::Message& message, const RequestFrame& frame, int64_t window_tokens,
                       int64_t reserve_tokens);

/// True when the fixed part of every request — the system prompt and tool definitions, estimated
/// (fit.frame_tokens) — is at least the whole window (fit.window_tokens): every request to the
/// model would overflow, whatever the message, so the runner refuses the turn before calling it
/// (instead of the provider's opaque context-length error).
bool frame_fills_window(const MessageFit& fit);

/// The user-facing error of frame_fills_window, naming the model, its window and the estimate, e.g.
/// "mock/tiny works with a context window of 1000 tokens (its contextWindow, or
/// agents.defaults.contextTokens when smaller), but the system prompt and tool definitions alone take ~5200 tokens (estimated), so no request to it can fit. Use a model with a
/// larger window (or set its real contextWindow in models.providers), or send less with every
/// request: fewer tools (tools.profile, tools.deny), smaller workspace files (AGENTS.md, SOUL.md …,
/// agents.defaults.bootstrapTotalMaxChars)." `model` is "provider/id".
std::string frame_too_large_text(const MessageFit& fit, std::string_view model);

/// The user-facing error of a refused message, naming its estimate, the room and the window, e.g.
/// "This message is ~6000 tokens, but at most ~3100 fit in a request to mock/mock-model (context
/// window 4000 tokens, less the reply reserve and the system prompt and tools). Shorten it or split
/// it into parts." `model` is "provider/id".
std::string message_too_large_text(const MessageFit& fit, std::string_view model);

/// The error when the provider still refused a turn after compaction while the history before the
/// message (`earlier_tokens`) is smaller than the message (AG-5 L3): the same numbers, saying the
/// provider refused it and that the session's history is kept. `with_tool_results`: tools ran in
/// the turn, so it speaks of the turn (the message with its tool results), not the message alone.
std::string turn_too_large_text(const MessageFit& fit, int64_t earlier_tokens, bool with_tool_results,
                                std::string_view model);

}  // namespace pincer::context
