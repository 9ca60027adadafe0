// `/tree ID` (SPEC SS-4) as the runner carries it out: the plan of the switch (store/session_tree.h)
// turned into what the run needs after the transcript's entries are gone — the new parent, the
// abandoned branch as summariser text — and the texts of the summary request and its fallback.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/session_tree.h"

namespace pincer::agent {

struct BranchPlan {
  std::string new_parent;  ///< the entry the branch summary (or marker) hangs off ("" = a new root)
  std::string old_leaf;    ///< the branch summary's fromId
  /// The abandoned messages as summariser text (context/compaction.h serialize_for_summary),
  /// oldest first; branch summaries met on the way count as messages too.
  std::vector<std::string> abandoned;
  std::string retry_text;  ///< the user message switched to ("" = none)
  /// The switch was already recorded by this run before a restart (finished_branch_switch): the
  /// runner only reports it.
  bool already_done = false;
};

/// The plan for the runner; messages that do not parse are left out.
BranchPlan make_branch_plan(const store::BranchSwitch& plan);

/// A switch resumed after a restart (the run journal, SS-6) that run `run_id` had already written
/// before the gateway died: the branch summary or marker carrying its run id. nullopt = not
/// written yet (the switch is planned and carried out again). Keeps a switch exactly-once.
std::optional<BranchPlan> finished_branch_switch(const std::vector<store::TranscriptEntry>& entries,
                                                 const std::string& run_id);

/// What the summariser is asked to do with the abandoned branch (beside its compaction prompt).
inline constexpr const char* kBranchSummaryInstructions =
    "These messages are a branch of the conversation that the user is leaving, to go on from an earlier "
    "point. Summarise what was learned, decided or done on this branch (facts found, files changed, "
    "commands run, open questions) so that the conversation can still use it. Do not continue it.";

/// The summary used when the summariser fails (`why`): the abandoned messages themselves, each cut
/// to 300 characters, the most recent kept when they exceed 4 000 characters — never nothing.
std::string extractive_branch_summary(const std::vector<std::string>& abandoned, const std::string& why);

}  // namespace pincer::agent
