// Whole-file reads and atomic writes for the workspace file tools (write, edit, apply_patch).
// Unlike store/atomic_file.h (private state files, mode 0600), these keep a replaced file's
// permission bits and create new files with the user's umask, as an editor would.
// Blocking I/O; thread-safe (no shared state). Paths are expected to be resolved already.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"
#include "tools/workspace_path.h"

namespace pincer::tools {

/// Largest file write/edit/apply_patch will load (bytes).
inline constexpr std::size_t kMaxEditableFileBytes = 16u << 20;

/// Reads a regular file of at most `max_bytes`. Errors: "NOT_FOUND" (message "file not found"),
/// "NOT_A_FILE" ("is a directory" / "is not a regular file"), "TOO_LARGE" ("is N bytes; limit M"),
/// "IO_ERROR" (strerror). Messages do not name the path; callers prefix it.
Result<std::string> read_file_bounded(const std::filesystem::path& path, std::size_t max_bytes);

/// True when `data` (typically the first few KiB of a file) contains a NUL byte.
bool looks_binary(std::string_view data);

/// Replaces `path` with `data` atomically: temp file in the same directory, fsync, rename, fsync
/// of the directory. Creates missing parent directories. Keeps the mode of an existing file;
/// a new file gets 0666 minus the umask. Error "IO_ERROR" naming the failing step.
Status write_file_atomic(const std::filesystem::path& path, std::string_view data);

/// Unlinks a file or symlink (not a directory). Errors "NOT_FOUND", "NOT_A_FILE", "IO_ERROR".
Status remove_file(const std::filesystem::path& path);

// The same for a resolved workspace path, through descriptors, so that a directory replaced by
// a symlink after resolution (by a concurrent command) is refused instead of followed outside:
// the file is opened with open_in_workspace(); the parent directory is opened component by
// component from the root with O_NOFOLLOW (write creates missing ones), and the temp file, the
// rename and the unlink happen inside that directory. The extra error is "IO_ERROR"
// ("… is no longer a directory (replaced by a link or a file?)").
Result<std::string> read_file_bounded(const WorkspacePath& p, std::size_t max_bytes);
Status write_file_atomic(const WorkspacePath& p, std::string_view data);
Status remove_file(const WorkspacePath& p);

}  // namespace pincer::tools
