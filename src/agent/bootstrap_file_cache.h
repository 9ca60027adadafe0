// The workspace's bootstrap files (AGENTS.md, SOUL.md, …) are part of every turn's system prompt
// and rarely change: a turn stats each one instead of opening and reading it again.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/result.h"

namespace pincer::agent {

/// store::read_file(path, max_bytes) with the same results and errors (NOT_FOUND, TOO_LARGE,
/// IO_ERROR), through a cache keyed by the path and the file's identity (device, inode, size,
/// mtime, ctime, all from one stat). A file changed less than 50 ms before it is read (2 s when its
/// timestamps are whole seconds) is not cached: file timestamps are coarse (one kernel tick, a few
/// ms), so an edit of the same size within one tick would otherwise look unchanged (git's "racy"
/// rule). At most 64 files are kept. Thread-safe.
Result<std::string> read_bootstrap_file(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace pincer::agent
