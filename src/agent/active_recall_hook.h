// The agent's side of active recall (SPEC DR-6, memory/recall/active_recall.h): hooks one
// bounded recall into a run before its first model call. Called by AgentService::start on the
// event-loop thread for a user's turn on the main lane (not compaction, memory flush, /tree,
// resumed turns, sub-agent announcements, cron, heartbeats or hooks).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_run.h"
#include "agent/model_registry.h"
#include "context/context_engine.h"
#include "memory/recall/active_recall.h"

namespace pincer::agent {

/// When active recall is on for `in.agent_id` (plugins.entries["active-memory"], resolved per
/// call: a config reload applies to the next turn), sets in.hooks.before_first_call: the run's
/// first model call waits for the recall of `message` over `history` (at most its timeoutMs),
/// and a note it found goes before that message in every request of the run (never recorded).
/// `in.model` must be set (the recall's model unless `config.model` names another, resolved
/// with `models`; an unknown one is logged and the run's model used). Otherwise nothing at all.
void attach_active_recall(memory::recall::ActiveRecall& recall, const nlohmann::json& config,
                          const ModelRegistry& models, const context::SessionHistory& history,
                          const std::string& message, RunInputs& in);

}  // namespace pincer::agent
