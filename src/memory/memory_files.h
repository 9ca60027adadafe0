// Which files are an agent's memory (SPEC MM-1): MEMORY.md (or memory.md), USER.md, Markdown
// files under memory/ (recursively), and `memory.search.extraPaths` (files or folders of *.md).
// Pure file-system reads; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace pincer::memory {

struct MemoryFile {
  std::filesystem::path abs;
  std::string rel;  ///< workspace-relative with '/', or the absolute path for extra paths outside it
  int64_t mtime_ns = 0;
  int64_t size = 0;
};

/// The memory files that exist now, sorted by `rel`. Unreadable folders are skipped; symlinks
/// are followed only for the configured roots themselves. At most 20 000 files.
std::vector<MemoryFile> list_memory_files(const std::filesystem::path& workspace,
                                          const std::vector<std::filesystem::path>& extra_paths);

/// A `memory_get` path resolved to the file it names, only if that file is one of the memory
/// files above. Error "MEMORY_PATH_DENIED" ("… is not a memory file (MEMORY.md, USER.md,
/// memory/*.md or an extra path)") or "MEMORY_PATH_NOT_FOUND".
Result<MemoryFile> resolve_memory_path(const std::filesystem::path& workspace,
                                       const std::vector<std::filesystem::path>& extra_paths, const std::string& path);

/// Today's daily note path relative to the workspace for a civil date: "memory/YYYY-MM-DD.md".
std::string daily_note_rel(int y, unsigned m, unsigned d);

}  // namespace pincer::memory
