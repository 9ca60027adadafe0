// Dreaming's formulas (SPEC DR-3, DR-4), each in one pure function. Thread-safe.
//
// DR-3 deep score of a short-term recall entry:
//   score = 0.24 frequency + 0.30 relevance + 0.15 diversity + 0.15 recency
//         + 0.10 consolidation + 0.06 conceptual + phase boost         (clamped to 0..1)
//   frequency     = min(1, log1p(recalls) / log1p(10))
//   relevance     = average retrieval score (0..1)
//   diversity     = min(1, max(unique queries, recall days) / 5)
//   recency       = exp(−ln2 / halfLife · ageDays)      (halfLife 14 days; age of the last recall)
//   consolidation = 0 with no day, 0.2 with one, else 0.55 min(1, log1p(days−1)/log1p(4))
//                   + 0.45 min(1, spanDays / 7)
//   conceptual    = min(1, conceptTags / 6)
//   phase boost   = 0.06 · min(1, log1p(lightHits)/log1p(6)) · exp(−ln2/14 · lightAgeDays)
//                 + 0.09 · min(1, log1p(remHits)/log1p(6))   · exp(−ln2/14 · remAgeDays)
//                   (Light ≤ 0.06, REM ≤ 0.09; a phase never seen adds 0)
// DR-4 REM confidence of a candidate truth:
//   confidence = 0.45 avgScore + 0.25 min(1, log1p(recalls)/log1p(6))
//              + 0.20 min(1, days/3) + 0.10 min(1, tags/6)
//   kept when ≥ 0.45; sorted by confidence desc, then snippet asc; a snippet whose word-set
//   Jaccard similarity to one already kept is ≥ 0.88 is dropped; the top 3 remain.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace pincer::memory::dreaming {

inline constexpr double kLightBoostMax = 0.06;       ///< DR-3
inline constexpr double kRemBoostMax = 0.09;         ///< DR-3
inline constexpr double kPhaseHalfLifeDays = 14;     ///< DR-3 phase boost decay
inline constexpr double kRemMinConfidence = 0.45;    ///< DR-4
inline constexpr double kRemDedupeSimilarity = 0.88; ///< DR-4
inline constexpr std::size_t kRemTopTruths = 3;      ///< DR-4

/// What the deep score reads of one entry.
struct DeepSignals {
  int recalls = 0;
  double avg_score = 0;           ///< 0..1
  int unique_queries = 0;
  std::vector<int64_t> recall_days;  ///< distinct days (days since 1970-01-01)
  double age_days = 0;            ///< since the last recall
  int concept_tags = 0;
  double half_life_days = 14;
};

/// Light/REM reinforcement of one entry (phase-signals.json). An age is nullopt when that phase
/// never touched the entry.
struct PhaseSignal {
  int light_hits = 0;
  int rem_hits = 0;
  std::optional<double> light_age_days;
  std::optional<double> rem_age_days;
};

struct DeepScore {
  double frequency = 0, relevance = 0, diversity = 0, recency = 0, consolidation = 0, conceptual = 0;
  double light_boost = 0, rem_boost = 0;
  double score = 0;  ///< the clamped weighted sum plus boosts
};

/// DR-3 consolidation component of a set of recall days.
double consolidation_component(const std::vector<int64_t>& recall_days);

/// DR-3 Light and REM boosts (each bounded by its maximum).
std::pair<double, double> phase_boosts(const PhaseSignal& phase);

/// DR-3 deep score, with its components.
DeepScore deep_score(const DeepSignals& s, const PhaseSignal& phase);

/// DR-4 REM confidence.
double rem_confidence(double avg_score, int recalls, int recall_days, int concept_tags);

/// Jaccard similarity of the lowercase word sets of two snippets (1 for two empty ones).
double snippet_similarity(const std::string& a, const std::string& b);
/// The lowercase word set snippet_similarity compares (letters, digits, UTF-8 bytes).
std::set<std::string> snippet_words(const std::string& text);
/// snippet_similarity of two word sets made by snippet_words (for comparing many snippets).
double word_set_similarity(const std::set<std::string>& a, const std::set<std::string>& b);

struct TruthCandidate {
  std::string key;
  std::string snippet;
  double avg_score = 0;
  int recalls = 0;
  int recall_days = 0;
  int concept_tags = 0;
  double confidence = 0;  ///< filled by select_candidate_truths
};

/// DR-4: confidence of each, kept ≥ 0.45, sorted (confidence desc, snippet asc), deduped at
/// similarity 0.88, top 3.
std::vector<TruthCandidate> select_candidate_truths(std::vector<TruthCandidate> candidates);

}  // namespace pincer::memory::dreaming
