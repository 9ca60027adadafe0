// AgentRun and a message too large for the model's context window (SPEC AG-5, message_fit.h):
// refused before the first model call when its estimate alone leaves no room, and, when the
// provider still refuses the turn after compaction while the history before the message is
// smaller than the message (a reset would not help), failed instead of resetting the session —
// and, when no tool ran, the message taken off the session's branch (a side branch keeps it). Either way the run ends with an Error whose error_reason is
// "message_too_large" and whose text names the message's estimate and the window. A turn whose
// system prompt and tools alone fill the window is refused up front too ("context_window_too_small",
// naming the model, its window and the frame's estimate): no request to that model can fit.
#include <spdlog/spdlog.h>

#include "agent/agent_run.h"
#include "store/session_tree.h"

namespace pincer::agent {

bool AgentRun::refuse_oversized(const llm::Message& user) {
  const int64_t window = in_.context_window > 0 ? in_.context_window : in_.model.context_window;
  turn_fit_ = context::fit_message(user, frame(), window, in_.reserve_tokens);
  // The system prompt and tools alone fill the window: every request would overflow (a setup problem).
  const bool frame_too_large = context::frame_fills_window(*turn_fit_);
  if (!frame_too_large && turn_fit_->fits()) return false;
  const std::string model = in_.model.provider + "/" + in_.model.id;
  spdlog::warn("run {}: message of ~{} tokens refused: {} has {} tokens for it (window {}, budget {}, frame ~{}{})",
               in_.run_id, turn_fit_->message_tokens, model, turn_fit_->room_tokens, turn_fit_->window_tokens,
               turn_fit_->budget_tokens, turn_fit_->frame_tokens, frame_too_large ? ", which fills the window" : "");
  // Nothing is recorded: the message is not in the transcript and the turn has nothing to close,
  // so the session's next turn sees the history as it was before this one.
  last_recorded_assistant_ = true;
  sink_(event(RunEvent::Kind::Start));
  RunEvent e = event(RunEvent::Kind::Error);
  e.error = frame_too_large ? context::frame_too_large_text(*turn_fit_, model)
                            : context::message_too_large_text(*turn_fit_, model);
  e.error_reason = std::string(frame_too_large ? context::kContextWindowTooSmallReason : context::kMessageTooLargeReason);
  e.stop_reason = "error";
  finish(std::move(e));
  return true;
}

bool AgentRun::fail_turn_too_large() {
  const std::optional<int64_t> earlier = engine_->earlier_tokens();
  if (!turn_fit_ || !earlier || *earlier >= turn_fit_->message_tokens) return false;
  const std::string model = in_.model.provider + "/" + in_.model.id;
  spdlog::error("run {}: context overflow; the message (~{} tokens) outweighs the history before it (~{} tokens): "
                "failing the turn, the session is kept",
                in_.run_id, turn_fit_->message_tokens, *earlier);
  const bool tools_ran = model_calls_ > 1;  // (a retry of the same call does not count)
  const std::string text = context::turn_too_large_text(*turn_fit_, *earlier, tools_ran, model);
  close_turn(llm::StopReason::Error, text);  // the turn ends on its own branch …
  if (turn_parent_ && !tools_ran && last_recorded_assistant_) {
    // … which the session leaves (SS-4): the branch goes on from where it was before the message,
    // as if it had been refused up front. Nothing is lost: /tree still shows the message. A tool
    // that ran had effects the model must keep seeing, so such a turn stays on the branch.
    const std::string old_leaf = transcript_.leaf_id();
    if (auto st = transcript_.set_leaf(*turn_parent_); !st) {
      spdlog::warn("run {}: the turn stays in the session ({})", in_.run_id, st.error().message);
    } else if (auto marker = transcript_.append_custom(store::kBranchMarkerType,
                                                       {{"fromId", old_leaf}, {"runId", in_.run_id},
                                                        {"reason", context::kMessageTooLargeReason}});
               !marker) {
      spdlog::warn("run {}: the turn stays in the session ({})", in_.run_id, marker.error().message);
      (void)transcript_.set_leaf(old_leaf);
    }
  }
  finish_error(text, context::kMessageTooLargeReason);
  return true;
}

}  // namespace pincer::agent
