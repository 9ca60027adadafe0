#include "memory/dreaming/sweep.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/civil_date.h"
#include "core/clock.h"
#include "memory/dreaming/snippet_rules.h"
#include "memory/search.h"
#include "store/atomic_file.h"

namespace pincer::memory::dreaming {

using nlohmann::json;
namespace fs = std::filesystem;

namespace detail_dreaming_sweep {

std::optional<int64_t> day_number(const std::string& stamp) {
  if (stamp.size() != 10 || stamp[4] != '-' || stamp[7] != '-') return std::nullopt;
  try {
    return civil::days_from_civil(std::stoi(stamp.substr(0, 4)), static_cast<unsigned>(std::stoi(stamp.substr(5, 2))),
                                  static_cast<unsigned>(std::stoi(stamp.substr(8, 2))));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<double> age_days(const std::string& iso, int64_t now_ms) {
  auto ms = parse_iso_ms(iso);
  if (!ms) return std::nullopt;
  return std::max<double>(0.0, static_cast<double>(now_ms - *ms) / 86'400'000.0);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return lines;
}

std::string window(const std::vector<std::string>& lines, int start, int end) {
  std::string joined;
  for (int i = std::max(1, start); i <= end && i <= static_cast<int>(lines.size()); ++i) {
    joined += lines[static_cast<std::size_t>(i - 1)];
    joined += ' ';
  }
  return normalize_snippet(joined);
}

struct Located {
  int start = 0, end = 0;
  std::string snippet;
};

/// Where the snippet is in the note now: its recorded lines, else the nearest window holding it.
std::optional<Located> relocate(const std::vector<std::string>& lines, const RecallEntry& e) {
  if (window(lines, e.start_line, e.end_line) == e.snippet) return Located{e.start_line, e.end_line, e.snippet};
  const int n = static_cast<int>(lines.size());
  const int preferred = std::max(1, e.end_line - e.start_line + 1);
  const int max_span = std::min(n, std::max(preferred + 3, 8));
  std::optional<Located> best;
  int best_distance = 0;
  for (int s = 1; s <= n; ++s) {
    for (int span = 1; span <= max_span && s + span - 1 <= n; ++span) {
      const std::string w = window(lines, s, s + span - 1);
      if (w.empty() || w.find(e.snippet) == std::string::npos) continue;
      const int distance = std::abs(s - e.start_line);
      if (!best || distance < best_distance) {
        best = Located{s, s + span - 1, w};
        best_distance = distance;
      }
      break;  // the shortest window from this start
    }
  }
  return best;
}

/// How well one note line matches what was searched: 100 for each query recalled that appears
/// in it as words (a run of up to 6 of its words hashes to one of the entry's query hashes), plus
/// 1 for each concept tag it holds.
int line_match(const std::string& lower, const RecallEntry& e) {
  int hits = 0;
  for (const auto& t : e.concept_tags) hits += !t.empty() && lower.find(t) != std::string::npos ? 1 : 0;
  std::vector<std::string> words;
  std::string cur;
  for (char c : lower + " ") {
    if (c == ' ') {
      while (!cur.empty() && std::ispunct(static_cast<unsigned char>(cur.back()))) cur.pop_back();
      std::size_t lead = 0;
      while (lead < cur.size() && std::ispunct(static_cast<unsigned char>(cur[lead]))) ++lead;
      if (lead < cur.size()) words.push_back(cur.substr(lead));
      cur.clear();
    } else {
      cur += c;
    }
  }
  std::set<std::string> found;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string run;
    for (std::size_t n = 0; n < 6 && i + n < words.size(); ++n) {
      run += (n ? " " : "") + words[i + n];
      const std::string h = query_hash(run);
      if (std::find(e.query_hashes.begin(), e.query_hashes.end(), h) != e.query_hashes.end()) found.insert(h);
    }
  }
  return hits + 100 * static_cast<int>(found.size());
}

/// The part of a located window that is promoted: a recalled chunk often spans several sections
/// of a note ("# day", "## Morning", bullets, "## Evening" …). Headings and blank lines are
/// dropped; of the sections, the one whose lines match best (line_match) is kept (the first on a
/// tie), and of its lines those naming a query (else those holding a tag, else all of them). Lines and
/// snippet describe what is kept; nullopt when no content line is left.
std::optional<Located> focus(const std::vector<std::string>& lines, const Located& where, const RecallEntry& entry) {
  struct Line {
    int number;
    std::string text;
    int hits;
  };
  std::vector<std::vector<Line>> sections(1);
  for (int i = std::max(1, where.start); i <= where.end && i <= static_cast<int>(lines.size()); ++i) {
    const std::string text = normalize_snippet(lines[static_cast<std::size_t>(i - 1)]);
    if (text.empty()) continue;
    std::size_t hashes = 0;
    while (hashes < text.size() && text[hashes] == '#') ++hashes;
    if (hashes >= 1 && hashes <= 6 && (hashes == text.size() || text[hashes] == ' ')) {  // a heading
      if (!sections.back().empty()) sections.emplace_back();
      continue;
    }
    std::string lower = text;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    sections.back().push_back({i, text, line_match(lower, entry)});
  }
  const std::vector<Line>* best = nullptr;
  int best_hits = -1;
  for (const auto& sec : sections) {
    if (sec.empty()) continue;
    int hits = 0;
    for (const auto& l : sec) hits += l.hits;
    if (hits > best_hits) {
      best = &sec;
      best_hits = hits;
    }
  }
  if (best == nullptr) return std::nullopt;
  int top = 0;  // a line naming a query wins over lines that only share a tag
  for (const auto& l : *best) top = std::max(top, l.hits);
  const int needed = top >= 100 ? 100 : top > 0 ? 1 : 0;
  Located out;
  for (const auto& l : *best) {
    if (l.hits < needed) continue;
    if (out.start == 0) out.start = l.number;
    out.end = l.number;
    std::string_view text = l.text;  // its own list marker: the promoted entry is a bullet of its own
    if (text.size() > 2 && (text[0] == '-' || text[0] == '*' || text[0] == '+') && text[1] == ' ') text.remove_prefix(2);
    out.snippet += (out.snippet.empty() ? "" : " ") + std::string(text);
  }
  return out;
}

}  // namespace detail_dreaming_sweep

using detail_dreaming_sweep::age_days;
using detail_dreaming_sweep::day_number;

std::vector<Candidate> rank_candidates(const RecallStore& store, const PhaseStore& phases, const DreamingSettings& s,
                                       int64_t now_ms, bool include_failing) {
  std::vector<Candidate> out;
  for (const auto& [key, e] : store.entries) {
    if (!e.promoted_at.empty() || !is_short_term_path(e.path) || is_unpromotable_snippet(e.snippet)) continue;
    if (e.recall_count <= 0) continue;
    DeepSignals sig;
    sig.recalls = e.recall_count;
    sig.avg_score = e.avg_score();
    sig.unique_queries = static_cast<int>(e.query_hashes.size());
    for (const auto& d : e.recall_days) {
      if (auto n = day_number(d)) sig.recall_days.push_back(*n);
    }
    sig.age_days = age_days(e.last_recalled_at, now_ms).value_or(0);
    sig.concept_tags = static_cast<int>(e.concept_tags.size());
    sig.half_life_days = s.recency_half_life_days;
    PhaseSignal ps;
    if (auto it = phases.entries.find(key); it != phases.entries.end()) {
      ps.light_hits = it->second.light_hits;
      ps.rem_hits = it->second.rem_hits;
      ps.light_age_days = age_days(it->second.last_light_at, now_ms);
      ps.rem_age_days = age_days(it->second.last_rem_at, now_ms);
    }
    Candidate c;
    c.entry = e;
    c.score = deep_score(sig, ps);
    c.unique_queries = sig.unique_queries;
    c.gates = {{"score", c.score.score, s.min_score, c.score.score >= s.min_score},
               {"recallCount", static_cast<double>(e.recall_count), static_cast<double>(s.min_recall_count),
                e.recall_count >= s.min_recall_count},
               {"uniqueQueries", static_cast<double>(c.unique_queries), static_cast<double>(s.min_unique_queries),
                c.unique_queries >= s.min_unique_queries}};
    c.passes = std::all_of(c.gates.begin(), c.gates.end(), [](const Gate& g) { return g.passed; });
    if (c.passes || include_failing) out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score.score != b.score.score) return a.score.score > b.score.score;
    if (a.entry.recall_count != b.entry.recall_count) return a.entry.recall_count > b.entry.recall_count;
    if (a.entry.path != b.entry.path) return a.entry.path < b.entry.path;
    return a.entry.key < b.entry.key;
  });
  return out;
}

fs::path memory_file_path(const fs::path& workspace) {
  std::error_code ec;
  if (!fs::exists(workspace / "MEMORY.md", ec) && fs::exists(workspace / "memory.md", ec)) return workspace / "memory.md";
  return workspace / "MEMORY.md";
}

Result<SweepResult> run_sweep(const fs::path& workspace, const DreamingSettings& s, const SweepOptions& o) {
  std::error_code exists_ec;
  if (!fs::exists(recall_store_path(workspace), exists_ec)) {  // nothing recalled yet: nothing to do, nothing written
    SweepResult none;
    none.non_durable = o.non_durable.value_or(s.non_durable);
    none.memory_file = memory_file_path(workspace);
    return none;
  }
  auto promotion_lock = FileLock::acquire(promotion_lock_path(workspace), false);
  if (!promotion_lock) return promotion_lock.error();
  auto steady = o.steady_ms ? o.steady_ms : [] { return SystemClock::instance().steady_ms(); };
  const int64_t deadline = steady() + s.timeout_ms;
  auto out_of_time = [&] { return steady() >= deadline; };

  SweepResult r;
  r.non_durable = o.non_durable.value_or(s.non_durable);
  r.memory_file = memory_file_path(workspace);
  RecallStore store;
  {
    auto lock = lock_store(workspace);
    if (!lock) return lock.error();
    auto loaded = load_recall_store(workspace);
    if (!loaded) return loaded.error();
    store = std::move(*loaded);
  }

  // ---- Light: collect, dedupe, stage ----
  std::vector<RecallEntry> pool;
  for (const auto& [key, e] : store.entries) {
    if (e.promoted_at.empty() && is_short_term_path(e.path) && !is_unpromotable_snippet(e.snippet)) pool.push_back(e);
  }
  std::sort(pool.begin(), pool.end(), [](const RecallEntry& a, const RecallEntry& b) {
    if (a.recall_count != b.recall_count) return a.recall_count > b.recall_count;
    return a.key < b.key;
  });
  std::vector<std::set<std::string>> kept_words;
  for (auto& e : pool) {
    auto words = snippet_words(e.snippet);
    // Jaccard ≥ 0.88 needs sizes within that ratio: cheap to rule out before comparing.
    const bool dup = std::any_of(kept_words.begin(), kept_words.end(), [&](const std::set<std::string>& kept) {
      const double lo = static_cast<double>(std::min(kept.size(), words.size()));
      const double hi = static_cast<double>(std::max(kept.size(), words.size()));
      return hi > 0 && lo / hi >= kRemDedupeSimilarity && word_set_similarity(kept, words) >= kRemDedupeSimilarity;
    });
    if (dup) continue;
    kept_words.push_back(std::move(words));
    r.staged.push_back(std::move(e));
  }
  if (o.light_and_rem && !r.staged.empty()) {
    std::vector<std::string> keys;
    for (const auto& e : r.staged) keys.push_back(e.key);
    if (auto st = record_phase_signals(workspace, "light", keys, o.now_ms); !st) return st.error();
  }

  // ---- REM: themes and candidate truths ----
  if (o.light_and_rem && !out_of_time()) {
    std::map<std::string, int> tag_counts;
    for (const auto& e : r.staged) {
      for (const auto& t : std::set<std::string>(e.concept_tags.begin(), e.concept_tags.end())) ++tag_counts[t];
    }
    std::vector<std::pair<std::string, int>> tags(tag_counts.begin(), tag_counts.end());
    std::sort(tags.begin(), tags.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    for (const auto& [t, n] : tags) {
      if (n < 2 || r.themes.size() >= 5) break;
      r.themes.push_back(t);
    }
    std::vector<TruthCandidate> truths;
    for (const auto& e : r.staged) {
      truths.push_back({e.key, e.snippet, e.avg_score(), e.recall_count, static_cast<int>(e.recall_days.size()),
                        static_cast<int>(e.concept_tags.size()), 0});
    }
    r.truths = select_candidate_truths(std::move(truths));
    std::vector<std::string> keys;
    for (const auto& t : r.truths) keys.push_back(t.key);
    if (auto st = record_phase_signals(workspace, "rem", keys, o.now_ms); !st) return st.error();
  } else if (o.light_and_rem) {
    r.timed_out = true;
  }

  // ---- Deep: rank, gate, re-read the note, promote ----
  PhaseStore phases;
  {
    auto lock = lock_store(workspace);
    if (!lock) return lock.error();
    auto loaded = load_phase_store(workspace);
    if (!loaded) return loaded.error();
    phases = std::move(*loaded);
  }
  RecallStore staged_store;
  for (const auto& e : r.staged) staged_store.entries[e.key] = e;
  r.ranked = rank_candidates(staged_store, phases, s, o.now_ms, true);
  const int limit = std::max(0, o.limit.value_or(s.limit));
  const std::size_t max_bytes = static_cast<std::size_t>(s.max_snippet_tokens) * 4;
  for (const auto& c : r.ranked) {
    if (!c.passes || static_cast<int>(r.promoted.size()) >= limit) continue;
    if (out_of_time()) {
      r.timed_out = true;
      break;
    }
    auto text = store::read_file(workspace / c.entry.path, 16u << 20);
    if (!text) {
      r.withdrawn.emplace_back(c.entry.key, text.error().code == "NOT_FOUND" ? "the daily note " + c.entry.path + " is gone"
                                                                               : text.error().message);
      continue;
    }
    const auto note_lines = detail_dreaming_sweep::split_lines(*text);
    auto where = detail_dreaming_sweep::relocate(note_lines, c.entry);
    if (!where) {
      r.withdrawn.emplace_back(c.entry.key, "the daily note " + c.entry.path + " no longer holds it");
      continue;
    }
    if (auto focused = detail_dreaming_sweep::focus(note_lines, *where, c.entry)) {
      where = std::move(focused);
    }
    if (is_unpromotable_snippet(where->snippet)) {
      r.withdrawn.emplace_back(c.entry.key, "the note's text is marked untrusted or is not promotable");
      continue;
    }
    Promotion p;
    p.key = c.entry.key;
    p.path = c.entry.path;
    p.start_line = where->start;
    p.end_line = where->end;
    p.snippet = make_snippet(where->snippet, max_bytes);
    p.score = c.score.score;
    for (const auto& t : c.entry.concept_tags) {
      if (p.triggers.size() >= 3) break;
      p.triggers.push_back(t);
    }
    p.importance = std::clamp(static_cast<int>(std::lround(c.score.score * 10)), 1, 10);
    r.promoted.push_back(std::move(p));
  }

  if (!r.non_durable && !r.promoted.empty()) {
    if (auto st = append_promotions(workspace, r.promoted, day_in_zone(o.now_ms, s.timezone), max_bytes); !st) {
      return st.error();
    }
    auto lock = lock_store(workspace);
    if (!lock) return lock.error();
    auto latest = load_recall_store(workspace);  // recalls recorded since the start are kept
    if (!latest) return latest.error();
    const std::string now_iso = iso_utc(o.now_ms);
    for (const auto& p : r.promoted) {
      if (auto it = latest->entries.find(p.key); it != latest->entries.end()) it->second.promoted_at = now_iso;
    }
    latest->updated_at = now_iso;
    if (auto st = save_recall_store(workspace, *latest); !st) return st.error();
  }
  // A full sweep with something to say reports; `promote --apply` only promotes.
  if (o.light_and_rem && (!r.staged.empty() || !r.withdrawn.empty())) {
    if (auto st = write_reports(workspace, r, o.now_ms, s.timezone); !st) return st.error();
  }
  return r;
}

json SweepResult::to_json() const {
  json cands = json::array();
  for (const auto& c : ranked) {
    cands.push_back({{"key", c.entry.key}, {"path", c.entry.path}, {"score", c.score.score},
                     {"recallCount", c.entry.recall_count}, {"uniqueQueries", c.unique_queries}, {"passes", c.passes}});
  }
  json prom = json::array();
  for (const auto& p : promoted) {
    prom.push_back({{"key", p.key}, {"path", p.path}, {"startLine", p.start_line}, {"endLine", p.end_line},
                    {"snippet", p.snippet}, {"score", p.score}, {"triggers", p.triggers}, {"importance", p.importance}});
  }
  json wd = json::array();
  for (const auto& [k, why] : withdrawn) wd.push_back({{"key", k}, {"reason", why}});
  json tr = json::array();
  for (const auto& t : truths) tr.push_back({{"key", t.key}, {"snippet", t.snippet}, {"confidence", t.confidence}});
  return {{"staged", staged.size()}, {"themes", themes}, {"truths", tr}, {"candidates", cands},
          {"promoted", prom}, {"withdrawn", wd}, {"nonDurable", non_durable}, {"timedOut", timed_out},
          {"memoryFile", memory_file.string()}};
}

}  // namespace pincer::memory::dreaming
