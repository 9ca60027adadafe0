// What Dreaming may learn from (SPEC DR-2): which hits are short-term notes, which snippets are
// never promoted (untrusted, dreaming's own output, empty or Markdown skeletons), the concept tags
// of a snippet, and which sessions are ingested. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pincer::memory::dreaming {

/// Most concept tags kept per entry.
inline constexpr std::size_t kMaxConceptTags = 8;

/// `text` trimmed, runs of white space made one space.
std::string normalize_snippet(std::string_view text);

/// A daily note (`memory/YYYY-MM-DD.md`, `memory/YYYY-MM-DD-slug.md`, any folder under memory/)
/// and not dreaming's own output (`memory/dreaming/…`, `memory/.dreams/…`).
bool is_short_term_path(std::string_view rel_path);

/// Content marked untrusted — the untrusted-notes wrapper of the startup context
/// ("[Untrusted daily memory: …]", BEGIN_QUOTED_NOTES), an `<untrusted>` tag or an
/// `<!-- untrusted -->` marker, or a prompt-injection payload (capture.h's filter) — which is
/// never recorded nor promoted.
bool is_untrusted_snippet(std::string_view text);

/// Never promoted: empty, only Markdown markers or headings, untrusted, or dreaming's own
/// metadata (`<!-- trigger:`, `<!-- importance:`, `<!-- pincer-dreaming` markers).
bool is_unpromotable_snippet(std::string_view text);

/// Up to kMaxConceptTags lowercase keywords of the snippet (words of ≥ 4 letters that are not
/// stop words, most frequent first, then by first occurrence).
std::vector<std::string> concept_tags(std::string_view snippet);

/// Whether a memory_search call of this run feeds recall tracking: only interactive sessions —
/// lane "main" and a key that is not a cron (`cron:`), heartbeat or subagent (`:subagent:`) one.
bool is_ingested_session(std::string_view session_key, std::string_view lane);

}  // namespace pincer::memory::dreaming
