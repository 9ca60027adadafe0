// The bridge from a session's transcript to its context engine (CX-1): the rebuilt context
// (store::build_context) as the engine's SessionHistory, and the engine configuration of an agent.
#pragma once

#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "context/context_engine.h"
#include "llm/messages.h"
#include "store/transcript.h"

namespace pincer::agent {

/// The summary of the latest compaction and every message after it with its entry id; messages
/// that do not parse are skipped (as the history always was).
context::SessionHistory session_history(const store::SessionContext& context);

/// Appends the messages `ctx.messages[from…]` to `history` = session_history of the context as it
/// was with `from` messages; valid when no compaction came in between (store::extend_context).
void extend_session_history(context::SessionHistory& history, const store::SessionContext& ctx, std::size_t from);

/// The engine of `agent` for a run of `model`: its effective window (agents.defaults.contextTokens
/// caps the model's contextWindow, budget.h effective_window), compaction settings and engine id.
context::EngineConfig engine_config(const AgentSettings& agent, const llm::ModelSpec& model);

/// The effective window of `agent`'s primary model (nullopt when it names no known model), with
/// `clamped` set when agents.defaults.contextTokens exceeds the model's window (a warning).
/// `model_ref` ("provider/model"): the session's model when it overrides the agent's ("" = the
/// agent's primary).
std::optional<context::EffectiveWindow> agent_window(const AgentSettings& agent, const ModelRegistry& models,
                                                     std::string_view model_ref = {});

/// The warning shown (/status, `pincer status`, the log) for a clamped window; "" when none.
std::string window_warning(const AgentSettings& agent, const ModelRegistry& models);

}  // namespace pincer::agent
