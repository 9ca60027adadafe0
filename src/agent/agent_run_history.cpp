// The history a run sends, made safe for the providers (sanitize_history, incomplete_reply_note;
// declared in agent_run.h).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/agent_run.h"

namespace pincer::agent {

namespace detail_agent_run_history {

bool reply_has_text(const llm::AssistantMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<llm::TextContent>(&block); t && !t->text.empty()) return true;
  }
  return false;
}

}  // namespace detail_agent_run_history

std::string incomplete_reply_note(const llm::AssistantMessage& m) {
  // Our own abort reasons are short and say why ("aborted (stop)", kInterruptedTurnMessage); a
  // provider's error text is not repeated to the model.
  const std::string why = m.stop_reason == llm::StopReason::Error ? "the model call failed"
                          : m.error_message.empty()                ? "aborted"
                                                                   : m.error_message;
  const std::string note = "[this reply is incomplete: " + why + "]";
  return detail_agent_run_history::reply_has_text(m) ? "\n\n" + note : note;
}

std::vector<llm::Message> sanitize_history(std::vector<llm::Message> messages) {
  std::set<std::string> answered;  // tool call ids that have a result
  std::set<std::string> called;
  for (const auto& m : messages) {
    if (const auto* r = std::get_if<llm::ToolResultMessage>(&m)) answered.insert(r->tool_call_id);
    if (const auto* a = std::get_if<llm::AssistantMessage>(&m)) {
      for (const auto* call : a->tool_calls()) called.insert(call->id);
    }
  }
  std::vector<llm::Message> out;
  out.reserve(messages.size());
  for (auto& m : messages) {  // moved from: the caller's copy is this function's
    if (auto* a = std::get_if<llm::AssistantMessage>(&m)) {
      std::erase_if(a->content, [&](const llm::ContentBlock& b) {
        const auto* call = std::get_if<llm::ToolCall>(&b);
        return call && !answered.contains(call->id);
      });
      const bool failed = a->stop_reason == llm::StopReason::Error || a->stop_reason == llm::StopReason::Aborted;
      if (failed) {
        // The providers' history rules drop failed and aborted replies, which would leave the
        // turn's request unanswered (two user messages in a row): the model would answer it again
        // as if it were new. Keep the turn, marked, as an ordinary reply instead (AG-2).
        auto first_call = std::find_if(a->content.begin(), a->content.end(), [](const llm::ContentBlock& b) {
          return std::holds_alternative<llm::ToolCall>(b);
        });
        a->content.insert(first_call, llm::TextContent{incomplete_reply_note(*a)});
        a->stop_reason = a->tool_calls().empty() ? llm::StopReason::Stop : llm::StopReason::ToolUse;
      }
      if (a->content.empty()) continue;
      out.emplace_back(std::move(m));
    } else if (const auto* r = std::get_if<llm::ToolResultMessage>(&m)) {
      if (called.contains(r->tool_call_id)) out.push_back(std::move(m));
    } else {
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace pincer::agent
