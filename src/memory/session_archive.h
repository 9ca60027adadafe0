// The `/new` archive (SPEC MM-9): when a session ends by /new, /reset or sessions.reset, what it
// was about becomes `memory/YYYY-MM-DD-{slug}.md` in the agent's workspace, where the memory index
// and the next sessions' startup context (daily_notes.h) find it.
//
// The file is written twice: first at once with an extractive summary (the last exchanges, cut),
// so the archive exists even when the model is down or the gateway stops; then, when the LLM
// summary arrives, replaced atomically by it. A failed summary leaves the extractive one.
//
// Pure text functions plus small blocking writes; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::memory {

/// One user or assistant message of the ended session, as text.
struct ArchiveTurn {
  std::string role;  ///< "user" | "assistant"
  std::string text;
};

/// What the archive's header says.
struct ArchiveHeader {
  std::string when;         ///< "2026-03-01 14:30 Europe/Berlin" (the user's time)
  std::string session_key;  ///< agent:main:main
  std::string session_id;
  std::string reason;       ///< "new" | "reset" | "sessions.reset" …
};

/// Messages quoted by the extractive summary (the last ones), and the chars kept of each.
inline constexpr std::size_t kExtractiveTurns = 15;
inline constexpr std::size_t kExtractiveTurnChars = 600;

/// The file-name slug: up to 5 lower-case ASCII words of the first user message (stop words
/// dropped, at most 40 chars, joined by '-'); `fallback` (e.g. "1430") when it has none.
std::string archive_slug(const std::vector<ArchiveTurn>& turns, std::string_view fallback);

/// The extractive summary: the last kExtractiveTurns messages, each "**User**: …" /
/// "**Assistant**: …" on one line and cut to kExtractiveTurnChars.
std::string extractive_summary(const std::vector<ArchiveTurn>& turns);

/// The whole file: "# Session: <when>", the header list, then "## Summary" with `summary` and a
/// line saying how it was made (`llm` false: "extractive: the model did not answer").
std::string render_archive(const ArchiveHeader& header, std::string_view summary, bool llm);

/// Creates `memory/<stamp>-<slug>.md` (or `…-<slug>-2.md`, -3 … when taken) with `content`;
/// never overwrites another file. Errors: "IO_ERROR" naming the path.
Result<std::filesystem::path> create_archive_file(const std::filesystem::path& workspace, std::string_view stamp,
                                                  std::string_view slug, std::string_view content);

/// Replaces `path` with `content` atomically (temp file + rename): readers see the old or the new
/// text, never a mix. Errors: "IO_ERROR".
Status replace_archive_file(const std::filesystem::path& path, std::string_view content);

}  // namespace pincer::memory
