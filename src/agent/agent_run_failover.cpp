// AgentRun's side of model failover (PV-5): the chain decides (model_failover.h), the run retries
// the same request, or moves to the next candidate and calls again with a request built for it.
#include <spdlog/spdlog.h>

#include "agent/agent_run.h"

namespace pincer::agent {

void AgentRun::schedule_retry(int64_t wait_ms) {
  auto self = shared_from_this();
  retry_timer_ = loop_.after(wait_ms, [self] {
    self->retry_timer_.reset();
    if (self->aborted_) return self->finish_aborted();
    self->retry_();
  });
}

bool AgentRun::fail_over(const llm::ProviderFailure& failure, int64_t wait_ms) {
  // A retry that backoff_ms refuses (Retry-After beyond its cap) counts as out of attempts.
  const int attempt = wait_ms > 0 ? attempt_ : in_.max_attempts;
  switch (in_.failover->on_failure(failure, attempt, in_.max_attempts, clock_.wall_ms())) {
    case ModelFailover::Action::Retry:
      if (wait_ms <= 0) return false;
      schedule_retry(wait_ms);
      return true;
    case ModelFailover::Action::Switch:
      use_candidate(/*announce=*/true);
      if (!api_ && !cli_model()) {
        finish_error("model " + in_.model.provider + "/" + in_.model.id + " uses unknown api \"" + in_.model.api + "\"");
        return true;
      }
      --model_calls_;  // the same step, another model or credential
      call_model();
      return true;
    case ModelFailover::Action::GiveUp:
      break;
  }
  return false;
}

void AgentRun::use_candidate(bool announce) {
  const ModelCandidate& c = in_.failover->current();
  in_.model = c.model;
  api_ = llm::find_api(in_.model.api);
  // The window the context was budgeted for must fit the model now answering.
  if (in_.context_window <= 0 || in_.model.context_window < in_.context_window) in_.context_window = in_.model.context_window;
  if (!announce || in_.failover->switches().empty()) return;
  RunEvent e = event(RunEvent::Kind::Failover);
  e.data = in_.failover->switches().back().to_json();
  sink_(e);
}

std::string AgentRun::failover_summary() const {
  if (!in_.failover || in_.failover->switches().empty()) return "";
  std::string out = " (failed over: ";
  bool first = true;
  for (const auto& s : in_.failover->switches()) {
    if (!first) out += "; ";
    first = false;
    out += s.from + " → " + s.to + ": " + s.reason + (s.cause.empty() ? "" : ", " + s.cause);
  }
  return out + ")";
}

}  // namespace pincer::agent
