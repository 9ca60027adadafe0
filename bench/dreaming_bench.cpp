// The dreaming benchmark's in-process side (bench/dreaming_bench.sh): one full sweep (Light → REM →
// Deep, reports, MEMORY.md) over DAYS synthetic daily notes with ENTRIES recalled lines each, the
// recall store written as memory_search would have left it. Prints one JSON line:
// {days, entries, staged, promoted, sweepMs, storeBytes, peakRssKiB}.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "memory/daily_notes.h"
#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/snippet_rules.h"
#include "memory/dreaming/sweep.h"

namespace fs = std::filesystem;
namespace dr = pincer::memory::dreaming;

int main(int argc, char** argv) {
  const int days = argc > 1 ? std::stoi(argv[1]) : 90;
  const int per_day = argc > 2 ? std::stoi(argv[2]) : 30;
  const fs::path ws = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path() / "pincer-dreaming-bench";
  fs::remove_all(ws);
  fs::create_directories(ws / "memory");
  static const char* kWords[] = {"server", "deploy", "garden", "invoice", "kernel", "backup", "meeting", "recipe",
                                 "budget", "router", "vendor", "python", "ticket", "travel", "doctor", "laptop"};
  constexpr int64_t kDay = 86'400'000;
  const int64_t start = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  dr::RecallStore store;
  for (int d = 0; d < days; ++d) {
    const std::string stamp = pincer::memory::date_stamp(start + d * kDay, 0);
    const std::string rel = "memory/" + stamp + ".md";
    std::ofstream note(ws / rel);
    note << "# " << stamp << "\n\n";
    for (int i = 0; i < per_day; ++i) {
      const std::string line = "- Note " + std::to_string(d) + "." + std::to_string(i) + ": the " + kWords[(d + i) % 16] +
                               " and the " + kWords[(d * 7 + i * 3) % 16] + " were discussed with item " +
                               std::to_string(d * per_day + i) + ".";
      note << line << "\n";
      const int ln = i + 3;
      dr::RecallEntry e;
      e.path = rel;
      e.start_line = e.end_line = ln;
      e.key = dr::entry_key(rel, ln, ln);
      e.snippet = dr::normalize_snippet(line);
      e.recall_count = 1 + (d + i) % 6;
      e.total_score = 0.8 * e.recall_count;
      e.max_score = 0.9;
      e.first_recalled_at = dr::iso_utc(start + d * kDay);
      e.last_recalled_at = dr::iso_utc(start + (d + e.recall_count) * kDay);
      for (int q = 0; q < 1 + (i % 3); ++q) e.query_hashes.push_back("q" + std::to_string(q));
      for (int k = 0; k < std::min(e.recall_count, 4); ++k) e.recall_days.push_back(pincer::memory::date_stamp(start + (d + k) * kDay, 0));
      e.concept_tags = dr::concept_tags(e.snippet);
      store.entries[e.key] = std::move(e);
    }
  }
  if (auto st = dr::save_recall_store(ws, store); !st) {
    std::cerr << st.error().message << "\n";
    return 1;
  }
  std::ofstream(ws / "MEMORY.md") << "# Memory\n\n- The user's own line.\n";

  dr::DreamingSettings s;
  s.enabled = true;
  s.timezone = "UTC";
  s.limit = 10;
  dr::SweepOptions o;
  o.now_ms = start + (days + 1) * kDay;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = dr::run_sweep(ws, s, o);
  const auto t1 = std::chrono::steady_clock::now();
  if (!r) {
    std::cerr << r.error().message << "\n";
    return 1;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const nlohmann::json out = {
      {"days", days}, {"entries", store.entries.size()}, {"staged", r->staged.size()}, {"promoted", r->promoted.size()},
      {"sweepMs", std::chrono::duration_cast<std::chrono::milliseconds>(t1 - t0).count()},
      {"storeBytes", fs::file_size(dr::recall_store_path(ws))}, {"peakRssKiB", ru.ru_maxrss}};
  std::cout << out.dump() << "\n";
  fs::remove_all(ws);
  return 0;
}
