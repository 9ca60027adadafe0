// What an active recall asks and what it injects (SPEC DR-6): the memory search query, the
// conversation excerpt, the instructions of the recall model call per prompt style, the reading
// of its answer, and the hidden block put before the user's message.
//
// Prompt styles change both the search and the instructions (docs/memory.md "Active recall"):
//   strict           search the latest message alone, ≤ 3 hits; answer only for a clear match
//   balanced         the latest message (a very short one gets the previous user turn), ≤ 4 hits
//   contextual       the previous user turn + the latest message, ≤ 5 hits; continuity counts
//   recall-heavy     as balanced, ≤ 6 hits, min score 0.2; softer matches are welcome
//   precision-heavy  the latest message alone, ≤ 2 hits, min score 0.6; NONE unless obvious
//   preference-only  ≤ 6 hits, only those that read as a preference or habit; tastes, routines
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memory/recall/active_recall_settings.h"

namespace pincer::memory::recall {

/// One earlier message of the session, as text.
struct RecentTurn {
  bool user = true;  ///< false: the assistant's
  std::string text;
};

/// Upper bounds: the search query (chars) and the conversation excerpt (bytes, newest kept).
inline constexpr std::size_t kMaxSearchQueryChars = 480;
inline constexpr std::size_t kMaxConversationBytes = 25'000;

/// The memory search of one recall.
struct SearchPlan {
  std::string query;                 ///< "" = nothing to search for (no recall)
  int max_results = 4;
  std::optional<double> min_score;   ///< nullopt = memory.search.query.minScore
  bool preferences_only = false;     ///< keep only hits that read as a preference or habit
};

/// The search for `latest` (the user's new message) after `turns` (oldest first).
SearchPlan plan_search(const ActiveRecallSettings& s, std::string_view latest, const std::vector<RecentTurn>& turns);

/// The conversation the recall model sees, by query mode: the latest message alone (`message`),
/// a tail of recent turns (`recent`: recentUserTurns/recentAssistantTurns, each cut to its
/// chars), or every turn (`full`) — bounded to kMaxConversationBytes, oldest lines dropped first.
std::string conversation_excerpt(const ActiveRecallSettings& s, std::string_view latest,
                                 const std::vector<RecentTurn>& turns);

/// True when `text` reads as a preference, taste, habit or routine (prefer, favourite, like,
/// love, hate, usually, always, never, every, routine, habit, allergic …; English words).
bool reads_as_preference(std::string_view text);

/// The system prompt of the recall model call (promptOverride replaces the default instructions;
/// promptAppend follows them).
std::string recall_instructions(const ActiveRecallSettings& s);
/// Its user message: the search query, the hits (already formatted lines) and the conversation.
std::string recall_request(std::string_view search_query, std::string_view hits, std::string_view conversation);

/// The summary in the model's answer, on one line and cut to `max_chars` code points (at a word
/// boundary, with "…"); nullopt for NONE, an empty answer or a non-answer.
std::optional<std::string> read_summary(std::string_view answer, int max_chars);

/// The block put before the user's message in the model request (never stored): a header saying
/// it is recalled background, then the summary (`<`, `>`, `&` escaped) in <active_memory_plugin>.
std::string hint_block(std::string_view summary);

/// `text` cut to `max` code points (no ellipsis).
std::string cut_code_points(std::string_view text, std::size_t max);

}  // namespace pincer::memory::recall
