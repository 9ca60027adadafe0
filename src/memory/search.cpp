#include "memory/search.h"

#include <algorithm>
#include <cmath>

#include "core/civil_date.h"
#include "memory/fts_query.h"

namespace pincer::memory {

int64_t days_from_civil(int y, unsigned m, unsigned d) { return civil::days_from_civil(y, m, d); }

std::optional<int64_t> note_day(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() < 13 || name.substr(name.size() - 3) != ".md") return std::nullopt;
  auto digits = [&](std::size_t at, std::size_t n) {
    for (std::size_t i = at; i < at + n; ++i) {
      if (name[i] < '0' || name[i] > '9') return false;
    }
    return true;
  };
  if (!digits(0, 4) || name[4] != '-' || !digits(5, 2) || name[7] != '-' || !digits(8, 2)) return std::nullopt;
  if (name[10] != '.' && name[10] != '-') return std::nullopt;
  const int y = std::stoi(name.substr(0, 4));
  const unsigned m = static_cast<unsigned>(std::stoi(name.substr(5, 2)));
  const unsigned d = static_cast<unsigned>(std::stoi(name.substr(8, 2)));
  if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  return days_from_civil(y, m, d);
}

std::vector<Candidate> rank(std::vector<Candidate> candidates, const HybridOptions& o, bool hybrid, double min_score,
                            int max_results, int64_t today) {
  const double lambda = std::log(2.0) / std::max(0.001, o.half_life_days);
  std::vector<Candidate> kept;
  for (auto& c : candidates) {
    const double raw =
        hybrid && c.has_vector ? o.vector_weight * c.vector_score + o.text_weight * c.text_score : c.text_score;
    if (raw < min_score || raw <= 0) continue;
    double factor = 1;
    if (o.decay && c.day) {
      const double age = std::max<int64_t>(0, today - *c.day);
      factor = std::max(o.decay_floor, std::exp(-lambda * age));
    }
    c.score = raw * factor;
    kept.push_back(std::move(c));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.chunk_id < b.chunk_id;
  });
  const std::size_t k = static_cast<std::size_t>(std::max(1, max_results));
  if (!o.mmr || kept.size() <= 1) {
    if (kept.size() > k) kept.resize(k);
    return kept;
  }
  // Each candidate's distinct terms, sorted: Jaccard similarity is then one merge pass.
  std::vector<std::vector<std::string>> terms;
  terms.reserve(kept.size());
  for (const auto& c : kept) {
    auto t = text_terms(c.text);
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    terms.push_back(std::move(t));
  }
  auto jaccard = [&](std::size_t a, std::size_t b) {
    if (terms[a].empty() && terms[b].empty()) return 1.0;
    std::size_t inter = 0;
    for (auto i = terms[a].begin(), j = terms[b].begin(); i != terms[a].end() && j != terms[b].end();) {
      const int c = i->compare(*j);
      if (c == 0) ++inter;
      if (c <= 0) ++i;
      if (c >= 0) ++j;
    }
    const std::size_t uni = terms[a].size() + terms[b].size() - inter;
    return uni == 0 ? 0.0 : static_cast<double>(inter) / static_cast<double>(uni);
  };
  const double top = kept.front().score;  // relevance normalised to the best, as the MMR term
  std::vector<std::size_t> picked;
  std::vector<bool> used(kept.size(), false);
  // Each candidate's highest similarity to anything picked so far, updated with the newest pick
  // only: k rounds cost k·n similarities, not k²·n.
  std::vector<double> max_sim(kept.size(), 0.0);
  while (picked.size() < k && picked.size() < kept.size()) {
    std::size_t best = kept.size();
    double best_value = -1e18;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (used[i]) continue;
      if (!picked.empty()) max_sim[i] = std::max(max_sim[i], jaccard(i, picked.back()));
      const double value = o.mmr_lambda * (kept[i].score / top) - (1 - o.mmr_lambda) * max_sim[i];
      if (value > best_value) {
        best_value = value;
        best = i;
      }
    }
    used[best] = true;
    picked.push_back(best);
  }
  std::vector<Candidate> out;
  for (std::size_t i : picked) out.push_back(std::move(kept[i]));
  return out;
}

std::string make_snippet(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

}  // namespace pincer::memory
