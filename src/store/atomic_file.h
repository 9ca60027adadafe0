// Atomic state-file writes (docs/architecture.md "Storage"): write a temp file in the same directory,
// fsync it, rename it over the target, fsync the directory. A crash at any point leaves either the
// old file or the new one — never a half-written file. Blocking I/O: call off the event loop
// for large files.
#pragma once

#include <filesystem>
#include <string_view>

#include <sys/types.h>

#include "core/result.h"

namespace pincer::store {

/// Atomically replaces `path` with `data`, creating parent directories (mode 0700) as needed.
/// The file gets permission bits `mode` (default 0600: state files hold secrets).
/// Errors: code "IO_ERROR", message naming the path and the failing step with strerror.
Status write_file_atomic(const std::filesystem::path& path, std::string_view data, mode_t mode = 0600);

/// Reads a whole file. Errors: "NOT_FOUND" when it does not exist, "IO_ERROR" otherwise;
/// "TOO_LARGE" when larger than `max_bytes`.
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 64u << 20);

}  // namespace pincer::store
