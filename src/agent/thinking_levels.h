// Thinking levels across providers (SPEC AG-7): off < minimal < low < medium < high < xhigh, each
// API maps a level to its own parameter (Chat Completions `reasoning_effort`, Responses
// `reasoning.effort`, Anthropic `thinking.budget_tokens`, Ollama `think`). A provider that does not
// take the requested level answers HTTP 400; the run then steps the level down and calls again
// (AgentRun::handle_failure), before anything was shown to the user.
//
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "llm/messages.h"

namespace pincer::agent {

/// True when an HTTP error answer (`status`, `body` as the provider sent it) says that the
/// thinking/reasoning setting of the request is not accepted: a 400 or 422 whose body names the
/// parameter (`reasoning_effort`, `reasoning.effort`, `thinking`, `budget_tokens`, `think`) and says
/// it is unsupported or invalid — OpenAI's `{"error":{"code":"unsupported_value","param":
/// "reasoning_effort",…}}`, Anthropic's `invalid_request_error` "… does not support thinking".
bool is_thinking_rejection(int status, std::string_view body);

/// The level to retry with after `level` was rejected: the highest level the error lists as
/// supported ("Supported values are: 'low', 'medium', and 'high'.") that is below `level`, else
/// the next lower level. nullopt for Off (nothing left to step down).
std::optional<llm::ThinkingLevel> step_down_thinking(llm::ThinkingLevel level, std::string_view body = {});

}  // namespace pincer::agent
