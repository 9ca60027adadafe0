// Token estimates and prompt budgets of the context engine (SPEC CX-5, CX-6, CX-7).
//
// Pure functions and small value types; no I/O, no threads. Units are tokens unless a name says
// chars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/messages.h"

namespace pincer::context {

/// CX-5: the chars/4 heuristic is multiplied by this margin, so that an estimate errs high.
inline constexpr double kSafetyMargin = 1.2;
/// CX-5: characters per token of the heuristic.
inline constexpr double kCharsPerToken = 4.0;
/// Bounds of the usage correction (reported tokens / estimated tokens of the previous call): a
/// provider's count far outside them is taken as a mismatch (another system prompt, a proxy),
/// not as a property of its tokenizer.
inline constexpr double kMinCorrection = 0.5;
inline constexpr double kMaxCorrection = 3.0;

/// The characters a message contributes to a request: text, thinking, tool-call names and
/// arguments (as JSON), tool-result text; an image counts as 4 800 chars (≈ 1 200 tokens, as pi).
std::size_t message_chars(const llm::Message& message);
/// The characters of a system prompt plus tool definitions (name, description, schema JSON).
std::size_t fixed_chars(const std::string& system_prompt, const std::vector<llm::ToolDefinition>& tools);

/// CX-5: ceil(chars / 4 × 1.2 × correction). `correction` 1.0 = uncorrected.
int64_t estimate_tokens(std::size_t chars, double correction = 1.0);

/// The correction after a call whose request was estimated at `estimated` tokens (with
/// correction 1.0) and for which the provider reported `reported` prompt tokens (input + cache
/// read + cache write): reported / estimated, clamped to [kMinCorrection, kMaxCorrection]. 1.0 when
/// either is ≤ 0 (no usage reported).
double usage_correction(int64_t estimated, int64_t reported);

/// The window a session works in: the model's contextWindow, capped by `context_tokens`
/// (agents.defaults.contextTokens) when set. `clamped` is true when a configured value was larger
/// than the model's window (and so had no effect): the caller warns.
struct EffectiveWindow {
  int64_t tokens = 0;
  bool clamped = false;
};
EffectiveWindow effective_window(int64_t model_window, std::optional<int64_t> context_tokens);

/// CX-6, exactly: minPromptBudget = min(8 000, max(1, floor(context × 0.5)));
/// effectiveReserve = min(reserve, max(0, context − minPromptBudget));
/// promptBudget = max(1, context − effectiveReserve). (context 20 000, reserve 100 000 → 8 000.)
int64_t prompt_budget(int64_t context_tokens, int64_t reserve_tokens);

/// CX-9: the recent part kept verbatim by a compaction: `configured` (keepRecentTokens, 20 000),
/// scaled down for small windows to at most 40 % of what the history may use (`history_budget`
/// = prompt budget − system prompt and tools), and at least 1.
int64_t keep_recent_tokens(int64_t configured, int64_t history_budget);

/// CX-7: what to do with a request of `estimated` tokens against `budget`, when `reducible`
/// tokens could be cut from tool results (without compaction).
enum class OverflowRoute {
  Fits,                     ///< send as it is
  CompactOnly,              ///< nothing reducible in tool results: summarise the older part
  TruncateToolResultsOnly,  ///< cutting tool results alone makes it fit (no LLM call)
  CompactThenTruncate,      ///< both: compact, then cut the tool results left
};
OverflowRoute overflow_route(int64_t estimated, int64_t budget, int64_t reducible);
std::string_view to_string(OverflowRoute route);

}  // namespace pincer::context
