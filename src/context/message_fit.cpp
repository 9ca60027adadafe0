#include "context/message_fit.h"

#include <algorithm>

#include "context/budget.h"

namespace pincer::context {

namespace {

/// The room and where it comes from, without the budget's parts: the system prompt and tools count
/// at most half the budget, so "window − reserve − frame" would not add up for a large frame.
std::string room_clause(const MessageFit& fit, std::string_view model) {
  return "at most ~" + std::to_string(fit.room_tokens) + " fit in a request to " + std::string(model) +
         " (context window " + std::to_string(fit.window_tokens) +
         " tokens, less the reply reserve and the system prompt and tools)";
}

}  // namespace

MessageFit fit_message(const llm::Message& message, const RequestFrame& frame, int64_t window_tokens,
                       int64_t reserve_tokens) {
  MessageFit fit;
  fit.message_tokens = estimate_tokens(message_chars(message));
  if (!frame.fixed_chars_memo) frame.fixed_chars_memo = fixed_chars(frame.system_prompt, frame.tools);
  fit.frame_tokens = estimate_tokens(*frame.fixed_chars_memo);
  fit.window_tokens = std::max<int64_t>(1, window_tokens);
  fit.budget_tokens = prompt_budget(fit.window_tokens, reserve_tokens);
  fit.room_tokens = std::max<int64_t>(1, fit.budget_tokens - std::min(fit.frame_tokens, fit.budget_tokens / 2));
  return fit;
}

bool frame_fills_window(const MessageFit& fit) { return fit.frame_tokens >= fit.window_tokens; }

std::string frame_too_large_text(const MessageFit& fit, std::string_view model) {
  return std::string(model) + " works with a context window of " + std::to_string(fit.window_tokens) +
         " tokens (its contextWindow, or agents.defaults.contextTokens when smaller), but the system prompt and "
         "tool definitions alone take ~" + std::to_string(fit.frame_tokens) +
         " tokens (estimated), so no request to it can fit. Use a model with a larger window (or set its real "
         "contextWindow in models.providers), or send less with every request: fewer tools (tools.profile, "
         "tools.deny), smaller workspace files (AGENTS.md, SOUL.md …, agents.defaults.bootstrapTotalMaxChars).";
}

std::string message_too_large_text(const MessageFit& fit, std::string_view model) {
  return "This message is ~" + std::to_string(fit.message_tokens) + " tokens, but " + room_clause(fit, model) +
         ". Shorten it or split it into parts.";
}

std::string turn_too_large_text(const MessageFit& fit, int64_t earlier_tokens, bool with_tool_results,
                                std::string_view model) {
  const std::string what = with_tool_results ? "This turn (your message of ~" + std::to_string(fit.message_tokens) +
                                            " tokens with its tool results) does not fit: "
                                      : "This message is ~" + std::to_string(fit.message_tokens) +
                                            " tokens and does not fit: ";
  return what + "the provider refused it, and the rest of the conversation takes only ~" +
         std::to_string(earlier_tokens) + " tokens; " + room_clause(fit, model) +
         ". Shorten it or split it into parts; the session's history is kept.";
}

}  // namespace pincer::context
