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

llm::MessageList sanitize_history(llm::MessageList messages) {
  std::set<std::string> answered;  // tool call ids that have a result
  std::set<std::string> called;
  for (const auto& m : messages) {
    if (const auto* r = std::get_if<llm::ToolResultMessage>(&m)) answered.insert(r->tool_call_id);
    if (const auto* a = std::get_if<llm::AssistantMessage>(&m)) {
      for (const auto* call : a->tool_calls()) called.insert(call->id);
    }
  }
  auto unanswered = [&](const llm::ContentBlock& b) {
    const auto* call = std::get_if<llm::ToolCall>(&b);
    return call && !answered.contains(call->id);
  };
  llm::MessageList out;
  out.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const llm::Message& m = messages[i];
    if (const auto* kept = std::get_if<llm::AssistantMessage>(&m)) {
      const bool failed = kept->stop_reason == llm::StopReason::Error || kept->stop_reason == llm::StopReason::Aborted;
      if (!failed && std::none_of(kept->content.begin(), kept->content.end(), unanswered)) {
        if (!kept->content.empty()) out.push_back(messages.shared(i));  // as it is: shared, not copied
        continue;
      }
      auto& a = std::get<llm::AssistantMessage>(messages.mutate(i));
      std::erase_if(a.content, unanswered);
      if (failed) {
        // The providers' history rules drop failed and aborted replies, which would leave the
        // turn's request unanswered (two user messages in a row): the model would answer it again
        // as if it were new. Keep the turn, marked, as an ordinary reply instead (AG-2).
        auto first_call = std::find_if(a.content.begin(), a.content.end(), [](const llm::ContentBlock& b) {
          return std::holds_alternative<llm::ToolCall>(b);
        });
        a.content.insert(first_call, llm::TextContent{incomplete_reply_note(a)});
        a.stop_reason = a.tool_calls().empty() ? llm::StopReason::Stop : llm::StopReason::ToolUse;
      }
      if (!a.content.empty()) out.push_back(messages.shared(i));
    } else if (const auto* r = std::get_if<llm::ToolResultMessage>(&m)) {
      if (called.contains(r->tool_call_id)) out.push_back(messages.shared(i));
    } else {
      out.push_back(messages.shared(i));
    }
  }
  return out;
}

}  // namespace pincer::agent
