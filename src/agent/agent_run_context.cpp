// AgentRun's side of the context engine (CX-1, CX-9, AG-5): handing the engine its host, the
// request frame, the overflow (L3) and timeout (L2) recoveries, manual compaction, and the
// `compaction` events. The loop itself is in agent_run.cpp.
#include <spdlog/spdlog.h>

#include "agent/agent_run.h"

namespace pincer::agent {

using nlohmann::json;

void AgentRun::attach_engine() {
  if (!engine_) {
    // No engine from the caller (tests, one-off runs): a default one over the given history. Its
    // messages have no transcript ids, so it can prune and cut but not record a compaction.
    context::EngineConfig config;
    config.model = in_.model;
    config.window_tokens = in_.context_window > 0 ? in_.context_window : in_.model.context_window;
    config.compaction.reserve_tokens = in_.reserve_tokens;
    engine_ = context::make_engine(context::kDefaultEngineId, std::move(config));
    context::SessionHistory history;
    for (auto& m : messages_) history.messages.push_back({std::move(m), ""});
    history.live_from = history.messages.size();
    engine_->bootstrap(std::move(history));
  }
  messages_.clear();  // the engine holds the history
  messages_.shrink_to_fit();
  context::EngineHost host;
  host.http = &http_;
  host.append_compaction = [this](const std::string& summary, const std::string& first_kept, int64_t tokens_before,
                                  const json& details) -> Result<std::string> {
    // The engine lives inside this run and is cancelled when it finishes: `this` is alive.
    return transcript_.append_compaction(summary, first_kept, tokens_before, details);
  };
  host.on_compaction = [this](const context::CompactionEvent& e) { on_compaction_event(e, compaction_retry_); };
  engine_->attach(std::move(host));
}

std::shared_ptr<const context::RequestFrame> make_request_frame(const std::string& system_prompt,
                                                                const std::vector<const tools::Tool*>& tools) {
  auto f = std::make_shared<context::RequestFrame>();
  f->system_prompt = system_prompt;
  f->tools.reserve(tools.size());
  for (const auto* tool : tools) f->tools.emplace_back(std::string(tool->name()), std::string(tool->description()), tool->parameters());
  return f;
}

const context::RequestFrame& AgentRun::frame() const {
  // MCP tools: the set may have changed since the last call.
  std::vector<const tools::Tool*> dynamic = in_.dynamic_tools ? in_.dynamic_tools->offered() : std::vector<const tools::Tool*>{};
  if (in_.frame && dynamic.empty()) return *in_.frame;
  if (frame_ && dynamic == frame_dynamic_) return *frame_;
  context::RequestFrame f = in_.frame ? *in_.frame : *make_request_frame(in_.system_prompt, in_.tools);
  for (const auto* tool : dynamic) f.tools.emplace_back(std::string(tool->name()), std::string(tool->description()), tool->parameters());
  f.fixed_chars_memo.reset();  // the tools changed
  frame_ = std::move(f);
  frame_dynamic_ = std::move(dynamic);
  return *frame_;
}

void AgentRun::on_compaction_event(const context::CompactionEvent& e, bool will_retry) {
  RunEvent ev = event(RunEvent::Kind::Compaction);
  ev.data = {{"phase", e.end ? "end" : "start"},
             {"reason", std::string(context::to_string(e.reason))},
             {"tokensBefore", e.tokens_before}};
  if (e.end) {
    ev.data["tokensAfter"] = e.tokens_after;
    ev.data["compacted"] = e.compacted;
    ev.data["willRetry"] = will_retry;
    if (!e.error.empty()) ev.data["error"] = e.error;
  }
  sink_(ev);
}

bool AgentRun::recover_context(const llm::ProviderFailure& failure) {
  if (std::exchange(no_recovery_once_, false)) return false;
  const int64_t window = in_.context_window > 0 ? in_.context_window : in_.model.context_window;
  const bool overflow = failure.reason == llm::FailoverReason::ContextOverflow;
  const bool timed_out = failure.reason == llm::FailoverReason::Timeout &&
                         (failure.http_status == 0 || failure.http_status == 408);  // not a 5xx
  const bool timeout = timed_out && !timeout_compacted_ &&
                       static_cast<double>(engine_->estimate(frame())) >
                           kTimeoutCompactionShare * static_cast<double>(window);
  if (!overflow && !timeout) return false;
  std::weak_ptr<AgentRun> weak = weak_from_this();
  auto again = [weak] {
    auto self = weak.lock();
    if (!self || self->finished_) return;
    if (self->aborted_) return self->finish_aborted();
    --self->model_calls_;  // the same model call, once more
    self->call_model();
  };
  if (timeout) {  // L2: a slow call over a large context
    timeout_compacted_ = true;
    compaction_retry_ = true;
    engine_->compact({context::CompactReason::Timeout, "", frame()}, [weak, again, failure](context::CompactResult r) {
      auto self = weak.lock();
      if (!self || self->finished_) return;
      self->compaction_retry_ = false;
      if (r.compacted) return again();
      self->no_recovery_once_ = true;
      self->handle_failure(failure);
    });
    return true;
  }
  // L3 (AG-5): compact (at most kMaxOverflowCompactions times), then cut the tool results, then
  // reset the session and say so — never a session stuck on an overflow. When the history before
  // the run's message is smaller than the message, a reset would not help: the turn fails instead
  // (message_too_large) and the session is kept (agent_run_fit.cpp).
  auto next_step = [weak, again] {
    auto self = weak.lock();
    if (!self || self->finished_) return;
    if (!self->tool_results_cut_) {
      self->tool_results_cut_ = true;
      spdlog::warn("run {}: context overflow; cutting tool results and retrying", self->in_.run_id);
      self->engine_->truncate_tool_results();
      return again();
    }
    // The message outweighs what a reset would take away: the turn fails, the session stays.
    if (self->fail_turn_too_large()) return;
    spdlog::error("run {}: context overflow after compaction and cut tool results; resetting the session",
                  self->in_.run_id);
    RunEvent e = self->event(RunEvent::Kind::Error);
    e.error = "This conversation no longer fits the model's context window, even after compacting it and cutting "
              "tool results, so the session was reset. Please send your last message again.";
    e.error_reason = "context_overflow";
    e.stop_reason = "error";
    e.reset_session = true;
    self->close_turn(llm::StopReason::Error, e.error);
    self->finish(std::move(e));
  };
  if (overflow_compactions_ >= kMaxOverflowCompactions) {
    next_step();
    return true;
  }
  ++overflow_compactions_;
  compaction_retry_ = true;
  engine_->compact({context::CompactReason::Overflow, "", frame()}, [weak, again, next_step](context::CompactResult r) {
    auto self = weak.lock();
    if (!self || self->finished_) return;
    self->compaction_retry_ = false;
    if (self->aborted_) return self->finish_aborted();
    if (r.compacted) return again();
    next_step();
  });
  return true;
}

void AgentRun::start_compaction(const std::string& instructions) {
  last_recorded_assistant_ = true;  // no turn is opened: nothing to close
  sink_(event(RunEvent::Kind::Start));
  std::weak_ptr<AgentRun> weak = weak_from_this();
  engine_->compact({context::CompactReason::Manual, instructions, frame()}, [weak](context::CompactResult r) {
    auto self = weak.lock();
    if (!self || self->finished_) return;
    if (self->aborted_) return self->finish_aborted();
    if (!r.compacted && !r.refused) return self->finish_error("Nothing was compacted: " + r.error);
    RunEvent e = self->event(RunEvent::Kind::End);
    if (!r.compacted) {
      // A refusal (one turn, a summary that would not help) is an answer, not a failure; the
      // engine's reason is OpenClaw's wording ("nothing to compact: …"), said once.
      std::string reason = r.error;
      if (reason.rfind("nothing to compact", 0) == 0) reason[0] = 'N';
      else reason = "Nothing was compacted: " + reason;
      e.text = reason + (reason.ends_with('.') ? "" : ".");
    } else {
      e.text = "Compacted the session: about " + std::to_string(r.tokens_before) + " → " + std::to_string(r.tokens_after) +
               " tokens.";
    }
    e.stop_reason = "stop";
    self->finish(std::move(e));
  });
}

}  // namespace pincer::agent
