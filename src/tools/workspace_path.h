// Confining model-supplied paths to the agent workspace (SPEC TL-6).
//
// A path is taken literally: relative paths are relative to the workspace, `~` is an ordinary
// directory name (not the home directory), absolute paths are accepted only when they land inside.
// Resolution follows the kernel's rules the way realpath(3) does — `..` after a symlink goes to the
// symlink target's parent — and also follows dangling symlinks to where a write would create the
// file, so neither `..` nor a symlink (existing or dangling) can lead outside.
//
// Race note: a concurrent process (e.g. a background exec) could swap a directory for a symlink
// between resolution and use; tools open the resolved real path, which narrows but does not close
// that window.
//
// Pure functions over the filesystem state; thread-safe; blocking (lstat/readlink).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"

namespace pincer::tools {

/// Where a workspace path leads.
struct WorkspacePath {
  /// Absolute path with every symlink resolved (except a final one under kKeepFinalSymlink).
  /// Components after the first one that does not exist are appended as given.
  std::filesystem::path real;
  /// `real` relative to the workspace root ("." for the root itself), for messages to the model.
  std::string relative;
};

enum class FinalSymlink {
  kFollow,  ///< read/write/edit: act on what a final symlink points to (it must stay inside)
  kKeep,    ///< delete/rename: act on the link itself (only its directory must be inside)
};

/// Resolves `user_path` inside `workspace` (which must exist; it is canonicalised first).
/// Errors (message names the path exactly as given):
///  - "PATH_INVALID": empty, or contains a NUL byte — `path must not be empty`
///  - "PATH_OUTSIDE_WORKSPACE": `path "../etc/passwd" is outside the workspace`
///  - "PATH_SYMLINK_LOOP": more than 40 symlinks followed
///  - "WORKSPACE_MISSING": the workspace itself cannot be resolved
Result<WorkspacePath> resolve_workspace_path(const std::filesystem::path& workspace, std::string_view user_path,
                                             FinalSymlink final_symlink = FinalSymlink::kFollow);

}  // namespace pincer::tools
