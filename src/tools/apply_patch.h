// The OpenAI/Codex `apply_patch` format (as accepted by OpenClaw's apply_patch tool):
//
//   *** Begin Patch
//   *** Add File: path/new.txt        followed by "+line" lines (the whole content)
//   *** Delete File: path/old.txt
//   *** Update File: path/file.txt
//   *** Move to: path/renamed.txt     optional, directly after its Update header
//   @@ optional context line          one per hunk; the first hunk may omit "@@"
//    context line                     ' ' context, '-' removed, '+' added; a blank line is blank context
//   -old line
//   +new line
//   *** End of File                   optional: the hunk must match at the end of the file
//   *** End Patch
//
// Hunks are located like Codex does: after the `@@` context line (when given), searching forward
// from the previous hunk, first exactly, then ignoring trailing whitespace, then surrounding
// whitespace, then typographic punctuation (dashes, quotes, non-breaking spaces). A hunk without
// removed or context lines appends at the end of the file. Context lines keep the file's own text
// (a loose match does not rewrite them). Results always end with a newline;
// CRLF files stay CRLF.
//
// Applying to a workspace checks every operation first (paths confined per workspace_path.h,
// Add/Move targets must not exist unless deleted earlier in the same patch, every hunk must
// match), and only then writes: each file atomically, so a bad hunk changes nothing.
// Pure functions except `apply_patch_in_workspace` (blocking file I/O); thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::tools::patch {

struct Hunk {
  std::optional<std::string> context;  ///< text after "@@ ", if any
  std::vector<std::string> old_lines;  ///< context + removed lines, in order
  std::vector<std::string> new_lines;  ///< context + added lines, in order
  std::vector<int> new_from_old;       ///< per new line: index of the same context line in old_lines, or -1
  bool end_of_file = false;
};

enum class OpKind { kAdd, kDelete, kUpdate };

struct FileOp {
  OpKind kind = OpKind::kAdd;
  std::string path;                    ///< as written in the patch
  std::optional<std::string> move_to;  ///< Update only
  std::string content;                 ///< Add only: full new content ("\n"-terminated lines)
  std::vector<Hunk> hunks;             ///< Update only; never empty
};

struct Patch {
  std::vector<FileOp> ops;
};

/// Parses the envelope and operations. Tolerates CRLF, surrounding blank lines and a heredoc
/// wrapper (`<<'EOF'` … `EOF`). Error "PATCH_INVALID" with a message like
/// `line 3: expected "*** Add File:", "*** Delete File:" or "*** Update File:", got "foo"`.
Result<Patch> parse_patch(std::string_view input);

/// Applies `hunks` to `original`. Error "PATCH_MISMATCH": `could not find the expected lines in
/// <shown_path>:` followed by the lines, or `could not find the context "@@ x" in <shown_path>`.
Result<std::string> apply_hunks(std::string_view original, const std::vector<Hunk>& hunks, std::string_view shown_path);

/// One applied change: kind 'A' (added), 'M' (modified, possibly moved) or 'D' (deleted), and the
/// workspace-relative path (the destination for moves).
struct Change {
  char kind;
  std::string path;
  std::string moved_from;  ///< non-empty for moves
};

/// Verifies then applies `patch` inside `workspace`. Errors: those of resolve_workspace_path,
/// "PATCH_MISMATCH", "PATCH_CONFLICT" (Add/Move onto an existing file), "NOT_FOUND" (update or
/// delete of a missing file), "NOT_A_FILE", "TOO_LARGE", "IO_ERROR" (message lists the files
/// already written when a write fails half-way).
Result<std::vector<Change>> apply_patch_in_workspace(const std::filesystem::path& workspace, const Patch& patch);

}  // namespace pincer::tools::patch
