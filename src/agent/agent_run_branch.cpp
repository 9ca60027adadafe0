// AgentRun's `/tree ID` (SPEC SS-4): moves the session's leaf to another point of its transcript
// tree, leaving behind a branch summary — written by the model, or extractive when that fails —
// so what the abandoned branch learned stays in the context. No model turn is run.
#include <spdlog/spdlog.h>

#include "agent/agent_run.h"
#include "agent/branch_switch.h"
#include "agent/text_cut.h"
#include "context/compaction.h"
#include "context/summarizer.h"

namespace pincer::agent {

using nlohmann::json;

BranchPlan make_branch_plan(const store::BranchSwitch& plan) {
  BranchPlan out;
  out.new_parent = plan.new_parent;
  out.old_leaf = plan.old_leaf;
  out.retry_text = plan.retry_text;
  for (const auto* entry : plan.abandoned) {
    if (entry->type == "branch_summary" && entry->raw.contains("summary") && entry->raw["summary"].is_string()) {
      out.abandoned.push_back("[Earlier branch summary]: " + entry->raw["summary"].get<std::string>());
      continue;
    }
    if (entry->type != "message" || !entry->raw.contains("message")) continue;
    for (const auto& converted : store::to_llm_messages({entry->raw["message"]})) {
      if (auto message = llm::message_from_json(converted)) out.abandoned.push_back(context::serialize_for_summary(*message));
    }
  }
  return out;
}

std::optional<BranchPlan> finished_branch_switch(const std::vector<store::TranscriptEntry>& entries,
                                                 const std::string& run_id) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    const json* tag = nullptr;
    if (it->type == "branch_summary" && it->raw.contains("details") && it->raw["details"].is_object()) {
      tag = &it->raw["details"];
    } else if (it->type == "custom" && it->raw.value("customType", "") == store::kBranchMarkerType &&
               it->raw.contains("data") && it->raw["data"].is_object()) {
      tag = &it->raw["data"];
    }
    if (!tag || tag->value("runId", "") != run_id) continue;
    BranchPlan done;
    done.new_parent = it->parent_id.value_or("");
    done.old_leaf = it->raw.value("fromId", tag->value("fromId", ""));
    done.already_done = true;
    return done;
  }
  return std::nullopt;
}

std::string extractive_branch_summary(const std::vector<std::string>& abandoned, const std::string& why) {
  constexpr std::size_t kPerMessage = 300, kTotal = 4000;
  std::vector<std::string> kept;
  std::size_t total = 0;
  for (auto it = abandoned.rbegin(); it != abandoned.rend() && total < kTotal; ++it) {
    std::string line(text::head(*it, kPerMessage));
    if (line.size() < it->size()) line += "…";
    total += line.size() + 1;
    kept.insert(kept.begin(), std::move(line));
  }
  std::string out = "(No summary could be written (" + why + "); the branch's " +
                    (kept.size() < abandoned.size() ? "last " : "") + "messages, shortened:)";
  for (const auto& line : kept) out += "\n" + line;
  return out;
}

void AgentRun::start_branch_switch(BranchPlan plan) {
  last_recorded_assistant_ = true;  // no turn is opened: nothing to close
  sink_(event(RunEvent::Kind::Start));
  if (plan.already_done) {  // written before a restart cut the run off: only said now
    RunEvent e = event(RunEvent::Kind::End);
    e.text = "Switched branch: the conversation goes on from " +
             (plan.new_parent.empty() ? std::string("the start") : "entry " + plan.new_parent) +
             " (done before the gateway restarted).";
    e.stop_reason = "stop";
    return finish(std::move(e));
  }
  if (auto st = transcript_.set_leaf(plan.new_parent); !st) return finish_error(st.error().message);
  auto record = [weak = weak_from_this(), plan, run_id = in_.run_id](std::string summary, bool summarised) {
    auto self = weak.lock();
    if (!self || self->finished_) return;
    if (self->aborted_) return self->finish_aborted();
    // The new leaf: a branch summary when something was left behind, else a marker the context
    // never sees. Either is the last entry in file order, so the switch survives a restart; the
    // run id in it tells a rerun from the run journal that it was done (finished_branch_switch).
    auto appended = plan.abandoned.empty()
                        ? self->transcript_.append_custom(store::kBranchMarkerType,
                                                          json{{"fromId", plan.old_leaf}, {"runId", run_id}})
                        : self->transcript_.append_branch_summary(plan.old_leaf, summary,
                                                                  json{{"summarised", summarised}, {"runId", run_id}});
    if (!appended) return self->finish_error("cannot save the session: " + appended.error().message);
    RunEvent e = self->event(RunEvent::Kind::End);
    e.text = "Switched branch: the conversation goes on from " +
             (plan.new_parent.empty() ? std::string("the start") : "entry " + plan.new_parent);
    if (!plan.abandoned.empty()) {
      e.text += summarised ? "; the branch you left is summarised for the model."
                           : "; the model could not summarise the branch you left, so its messages go along, shortened.";
    } else {
      e.text += ".";
    }
    if (!plan.retry_text.empty()) {
      e.text += "\nYour message there was: \"" + std::string(text::head(plan.retry_text, 200)) +
                (plan.retry_text.size() > 200 ? "…" : "") + "\" — send it again, or another one.";
    }
    e.stop_reason = "stop";
    self->finish(std::move(e));
  };
  if (plan.abandoned.empty()) return record("", false);
  context::SummaryJob job;
  job.model = in_.model;
  job.window_tokens = in_.context_window > 0 ? in_.context_window : in_.model.context_window;
  job.messages = plan.abandoned;
  job.instructions = kBranchSummaryInstructions;
  branch_summarizer_ = std::make_shared<context::Summarizer>(
      http_, std::move(job), [record, abandoned = plan.abandoned, run_id = in_.run_id](Result<std::string> summary) {
        if (summary) return record(std::move(*summary), true);
        spdlog::warn("run {}: the branch summary failed ({}); keeping the branch's messages instead", run_id,
                     summary.error().message);
        record(extractive_branch_summary(abandoned, summary.error().message), false);
      });
  branch_summarizer_->start();
}

}  // namespace pincer::agent
