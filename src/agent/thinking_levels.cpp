#include "agent/thinking_levels.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "llm/provider.h"

namespace pincer::agent {
namespace {

std::string lower(std::string_view s) {
  std::string out(s.substr(0, 8192));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool has_any(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

constexpr std::array<llm::ThinkingLevel, 6> kOrder = {llm::ThinkingLevel::Off,    llm::ThinkingLevel::Minimal,
                                                      llm::ThinkingLevel::Low,    llm::ThinkingLevel::Medium,
                                                      llm::ThinkingLevel::High,   llm::ThinkingLevel::XHigh};

}  // namespace

bool is_thinking_rejection(int status, std::string_view body) {
  if (status != 400 && status != 422) return false;
  const std::string t = lower(body);
  const bool names_it = has_any(t, {"reasoning_effort", "reasoning.effort", "reasoning effort", "\"param\":\"reasoning",
                                    "budget_tokens", "thinking", "\"think\""});
  const bool refuses = has_any(t, {"unsupported", "not supported", "does not support", "doesn't support",
                                   "not allowed", "invalid value", "is not one of", "must be one of"});
  return names_it && refuses;
}

std::optional<llm::ThinkingLevel> step_down_thinking(llm::ThinkingLevel level, std::string_view body) {
  if (level == llm::ThinkingLevel::Off) return std::nullopt;
  const std::string t = lower(body);
  // "Supported values are: 'low', 'medium', and 'high'." — take the best of those below `level`.
  if (auto at = t.find("supported values"); at != std::string::npos) {
    const std::string list = t.substr(at, 200);
    for (auto it = kOrder.rbegin(); it != kOrder.rend(); ++it) {
      if (*it >= level || *it == llm::ThinkingLevel::Off) continue;
      if (list.find("'" + std::string(llm::to_string(*it)) + "'") != std::string::npos) return *it;
    }
  }
  auto pos = std::find(kOrder.begin(), kOrder.end(), level);
  return *(pos - 1);
}

}  // namespace pincer::agent
