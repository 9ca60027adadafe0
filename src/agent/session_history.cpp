#include "agent/session_history.h"

#include "agent/recall_hooks.h"

namespace pincer::agent {

namespace {

/// Message `i` of the rebuilt context as the engine's history message(s), appended to `out`.
void append_history_message(const store::SessionContext& ctx, std::size_t i, context::SessionHistory& out) {
  const auto& m = ctx.messages[i];
  if (const auto role = m.is_object() ? m.find("role") : m.end(); role != m.end() && role->is_string()) {
    const auto& r = role->get_ref<const std::string&>();
    if (r == "user" || r == "assistant" || r == "toolResult") {  // to_llm_messages passes these on as they are
      if (auto parsed = llm::message_from_json(m)) {
        out.messages.push_back({std::move(*parsed), i < ctx.entry_ids.size() ? ctx.entry_ids[i] : std::string()});
      }
      return;
    }
  }
  if (m.is_object() && m.value("role", "") == "compactionSummary") {
    out.summary = m.value("summary", "");
    out.summary_tokens_before =
        m.contains("tokensBefore") && m["tokensBefore"].is_number_integer() ? m["tokensBefore"].get<int64_t>() : 0;
    return;
  }
  // The startup context (recall_hooks.h) carries no time: no turn-context block is put before
  // it, so it reads the same in every request of the session.
  const bool startup = m.is_object() && m.value("role", "") == "custom" && m.value("customType", "") == kStartupContextType;
  for (auto converted : store::to_llm_messages({m})) {
    if (startup && converted.is_object()) converted["timestamp"] = 0;
    if (auto parsed = llm::message_from_json(converted)) {
      out.messages.push_back({std::move(*parsed), i < ctx.entry_ids.size() ? ctx.entry_ids[i] : std::string()});
    }
  }
}

}  // namespace

context::SessionHistory session_history(const store::SessionContext& ctx) {
  context::SessionHistory out;
  bool live_set = false;
  for (std::size_t i = 0; i < ctx.messages.size(); ++i) {
    if (i == ctx.live_from && ctx.live_from > 0) {
      out.live_from = out.messages.size();
      live_set = true;
    }
    append_history_message(ctx, i, out);
  }
  if (!live_set) out.live_from = ctx.live_from > 0 ? out.messages.size() : 0;
  return out;
}

void extend_session_history(context::SessionHistory& history, const store::SessionContext& ctx, std::size_t from) {
  for (std::size_t i = from; i < ctx.messages.size(); ++i) append_history_message(ctx, i, history);
}

context::EngineConfig engine_config(const AgentSettings& agent, const llm::ModelSpec& model) {
  context::EngineConfig config;
  config.model = model;
  config.window_tokens = context::effective_window(model.context_window, agent.context_tokens).tokens;
  config.compaction = agent.compaction;
  return config;
}

std::optional<context::EffectiveWindow> agent_window(const AgentSettings& agent, const ModelRegistry& models,
                                                     std::string_view model_ref) {
  const std::string_view ref = model_ref.empty() ? std::string_view(agent.model.primary) : model_ref;
  const ModelEntry* entry = ref.empty() ? nullptr : models.find(ref);
  if (!entry) return std::nullopt;
  return context::effective_window(entry->spec.context_window, agent.context_tokens);
}

std::string window_warning(const AgentSettings& agent, const ModelRegistry& models) {
  auto w = agent_window(agent, models);
  if (!w || !w->clamped) return "";
  return "agents.defaults.contextTokens (" + std::to_string(*agent.context_tokens) + ") is larger than the " +
         agent.model.primary + " context window (" + std::to_string(w->tokens) + "); using " +
         std::to_string(w->tokens);
}

}  // namespace pincer::agent
