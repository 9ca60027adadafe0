// Confining model-supplied paths to the agent workspace (SPEC TL-6).
//
// A path is taken literally: relative paths are relative to the workspace, `~` is an ordinary
// directory name (not the home directory), absolute paths are accepted only when they land inside.
// Resolution follows the kernel's rules the way realpath(3) does — `..` after a symlink goes to the
// symlink target's parent — and also follows dangling symlinks to where a write would create the
// file, so neither `..` nor a symlink (existing or dangling) can lead outside. Components below a
// missing one cannot be symlinks; a `..` that climbs back out of the missing part resumes the
// resolution (`nope/../link/x` follows `link`). The existing part of the result is then opened
// by the kernel with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) below the workspace, which
// refuses it if anything on the way is (by now) a symlink or outside; kernels without openat2
// (< 5.6, ENOSYS) get the same check from a component-by-component O_NOFOLLOW walk.
//
// Race note: a concurrent process (e.g. a background exec) could swap a directory for a symlink
// between resolution and use. open_in_workspace() and the descriptor-based file I/O of
// file_io.h close that window for read, write, edit and apply_patch, and exec enters its workdir
// through a descriptor opened the same way (SpawnOptions::cwd_fd).
//
// Pure functions over the filesystem state; thread-safe; blocking (lstat/readlink/openat2).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::tools {

/// Where a workspace path leads.
struct WorkspacePath {
  /// Absolute path with every symlink resolved (except a final one under kKeepFinalSymlink).
  /// Components after the first one that does not exist are appended as given.
  std::filesystem::path real;
  /// `real` relative to the workspace root ("." for the root itself), for messages to the model.
  std::string relative;
  /// The canonical workspace root `real` is below.
  std::filesystem::path root;
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

/// open(2) of a resolved path that follows no symlink at all and cannot leave `p.root`
/// (detail::open_beneath).
/// `flags` as for open(2) (O_CLOEXEC is added). Returns the descriptor, or -1 with errno set
/// (ELOOP/EXDEV: something on the way was replaced by a symlink since resolution).
int open_in_workspace(const WorkspacePath& p, int flags, mode_t mode = 0);


// ---- MA-4: read-only shared folders (agents.defaults.binds / agents.list[].binds) ----------------

/// A host directory the file tools of an agent may read (never write): tools/sandbox/sandbox.h
/// shared_folders_for_agent builds them from the config.
struct SharedFolder {
  std::filesystem::path source;  ///< absolute host directory, lexically normal
  std::filesystem::path target;  ///< where it is mounted (the sandbox's inside path; == source by default)
  std::string config_path;       ///< e.g. "agents.list[1].binds[0]", for messages
};

/// Where an absolute `user_path` leads in one of `folders`: under a folder's mount point (mapped
/// onto its host directory) or under its host directory, matched by whole components as written
/// ("/shared-evil" is not under "/shared"; "." parts are skipped, ".." is not collapsed). The rest
/// is resolved beneath the host directory exactly as resolve_workspace_path confines a workspace
/// path: `..` and symlinks (existing or dangling) cannot leave it, and open_in_workspace opens the
/// result with RESOLVE_BENEATH below it (WorkspacePath::root = the canonical host directory,
/// `relative` relative to it). nullopt: the path names no folder (or is relative). Errors:
/// resolve_workspace_path's, with "PATH_OUTSIDE_WORKSPACE" for an escape and "WORKSPACE_MISSING"
/// when the host directory does not exist (naming the folder's config path).
std::optional<Result<WorkspacePath>> resolve_shared_folder_path(const std::vector<SharedFolder>& folders,
                                                                std::string_view user_path);

namespace detail {
/// open(2) of `rel` below `root` crossing no symlink: openat2(RESOLVE_BENEATH |
/// RESOLVE_NO_SYMLINKS), or open_beneath_by_walk() where the kernel has no openat2 (ENOSYS, or
/// EPERM from a seccomp filter). -1 with errno (ELOOP/EXDEV: a symlink or a climb on the way).
int open_beneath(const std::filesystem::path& root, const std::filesystem::path& rel, int flags, mode_t mode);
/// The fallback, one component at a time with O_NOFOLLOW from a descriptor of `root` (public for
/// its tests; the kernel here may well have openat2).
int open_beneath_by_walk(const std::filesystem::path& root, const std::filesystem::path& rel, int flags,
                         mode_t mode);
}  // namespace detail

}  // namespace pincer::tools
