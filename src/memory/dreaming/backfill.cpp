#include "memory/dreaming/backfill.h"

#include <algorithm>

#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/snippet_rules.h"
#include "memory/search.h"
#include "store/atomic_file.h"

namespace pincer::memory::dreaming {

using nlohmann::json;
namespace fs = std::filesystem;

namespace detail_dreaming_backfill {

constexpr const char* kStart = "<!-- pincer-dreaming:backfill:start ";
constexpr const char* kEnd = "<!-- pincer-dreaming:backfill:end ";

fs::path diary_path(const fs::path& workspace) {
  std::error_code ec;
  if (!fs::exists(workspace / "DREAMS.md", ec) && fs::exists(workspace / "dreams.md", ec)) return workspace / "dreams.md";
  return workspace / "DREAMS.md";
}

Result<std::string> read_or_empty(const fs::path& p) {
  auto t = store::read_file(p, 16u << 20);
  if (t) return std::move(*t);
  if (t.error().code == "NOT_FOUND") return std::string();
  return t.error();
}

/// `text` without the backfill block of `day` (every day when `day` is empty); counts removals.
std::string strip_blocks(const std::string& text, const std::string& day, int& removed) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t start = text.find(kStart, pos);
    if (start == std::string::npos) break;
    const std::size_t day_at = start + std::char_traits<char>::length(kStart);
    const std::string this_day = text.substr(day_at, 10);
    const std::string end_marker = std::string(kEnd) + this_day + " -->";
    const std::size_t end = text.find(end_marker, day_at);
    if (end == std::string::npos) break;  // a broken block is left as it is
    if (!day.empty() && this_day != day) {
      out += text.substr(pos, end + end_marker.size() - pos);
      pos = end + end_marker.size();
      continue;
    }
    std::size_t cut_from = start;
    if (cut_from > 0 && text[cut_from - 1] == '\n' && cut_from > 1 && text[cut_from - 2] == '\n') --cut_from;
    out += text.substr(pos, cut_from - pos);
    pos = end + end_marker.size();
    if (pos < text.size() && text[pos] == '\n') ++pos;
    ++removed;
  }
  out += text.substr(pos);
  return out;
}

struct GroundedLine {
  int line = 0;
  std::string text;
};

std::vector<GroundedLine> grounded_lines(const std::string& note) {
  std::vector<GroundedLine> out;
  std::size_t pos = 0;
  int n = 0;
  while (pos <= note.size() && out.size() < kBackfillLinesPerDay) {
    const std::size_t nl = note.find('\n', pos);
    const std::string raw = note.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? note.size() + 1 : nl + 1;
    ++n;
    const std::string line = normalize_snippet(raw);
    if (line.empty() || line[0] == '#' || is_unpromotable_snippet(line)) continue;
    out.push_back({n, line});
  }
  return out;
}

}  // namespace detail_dreaming_backfill

json BackfillResult::to_json() const {
  return {{"sourceFiles", source_files}, {"writtenEntries", written}, {"replacedEntries", replaced},
          {"stagedShortTermEntries", staged}, {"notStaged", not_staged}, {"dreamsPath", dreams_path.string()}};
}

Result<BackfillResult> rem_backfill(const fs::path& workspace, const fs::path& path, bool stage_short_term, int64_t now_ms) {
  using namespace detail_dreaming_backfill;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file() && note_day(e.path().filename().string())) files.push_back(e.path());
    }
  } else if (fs::is_regular_file(path, ec)) {
    if (!note_day(path.filename().string())) {
      return Error{"NOT_FOUND", path.string() + " is not a daily note (YYYY-MM-DD.md or YYYY-MM-DD-slug.md)"};
    }
    files.push_back(path);
  } else {
    return Error{"NOT_FOUND", "no such file or folder: " + path.string()};
  }
  if (files.empty()) return Error{"NOT_FOUND", "no daily note (YYYY-MM-DD.md) in " + path.string()};
  std::sort(files.begin(), files.end());

  BackfillResult r;
  r.dreams_path = diary_path(workspace);
  auto diary = read_or_empty(r.dreams_path);
  if (!diary) return diary.error();
  std::string text = *diary;
  const fs::path memory_dir = fs::weakly_canonical(workspace / "memory", ec);
  std::vector<RecallHit> staged_hits;
  std::vector<std::pair<std::string, std::vector<RecallHit>>> by_day;
  for (const auto& f : files) {
    auto note = store::read_file(f, 16u << 20);
    if (!note) return note.error();
    const std::string name = f.filename().string();
    const std::string day = name.substr(0, 10);
    r.source_files.push_back(f.string());
    const auto lines = grounded_lines(*note);
    int removed = 0;
    text = strip_blocks(text, day, removed);
    r.replaced += removed;
    std::string block = std::string(kStart) + day + " -->\n### Backfill " + day + "\n\nGrounded in `" + f.string() + "`:\n\n";
    for (const auto& l : lines) block += "- " + make_snippet(l.text, 320) + "\n";
    if (lines.empty()) block += "- (no grounded lines)\n";
    block += std::string(kEnd) + day + " -->\n";
    if (text.empty()) text = "# Dream Diary\n";
    if (text.back() != '\n') text += '\n';
    text += "\n" + block;
    ++r.written;
    if (!stage_short_term) continue;
    const fs::path canon = fs::weakly_canonical(f, ec);
    const fs::path rel = canon.lexically_relative(memory_dir);
    if (rel.empty() || rel.begin()->string() == ".." || memory_dir.empty()) {
      r.not_staged.push_back(f.string());
      continue;
    }
    std::vector<RecallHit> hits;
    for (const auto& l : lines) {
      hits.push_back({"memory/" + rel.generic_string(), l.line, l.line, 1.0, l.text, "memory"});
    }
    by_day.emplace_back(day, std::move(hits));
  }
  if (auto st = store::write_file_atomic(r.dreams_path, text, 0644); !st) return st.error();
  for (const auto& [day, hits] : by_day) {
    // Recorded at noon UTC of the note's day, so the recall day is the note's own.
    auto days = note_day(day + ".md");
    const int64_t at = days ? *days * 86'400'000 + 43'200'000 : now_ms;
    auto lock = lock_store(workspace);
    if (!lock) return lock.error();
    auto s = load_recall_store(workspace);
    if (!s) return s.error();
    const std::string qh = query_hash(kBackfillQuery);
    for (const auto& h : hits) {
      const std::string key = entry_key(h.path, h.start_line, h.end_line);
      RecallEntry& e = s->entries[key];
      const bool fresh = e.key.empty();
      e.key = key;
      e.path = h.path;
      e.start_line = e.end_line = h.start_line;
      e.snippet = h.snippet;
      if (std::find(e.recall_days.begin(), e.recall_days.end(), day) != e.recall_days.end() &&
          std::find(e.query_hashes.begin(), e.query_hashes.end(), qh) != e.query_hashes.end()) {
        continue;  // staged before for this day: a second run does not count it twice
      }
      e.recall_count += 1;
      e.grounded_count += 1;
      e.total_score += 1.0;
      e.max_score = 1.0;
      if (fresh || e.first_recalled_at.empty()) e.first_recalled_at = iso_utc(at);
      if (e.last_recalled_at.empty() || parse_iso_ms(e.last_recalled_at).value_or(0) < at) e.last_recalled_at = iso_utc(at);
      if (std::find(e.query_hashes.begin(), e.query_hashes.end(), qh) == e.query_hashes.end()) e.query_hashes.push_back(qh);
      e.recall_days.push_back(day);
      std::sort(e.recall_days.begin(), e.recall_days.end());
      e.concept_tags = concept_tags(e.snippet);
      ++r.staged;
    }
    s->updated_at = iso_utc(now_ms);
    if (auto st = save_recall_store(workspace, *s); !st) return st.error();
  }
  return r;
}

Result<BackfillRollback> rem_backfill_rollback(const fs::path& workspace, bool diary, bool short_term) {
  using namespace detail_dreaming_backfill;
  BackfillRollback out;
  if (diary) {
    const fs::path p = diary_path(workspace);
    auto text = read_or_empty(p);
    if (!text) return text.error();
    const std::string next = strip_blocks(*text, "", out.removed_diary_blocks);
    if (out.removed_diary_blocks > 0) {
      if (auto st = store::write_file_atomic(p, next, 0644); !st) return st.error();
    }
  }
  if (short_term) {
    auto lock = lock_store(workspace);
    if (!lock) return lock.error();
    auto s = load_recall_store(workspace);
    if (!s) return s.error();
    const std::string qh = query_hash(kBackfillQuery);
    for (auto it = s->entries.begin(); it != s->entries.end();) {
      RecallEntry& e = it->second;
      if (e.grounded_count <= 0) {
        ++it;
        continue;
      }
      ++out.removed_recalls;
      if (e.grounded_count >= e.recall_count && e.promoted_at.empty()) {
        it = s->entries.erase(it);
        continue;
      }
      e.total_score = std::max(0.0, e.total_score - e.grounded_count);
      e.recall_count -= e.grounded_count;
      e.grounded_count = 0;
      e.query_hashes.erase(std::remove(e.query_hashes.begin(), e.query_hashes.end(), qh), e.query_hashes.end());
      ++it;
    }
    if (out.removed_recalls > 0) {
      if (auto st = save_recall_store(workspace, *s); !st) return st.error();
    }
  }
  return out;
}

}  // namespace pincer::memory::dreaming
