// Smart approval (SPEC TL-4, from Hermes): with `approvals.mode: smart`, a command that would be
// asked is first shown to a small model (`approvals.triageModel`, else the agent's model), which
// answers SAFE, DANGEROUS or ASK with a reason. Only ASK reaches a person; a failed, slow
// (`approvals.triageTimeoutSec`) or unclear answer asks too. The verdict and reason are logged
// by the ApprovalManager.
//
// Loop affinity: event-loop thread; the model call is the agent runtime's HttpClient.
#pragma once

#include <string>

#include "agent/model_registry.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "tools/approvals/approval_manager.h"

namespace pincer::agent {

/// The triage hook of ApprovalManager::set_triage. `models` and `http` must outlive it; `model_ref`
/// "" = no triage model (every call fails over to asking).
tools::approvals::TriageHook make_triage_hook(EventLoop& loop, net::HttpClient& http, const ModelRegistry& models,
                                              const std::string* model_ref, const int64_t* timeout_ms);

/// The verdict in a model's answer: its first word SAFE / DANGEROUS / ASK (any case, punctuation
/// ignored) → "safe" / "dangerous" / "ask-human"; anything else → "" (a failure). The reason is the
/// rest of the text.
tools::approvals::Triage parse_triage_answer(const std::string& text);

}  // namespace pincer::agent
