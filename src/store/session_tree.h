// The branches of a session's transcript (SPEC SS-4, `/tree`): transcript entries form a tree
// through parentId (transcript.h); the active branch runs from the root to the leaf, the last
// entry in file order. These functions list the branches and plan a switch to another point of
// the tree; they read entries only — moving the leaf and writing the branch summary is the
// runner's job (agent/agent_run_branch.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/transcript.h"

namespace pincer::store {

/// A user message on the active branch: where `/tree ID` can go back to.
struct TreeTurn {
  std::string entry_id;  ///< the user message's entry
  std::string text;      ///< its text, cut to `preview_chars`
};

/// A branch other than the active one, named by its leaf.
struct TreeBranch {
  std::string leaf_id;
  std::string fork_id;       ///< the last entry it shares with the active branch ("" = none)
  std::size_t messages = 0;  ///< message entries after the fork
  std::string timestamp;     ///< its leaf's (ISO 8601 as written)
  std::string text;          ///< its first user message after the fork ("" = none), cut
};

struct TreeView {
  std::string leaf_id;                 ///< the active branch's leaf ("" = empty transcript)
  std::vector<TreeTurn> turns;         ///< user messages on the active branch, oldest first
  std::vector<TreeBranch> branches;    ///< the other branches, newest leaf first
};

/// The tree of `entries` (file order) as `/tree` shows it. Texts are cut to `preview_chars`
/// characters (UTF-8 safe) with "…"; entries of types the context ignores are not counted.
TreeView tree_view(const std::vector<TranscriptEntry>& entries, std::size_t preview_chars = 80);

/// The entry whose id is `id` or starts with it (4 to 64 hex characters, case-insensitive).
/// Errors: "INVALID_REQUEST" (shorter than 4 or longer than 64 characters, or not hex),
/// "ENTRY_NOT_FOUND", "AMBIGUOUS" (several ids start with it: their count is in the message).
/// Messages show at most the first 40 characters of `id`.
Result<std::size_t> resolve_entry(const std::vector<TranscriptEntry>& entries, std::string_view id);

/// What switching the active branch to an entry means.
struct BranchSwitch {
  /// The entry the next one hangs off. For a user message it is that message's parent — the
  /// conversation goes on from just before it, as when the message is edited and sent again —
  /// for any other entry the entry itself. "" = a new root.
  std::string new_parent;
  std::string old_leaf;  ///< the active branch's leaf before the switch
  /// Entries of the active branch that the new branch does not contain, oldest first (what the
  /// branch summary tells the model about). Pointers into the caller's `entries`.
  std::vector<const TranscriptEntry*> abandoned;
  /// The text of the user message switched to ("" for other entries): the user may send it anew.
  std::string retry_text;
};

/// Plans `/tree ID`. Errors: those of resolve_entry, and "NOTHING_TO_DO" when the switch would
/// leave the active branch as it is.
Result<BranchSwitch> plan_branch_switch(const std::vector<TranscriptEntry>& entries, std::string_view id);

/// The `customType` of the entry that records a switch with nothing to summarise: appended as a
/// child of the new parent it makes the switch survive a restart (the leaf is the last entry in
/// file order) and, being a `custom` entry, is never sent to the model.
inline constexpr std::string_view kBranchMarkerType = "pincer.branch";

}  // namespace pincer::store
