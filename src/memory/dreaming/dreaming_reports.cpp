// What a sweep writes for people: the MEMORY.md promotions, the phase reports and the DREAMS.md
// diary (sweep.h). Every file is rewritten atomically with its old bytes first.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "automation/schedule.h"
#include "memory/dreaming/sweep.h"
#include "memory/search.h"
#include "store/atomic_file.h"

namespace pincer::memory::dreaming {

namespace fs = std::filesystem;

namespace detail_dreaming_reports {

Result<std::string> read_or_empty(const fs::path& path) {
  auto text = store::read_file(path, 16u << 20);
  if (text) return std::move(*text);
  if (text.error().code == "NOT_FOUND") return std::string();
  return text.error();
}

mode_t mode_of(const fs::path& path, mode_t fallback) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  return fallback;
}

/// `path` with `text` appended (and `header` first when the file is new or empty).
Status append_atomic(const fs::path& path, const std::string& header, const std::string& text) {
  auto old = read_or_empty(path);
  if (!old) return old.error();
  std::string next = *old;
  if (next.empty()) next = header;
  if (!next.empty() && next.back() != '\n') next += '\n';
  next += text;
  return store::write_file_atomic(path, next, mode_of(path, 0644));
}

/// A snippet that stays on its line and cannot open or close an HTML comment.
std::string inline_safe(std::string s, std::size_t max_bytes) {
  for (auto pos = s.find("-->"); pos != std::string::npos; pos = s.find("-->", pos)) s.replace(pos, 3, "->");
  for (auto pos = s.find("<!--"); pos != std::string::npos; pos = s.find("<!--", pos)) s.replace(pos, 4, "<!-");
  return make_snippet(s, max_bytes);
}

std::string hhmm(int64_t now_ms, const std::string& zone) {
  const auto off = automation::zone_offset_seconds(zone, now_ms).value_or(0);
  const int64_t local_s = now_ms / 1000 + off;
  const int64_t in_day = ((local_s % 86400) + 86400) % 86400;
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d:%02d", static_cast<int>(in_day / 3600), static_cast<int>(in_day / 60 % 60));
  return buf;
}

std::string fmt2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string source_ref(const std::string& path, int start, int end) {
  return path + "#L" + std::to_string(start) + "-L" + std::to_string(end);
}

}  // namespace detail_dreaming_reports

using detail_dreaming_reports::fmt2;
using detail_dreaming_reports::inline_safe;
using detail_dreaming_reports::source_ref;

Status append_promotions(const fs::path& workspace, const std::vector<Promotion>& promotions, const std::string& day,
                         std::size_t max_snippet_bytes) {
  const fs::path file = memory_file_path(workspace);
  auto old = detail_dreaming_reports::read_or_empty(file);
  if (!old) return old.error();
  std::string section;
  for (const auto& p : promotions) {
    const std::string marker = "<!-- pincer-dreaming-promotion: " + p.key + " -->";
    if (old->find(marker) != std::string::npos) continue;  // written by an earlier sweep
    std::string triggers;
    for (const auto& t : p.triggers) triggers += (triggers.empty() ? "" : ", ") + t;
    section += marker + "\n- " + inline_safe(p.snippet, max_snippet_bytes) +
               " (Source: " + source_ref(p.path, p.start_line, p.end_line) + ")";
    if (!triggers.empty()) section += " <!-- trigger: " + triggers + " -->";
    section += " <!-- importance: " + std::to_string(p.importance) + " -->\n";
  }
  if (section.empty()) return Ok{};
  // The file as it was, kept before any rewrite.
  if (auto st = store::write_file_atomic(dreams_dir(workspace) / "memory-md.prev", *old); !st) return st;
  return detail_dreaming_reports::append_atomic(file, "# Long-Term Memory\n",
                                                "\n## Promoted From Short-Term Memory (" + day + ")\n\n" + section);
}

Status write_reports(const fs::path& workspace, const SweepResult& r, int64_t now_ms, const std::string& zone) {
  const std::string day = day_in_zone(now_ms, zone);
  const std::string at = detail_dreaming_reports::hhmm(now_ms, zone);
  const fs::path reports = workspace / "memory" / "dreaming";
  constexpr std::size_t kListed = 50;

  std::string light = "- staged: " + std::to_string(r.staged.size()) + "\n";
  for (std::size_t i = 0; i < r.staged.size() && i < kListed; ++i) {
    const auto& e = r.staged[i];
    light += "- `" + source_ref(e.path, e.start_line, e.end_line) + "` recalls=" + std::to_string(e.recall_count) +
             " avg=" + fmt2(e.avg_score()) + ": " + inline_safe(e.snippet, 160) + "\n";
  }
  std::string rem;
  if (r.themes.empty() && r.truths.empty()) rem = "- no themes yet\n";
  if (!r.themes.empty()) {
    rem += "- themes:";
    for (const auto& t : r.themes) rem += " " + t;
    rem += "\n";
  }
  for (const auto& t : r.truths) rem += "- candidate truth (confidence " + fmt2(t.confidence) + "): " + inline_safe(t.snippet, 160) + "\n";
  std::string deep;
  deep += r.non_durable ? "- mode: non-durable (MEMORY.md left unchanged)\n" : "";
  deep += "- promoted: " + std::to_string(r.promoted.size()) + "\n";
  for (const auto& p : r.promoted) {
    deep += "- " + std::string(r.non_durable ? "would promote" : "promoted") + " (score " + fmt2(p.score) + ") `" +
            source_ref(p.path, p.start_line, p.end_line) + "`: " + inline_safe(p.snippet, 160) + "\n";
  }
  for (const auto& [key, why] : r.withdrawn) deep += "- withdrawn `" + key + "`: " + why + "\n";
  for (const auto& c : r.ranked) {
    if (c.passes) continue;
    std::string failed;
    for (const auto& g : c.gates) {
      if (!g.passed) failed += (failed.empty() ? "" : ", ") + g.name + " " + fmt2(g.value) + " < " + fmt2(g.threshold);
    }
    deep += "- held back `" + c.entry.key + "`: " + failed + "\n";
  }
  if (r.timed_out) deep += "- stopped at the sweep's time limit; the rest waits for the next sweep\n";

  const std::string heading = "\n## Sweep " + at + "\n\n";
  if (auto st = detail_dreaming_reports::append_atomic(reports / "light" / (day + ".md"), "# Light Sleep " + day + "\n", heading + light); !st) return st;
  if (auto st = detail_dreaming_reports::append_atomic(reports / "rem" / (day + ".md"), "# REM Sleep " + day + "\n", heading + rem); !st) return st;
  if (auto st = detail_dreaming_reports::append_atomic(reports / "deep" / (day + ".md"), "# Deep Sleep " + day + "\n", heading + deep); !st) return st;

  std::error_code ec;
  fs::path diary = workspace / "DREAMS.md";
  if (!fs::exists(diary, ec) && fs::exists(workspace / "dreams.md", ec)) diary = workspace / "dreams.md";
  const std::string entry = "\n---\n\n*" + day + " " + at + "*\n\n## Light Sleep\n\n" + light + "\n## REM Sleep\n\n" + rem +
                            "\n## Deep Sleep\n\n" + deep;
  return detail_dreaming_reports::append_atomic(diary, "# Dream Diary\n", entry);
}

}  // namespace pincer::memory::dreaming
