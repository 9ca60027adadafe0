#include "memory/dreaming/scoring.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>

namespace pincer::memory::dreaming {

namespace detail_dreaming_scoring {

double unit(double v) {
  if (!std::isfinite(v)) return 0;
  return std::clamp(v, 0.0, 1.0);
}

double decay(double age_days, double half_life_days) {
  if (!std::isfinite(age_days) || age_days < 0 || !(half_life_days > 0)) return 1;
  return std::exp(-std::log(2.0) / half_life_days * age_days);
}

double saturating_log(int n, double at) { return unit(std::log1p(std::max(0, n)) / std::log1p(at)); }

std::set<std::string> word_set(const std::string& text) {
  std::set<std::string> out;
  std::string cur;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c >= 0x80) {
      cur += static_cast<char>(std::tolower(c));
    } else if (!cur.empty()) {
      out.insert(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.insert(std::move(cur));
  return out;
}

}  // namespace detail_dreaming_scoring

using detail_dreaming_scoring::decay;
using detail_dreaming_scoring::saturating_log;
using detail_dreaming_scoring::unit;

// DR-3 consolidation: multi-day recurrence (spacing and span).
double consolidation_component(const std::vector<int64_t>& recall_days) {
  std::vector<int64_t> days = recall_days;
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  if (days.empty()) return 0;
  if (days.size() == 1) return 0.2;
  const double spacing = unit(std::log1p(static_cast<double>(days.size() - 1)) / std::log1p(4.0));
  const double span = unit(static_cast<double>(days.back() - days.front()) / 7.0);
  return unit(0.55 * spacing + 0.45 * span);
}

// DR-3 phase boosts: Light ≤ 0.06, REM ≤ 0.09, each decayed with a 14-day half-life.
std::pair<double, double> phase_boosts(const PhaseSignal& p) {
  const double light = p.light_age_days
                           ? kLightBoostMax * saturating_log(p.light_hits, 6) * decay(*p.light_age_days, kPhaseHalfLifeDays)
                           : 0.0;
  const double rem = p.rem_age_days
                         ? kRemBoostMax * saturating_log(p.rem_hits, 6) * decay(*p.rem_age_days, kPhaseHalfLifeDays)
                         : 0.0;
  return {light, rem};
}

// DR-3 deep score.
DeepScore deep_score(const DeepSignals& s, const PhaseSignal& phase) {
  DeepScore d;
  d.frequency = saturating_log(s.recalls, 10);
  d.relevance = unit(s.avg_score);
  std::vector<int64_t> days = s.recall_days;
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  d.diversity = unit(static_cast<double>(std::max<std::size_t>(static_cast<std::size_t>(std::max(0, s.unique_queries)), days.size())) / 5.0);
  d.recency = unit(decay(s.age_days, s.half_life_days));
  d.consolidation = consolidation_component(days);
  d.conceptual = unit(static_cast<double>(s.concept_tags) / 6.0);
  std::tie(d.light_boost, d.rem_boost) = phase_boosts(phase);
  d.score = unit(0.24 * d.frequency + 0.30 * d.relevance + 0.15 * d.diversity + 0.15 * d.recency +
                 0.10 * d.consolidation + 0.06 * d.conceptual + d.light_boost + d.rem_boost);
  return d;
}

// DR-4 REM confidence.
double rem_confidence(double avg_score, int recalls, int recall_days, int concept_tags) {
  return 0.45 * unit(avg_score) + 0.25 * saturating_log(recalls, 6) +
         0.20 * unit(static_cast<double>(recall_days) / 3.0) + 0.10 * unit(static_cast<double>(concept_tags) / 6.0);
}

std::set<std::string> snippet_words(const std::string& text) { return detail_dreaming_scoring::word_set(text); }

double word_set_similarity(const std::set<std::string>& wa, const std::set<std::string>& wb) {
  if (wa.empty() && wb.empty()) return 1;
  std::size_t inter = 0;
  const auto& small = wa.size() <= wb.size() ? wa : wb;
  const auto& large = wa.size() <= wb.size() ? wb : wa;
  for (const auto& w : small) inter += large.count(w);
  const std::size_t uni = wa.size() + wb.size() - inter;
  return uni == 0 ? 0.0 : static_cast<double>(inter) / static_cast<double>(uni);
}

double snippet_similarity(const std::string& a, const std::string& b) {
  return word_set_similarity(snippet_words(a), snippet_words(b));
}

// DR-4 candidate truths: filter ≥ 0.45, sort, dedupe at 0.88, top 3.
std::vector<TruthCandidate> select_candidate_truths(std::vector<TruthCandidate> candidates) {
  std::vector<TruthCandidate> kept;
  for (auto& c : candidates) {
    c.confidence = rem_confidence(c.avg_score, c.recalls, c.recall_days, c.concept_tags);
    if (c.confidence >= kRemMinConfidence) kept.push_back(std::move(c));
  }
  std::sort(kept.begin(), kept.end(), [](const TruthCandidate& a, const TruthCandidate& b) {
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return a.snippet < b.snippet;
  });
  std::vector<TruthCandidate> out;
  for (auto& c : kept) {
    if (out.size() >= kRemTopTruths) break;
    bool dup = false;
    for (const auto& o : out) {
      if (snippet_similarity(c.snippet, o.snippet) >= kRemDedupeSimilarity) {
        dup = true;
        break;
      }
    }
    if (!dup) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pincer::memory::dreaming
