// File tools, group "fs" (SPEC TL-1, TL-6). Every path is resolved inside ToolContext::workspace
// (workspace_path.h); writes are atomic per file (file_io.h).
//
//   read        {path, offset?: 1-based first line, limit?: number of lines (default 2000)}
//               Text only (a NUL byte in the first 8 KiB → error). At most 50 KiB (or
//               max_output_chars, if smaller) per call; a note says how to continue:
//               "[Showing lines 1-812 of 5000 (50KB limit). Use offset=813 to continue.]" or
//               "[120 more lines in file. Use offset=2001 to continue.]". Memory is bounded by
//               that page, whatever the file size.
//   write       {path, content}: creates parent directories; replaces atomically, keeping the
//               old file's mode.
//   edit        {path, oldText, newText} or {path, edits: [{oldText, newText}, ...]}: each
//               oldText must occur exactly once in the original file (errors "… not found in …",
//               "… matches N times in …"); replacements must not overlap. CRLF files match
//               LF-only oldText.
//   apply_patch {input}: the Codex patch format (apply_patch.h); all files checked before any
//               is written.
#pragma once

#include <memory>
#include <vector>

#include "tools/tool.h"

namespace pincer::tools {

/// Line and byte limits of one `read` page.
inline constexpr std::size_t kReadDefaultLineLimit = 2000;
inline constexpr std::size_t kReadMaxBytes = 50 * 1024;

/// read, write, edit, apply_patch — in that order.
std::vector<std::unique_ptr<Tool>> make_fs_tools();

}  // namespace pincer::tools
