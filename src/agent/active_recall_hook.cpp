// Active recall before a run's first model call (SPEC DR-6); see active_recall_hook.h.
#include "agent/active_recall_hook.h"

#include <spdlog/spdlog.h>

namespace pincer::agent {

namespace detail_active_recall_hook {

std::string text_of(const std::vector<llm::ContentBlock>& content) {
  std::string out;
  for (const auto& block : content) {
    if (const auto* t = std::get_if<llm::TextContent>(&block)) {
      if (!out.empty()) out += ' ';
      out += t->text;
    }
  }
  return out;
}

/// The history's user and assistant texts, oldest first (tool calls and results left out).
std::vector<memory::recall::RecentTurn> turns_of(const context::SessionHistory& history) {
  std::vector<memory::recall::RecentTurn> turns;
  for (const auto& m : history.messages) {
    if (const auto* u = std::get_if<llm::UserMessage>(m.message.get())) {
      if (std::string t = text_of(u->content); !t.empty()) turns.push_back({true, std::move(t)});
    } else if (const auto* a = std::get_if<llm::AssistantMessage>(m.message.get())) {
      if (std::string t = a->text(); !t.empty()) turns.push_back({false, std::move(t)});
    }
  }
  return turns;
}

}  // namespace detail_active_recall_hook

void attach_active_recall(memory::recall::ActiveRecall& recall, const nlohmann::json& config,
                          const ModelRegistry& models, const context::SessionHistory& history,
                          const std::string& message, RunInputs& in) {
  auto settings = memory::recall::resolve_active_recall(config, in.agent_id);
  if (!settings) return;  // off: no other work for this turn
  if (!memory::recall::allowed_in(*settings, in.session_key)) return;  // allowedChatTypes (default: direct only)
  memory::recall::RecallRequest request;
  request.model = in.model;
  if (!settings->model.empty()) {
    if (auto own = models.resolve(settings->model)) {
      request.model = std::move(*own);
    } else {
      spdlog::warn("active-memory: plugins.entries.active-memory.config.model: {}; using the run's model",
                   own.error().message);
    }
  }
  request.settings = std::move(*settings);
  request.agent_id = in.agent_id;
  request.session_key = in.session_key;
  request.workspace = in.workspace;
  request.latest = message;
  request.turns = detail_active_recall_hook::turns_of(history);
  in.hooks.before_first_call = [&recall, request = std::move(request)](std::function<void(std::string)> go) mutable {
    return recall.recall(std::move(request), [go = std::move(go)](memory::recall::RecallOutcome outcome) {
      go(outcome.status == "ok" ? memory::recall::hint_block(outcome.summary) : std::string());
    });
  };
}

}  // namespace pincer::agent
