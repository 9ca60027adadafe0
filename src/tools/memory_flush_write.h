// The `write` tool of a memory-flush turn (SPEC CX-10), as OpenClaw's
// wrapToolMemoryFlushAppendOnlyWrite: the flush may only APPEND to the one daily note its prompt
// names (`memory/YYYY-MM-DD.md`), so notes captured earlier that day can never be overwritten,
// whatever the model does. Every other path is refused with a message naming the allowed one.
// In a flush turn it replaces `write`, and only it and `read` may run (agent/recall_hooks.h
// restrict_to_flush_tools).
//
// Threading: like every tool (tool.h) — immutable, runs on a worker thread.
#pragma once

#include <memory>
#include <string>

#include "tools/tool.h"

namespace pincer::tools {

/// A tool named "write" (same arguments {path, content}) that appends `content` to
/// `relative_path` (workspace-relative, e.g. "memory/2026-03-01.md"): parent directories are
/// created, a newline is put between the old text and the new when the old one does not end
/// with one, and the appended text always ends with a newline. Any other `path` → error
/// "write: Memory flush writes are restricted to memory/…md; use that path only." (code
/// "PATH_NOT_ALLOWED"). The answer is "Appended N bytes to memory/…md".
std::unique_ptr<Tool> make_memory_flush_write_tool(std::string relative_path);

}  // namespace pincer::tools
