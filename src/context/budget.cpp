#include "context/budget.h"

#include <algorithm>
#include <cmath>

#include "core/json_dump.h"

namespace pincer::context {

namespace {

constexpr std::size_t kImageChars = 4800;

std::size_t json_chars(const nlohmann::json& j) {
  return j.is_null() ? 0 : json_dump::compact_size(j);
}

std::size_t block_chars(const llm::ContentBlock& block) {
  if (const auto* t = std::get_if<llm::TextContent>(&block)) return t->text.size();
  if (const auto* t = std::get_if<llm::ThinkingContent>(&block)) return t->thinking.size();
  if (const auto* c = std::get_if<llm::ToolCall>(&block)) return c->name.size() + json_chars(c->arguments);
  if (std::holds_alternative<llm::ImageContent>(block)) return kImageChars;
  return 0;
}

template <typename Blocks>
std::size_t blocks_chars(const Blocks& blocks) {
  std::size_t n = 0;
  for (const auto& b : blocks) n += block_chars(b);
  return n;
}

}  // namespace

std::size_t message_chars(const llm::Message& message) {
  return std::visit([](const auto& m) -> std::size_t { return blocks_chars(m.content); }, message);
}

std::size_t fixed_chars(const std::string& system_prompt, const std::vector<llm::ToolDefinition>& tools) {
  std::size_t n = system_prompt.size();
  // parameters_json() is the compact text json_chars() measures, kept by the definition.
  for (const auto& t : tools) {
    n += t.name.size() + t.description.size() + (t.parameters().is_null() ? 0 : t.parameters_json().size());
  }
  return n;
}

int64_t estimate_tokens(std::size_t chars, double correction) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(chars) / kCharsPerToken * kSafetyMargin * correction));
}

double usage_correction(int64_t estimated, int64_t reported) {
  if (estimated <= 0 || reported <= 0) return 1.0;
  return std::clamp(static_cast<double>(reported) / static_cast<double>(estimated), kMinCorrection, kMaxCorrection);
}

EffectiveWindow effective_window(int64_t model_window, std::optional<int64_t> context_tokens) {
  EffectiveWindow w{std::max<int64_t>(1, model_window), false};
  if (context_tokens && *context_tokens > 0) {
    if (*context_tokens < w.tokens) w.tokens = *context_tokens;
    else if (*context_tokens > w.tokens) w.clamped = true;
  }
  return w;
}

int64_t prompt_budget(int64_t context_tokens, int64_t reserve_tokens) {
  const int64_t half = static_cast<int64_t>(std::floor(static_cast<double>(context_tokens) * 0.5));
  const int64_t min_prompt_budget = std::min<int64_t>(8000, std::max<int64_t>(1, half));
  const int64_t effective_reserve = std::min(reserve_tokens, std::max<int64_t>(0, context_tokens - min_prompt_budget));
  return std::max<int64_t>(1, context_tokens - effective_reserve);
}

int64_t keep_recent_tokens(int64_t configured, int64_t history_budget) {
  const int64_t scaled = static_cast<int64_t>(std::floor(static_cast<double>(std::max<int64_t>(0, history_budget)) * 0.4));
  return std::max<int64_t>(1, std::min(configured, scaled));
}

OverflowRoute overflow_route(int64_t estimated, int64_t budget, int64_t reducible) {
  if (estimated <= budget) return OverflowRoute::Fits;
  const int64_t overflow = estimated - budget;
  if (reducible <= 0) return OverflowRoute::CompactOnly;
  if (reducible >= overflow) return OverflowRoute::TruncateToolResultsOnly;
  return OverflowRoute::CompactThenTruncate;
}

std::string_view to_string(OverflowRoute route) {
  switch (route) {
    case OverflowRoute::Fits: return "fits";
    case OverflowRoute::CompactOnly: return "compact_only";
    case OverflowRoute::TruncateToolResultsOnly: return "truncate_tool_results_only";
    case OverflowRoute::CompactThenTruncate: return "compact_then_truncate";
  }
  return "fits";
}

}  // namespace pincer::context
