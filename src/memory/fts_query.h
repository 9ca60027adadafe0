// User text → FTS5 MATCH expressions (SPEC MM-4/MM-5). Pure; thread-safe.
//
// User text is never FTS5 syntax: it is cut into terms and every term is emitted as a quoted
// string ("term", with any `"` doubled), joined by OR, so operators (AND, NEAR, *, ^, :, column
// filters, parentheses) in the query are just words. Terms are runs of letters/digits/`_` (ASCII)
// or of non-ASCII non-CJK characters (like unicode61); CJK runs go to the trigram table as their
// overlapping 3-character pieces (a run shorter than 3 characters becomes a substring term, which
// the index answers with LIKE). Function words ("the", "what") are left out of a query that has
// other words.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pincer::memory {

struct FtsQuery {
  std::string words;                     ///< MATCH for the unicode61 table; "" = no word term
  std::string trigrams;                  ///< MATCH for the trigram table; "" = no CJK term
  std::vector<std::string> short_cjk;    ///< CJK runs of 1–2 characters (substring search)
  std::vector<std::string> terms;        ///< every term, lowercased (for MMR similarity)
  bool empty() const { return words.empty() && trigrams.empty() && short_cjk.empty(); }
};

/// At most this many terms of each kind are used (a pasted page must not become a huge query).
constexpr std::size_t kMaxQueryTerms = 64;

FtsQuery build_fts_query(std::string_view user_text);

/// Lowercased terms of `text` as build_fts_query cuts them (CJK as single characters). Used for
/// the Jaccard similarity of MMR.
std::vector<std::string> text_terms(std::string_view text, std::size_t max_terms = 512);

/// True for a common English function or question word ("the", "what", …; lowercase input):
/// dropped from a query's MATCH unless the query has nothing else.
bool is_stop_word(std::string_view word);

/// True for code points of the CJK scripts (Han, Hiragana, Katakana, Hangul, CJK punctuation
/// excluded).
bool is_cjk(char32_t cp);

}  // namespace pincer::memory
