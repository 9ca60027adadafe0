// Dreaming end to end on real files (SPEC DR-1..DR-5): memory_search hits of an interactive
// session feed the recall store (through MemoryService, real SQLite index), a sweep promotes a
// fact recalled on three days by two queries into MEMORY.md once, a deleted note withdraws its
// candidate, the non-durable mode leaves MEMORY.md byte-identical, disabled dreaming writes
// nothing. "Different days" come from an injected clock; nothing sleeps.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "memory/dreaming/explain.h"
#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/sweep.h"
#include "memory/memory_service.h"

namespace pincer::memory::dreaming {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kDay = 86'400'000;
constexpr int64_t kMar1Noon = 1'772'366'400'000;  // 2026-03-01T12:00:00Z

struct DreamTempDir {
  fs::path dir = fs::temp_directory_path() / ("pincer-dreaming-" + ids::uuid_v4());
  fs::path ws = dir / "ws";
  DreamTempDir() { fs::create_directories(ws / "memory"); }
  ~DreamTempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string dream_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json dream_config(bool enabled, bool non_durable = false) {
  return json{{"memory", {{"search", {{"query", {{"hybrid", {{"temporalDecay", {{"enabled", false}}}}}}}}}}},
              {"plugins",
               {{"entries",
                 {{"memory-core", {{"config", {{"dreaming", {{"enabled", enabled}, {"timezone", "UTC"},
                                                             {"nonDurable", non_durable}}}}}}}}}}}};
}

constexpr const char* kUserMemory = "# Memory\n\n- I keep my bicycle in the shed.\n";
constexpr const char* kNote = "# 2026-03-01\n\n- The build server nimbus runs Debian and deploys at noon.\n";

/// Three searches on three days by two queries, in an interactive session.
void recall_three_days(MemoryService& svc, const fs::path& ws, int64_t& now) {
  for (const char* q : {"nimbus", "Debian", "nimbus"}) {
    json r = svc.search_for_session("main", ws, {{"query", q}}, "agent:main:main", "main");
    ASSERT_FALSE(r["results"].empty()) << r.dump();
    now += kDay;
  }
}

SweepOptions at(int64_t now) {
  SweepOptions o;
  o.now_ms = now;
  o.steady_ms = [] { return int64_t{0}; };
  return o;
}

TEST(DreamingSweep, RecalledOnThreeDaysByTwoQueriesIsPromotedOnceWithSourceAndTags) {
  DreamTempDir t;
  std::ofstream(t.ws / "MEMORY.md") << kUserMemory;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  const json config = dream_config(true);
  MemoryService svc(config, t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);

  auto store = load_recall_store(t.ws);
  ASSERT_TRUE(store);
  ASSERT_EQ(store->entries.size(), 1u);
  const RecallEntry& e = store->entries.begin()->second;
  EXPECT_EQ(e.path, "memory/2026-03-01.md");
  EXPECT_EQ(e.recall_count, 3);
  EXPECT_EQ(e.query_hashes.size(), 2u);
  EXPECT_EQ(e.recall_days, (std::vector<std::string>{"2026-03-01", "2026-03-02", "2026-03-03"}));
  EXPECT_FALSE(e.concept_tags.empty());

  // promote-explain before the sweep: every gate with value and threshold.
  const DreamingSettings s = resolve_dreaming_settings(config);
  auto x = explain_promotion(t.ws, s, now, "nimbus");
  ASSERT_TRUE(x);
  ASSERT_EQ((*x)["matches"].size(), 1u);
  const json& m = (*x)["matches"][0];
  EXPECT_TRUE(m["wouldPromote"].get<bool>()) << m.dump(2);
  ASSERT_EQ(m["gates"].size(), 3u);
  EXPECT_EQ(m["gates"][1]["name"], "recallCount");
  EXPECT_EQ(m["gates"][1]["value"], 3.0);
  EXPECT_EQ(m["gates"][1]["threshold"], 3.0);
  EXPECT_EQ(m["gates"][2]["name"], "uniqueQueries");
  EXPECT_EQ(m["gates"][2]["value"], 2.0);
  const std::string text = format_explanation(*x);
  EXPECT_NE(text.find("[pass] recallCount 3 (needs >= 3)"), std::string::npos) << text;

  auto r = run_sweep(t.ws, s, at(now));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->promoted.size(), 1u) << r->to_json().dump(2);
  const std::string memory = dream_read(t.ws / "MEMORY.md");
  EXPECT_EQ(memory.rfind(kUserMemory, 0), 0u) << "the user's lines are kept byte for byte";
  EXPECT_NE(memory.find("The build server nimbus runs Debian and deploys at noon."), std::string::npos) << memory;
  EXPECT_NE(memory.find("- The build server nimbus runs Debian and deploys at noon. (Source: memory/2026-03-01.md#L3-L3)"),
            std::string::npos)
      << "the fact's own line, not the heading above it: " << memory;
  EXPECT_NE(memory.find("<!-- trigger: "), std::string::npos) << memory;
  EXPECT_NE(memory.find("<!-- importance: "), std::string::npos) << memory;
  EXPECT_EQ(dream_read(t.ws / "memory/.dreams/memory-md.prev"), kUserMemory);
  EXPECT_TRUE(fs::exists(t.ws / "memory/.dreams/phase-signals.json"));
  for (const char* phase : {"light", "rem", "deep"}) {
    EXPECT_TRUE(fs::exists(t.ws / "memory/dreaming" / phase / "2026-03-04.md")) << phase;
  }
  const std::string diary = dream_read(t.ws / "DREAMS.md");
  for (const char* block : {"## Light Sleep", "## REM Sleep", "## Deep Sleep"}) {
    EXPECT_NE(diary.find(block), std::string::npos) << diary;
  }

  // More recalls and a second sweep the next day: promoted once and only once.
  recall_three_days(svc, t.ws, now);
  auto again = run_sweep(t.ws, s, at(now));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->promoted.empty());
  const std::string after = dream_read(t.ws / "MEMORY.md");
  EXPECT_EQ(after, memory);
  auto x2 = explain_promotion(t.ws, s, now, "nimbus");
  ASSERT_TRUE(x2);
  EXPECT_FALSE((*x2)["matches"][0]["wouldPromote"].get<bool>());
  EXPECT_TRUE((*x2)["matches"][0].contains("promotedAt"));
}

TEST(DreamingSweep, PromotesTheMatchingLinesNotTheWholeChunkWithItsHeadings) {
  DreamTempDir t;
  std::ofstream(t.ws / "MEMORY.md") << kUserMemory;
  std::ofstream(t.ws / "memory/2026-03-01.md")
      << "# 2026-03-01\n\n## Morning\n- 08:10 [preference] I prefer oat milk in coffee.\n- Walked to the corner shop.\n\n"
         "## Work\n- Lunch was late today.\n- The build server nimbus runs Debian and deploys at noon.\n\n"
         "## Evening\n- Watched a film about sailing boats.\n";
  const json config = dream_config(true);
  MemoryService svc(config, t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);
  auto r = run_sweep(t.ws, resolve_dreaming_settings(config), at(now));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->promoted.size(), 1u) << r->to_json().dump(2);
  EXPECT_EQ(r->promoted[0].snippet, "The build server nimbus runs Debian and deploys at noon.");
  EXPECT_EQ(r->promoted[0].start_line, 9);
  EXPECT_EQ(r->promoted[0].end_line, 9);
  const std::string memory = dream_read(t.ws / "MEMORY.md");
  EXPECT_NE(memory.find("\n- The build server nimbus runs Debian and deploys at noon. (Source: memory/2026-03-01.md#L9-L9)"),
            std::string::npos)
      << memory;
  for (const char* other : {"## Morning", "oat milk", "## Evening", "sailing", "Lunch"}) {
    EXPECT_EQ(memory.find(other), std::string::npos) << other << " was flattened in: " << memory;
  }
}

TEST(DreamingSweep, ADeletedDailyNoteWithdrawsItsCandidate) {
  DreamTempDir t;
  std::ofstream(t.ws / "MEMORY.md") << kUserMemory;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  MemoryService svc(dream_config(true), t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);
  fs::remove(t.ws / "memory/2026-03-01.md");

  const DreamingSettings s = resolve_dreaming_settings(dream_config(true));
  auto x = explain_promotion(t.ws, s, now, "nimbus");
  ASSERT_TRUE(x);
  EXPECT_FALSE((*x)["matches"][0]["wouldPromote"].get<bool>());
  EXPECT_FALSE((*x)["matches"][0]["sourcePresent"].get<bool>());

  auto r = run_sweep(t.ws, s, at(now));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->promoted.empty());
  ASSERT_EQ(r->withdrawn.size(), 1u);
  EXPECT_NE(r->withdrawn[0].second.find("is gone"), std::string::npos);
  EXPECT_EQ(dream_read(t.ws / "MEMORY.md"), kUserMemory);
  EXPECT_FALSE(fs::exists(t.ws / "memory/.dreams/memory-md.prev"));
}

TEST(DreamingSweep, NonDurableReflectsButLeavesMemoryByteIdentical) {
  DreamTempDir t;
  std::ofstream(t.ws / "MEMORY.md") << kUserMemory;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  MemoryService svc(dream_config(true, true), t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);
  const DreamingSettings s = resolve_dreaming_settings(dream_config(true, true));
  EXPECT_TRUE(s.non_durable);
  auto r = run_sweep(t.ws, s, at(now));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->promoted.size(), 1u);  // what it would promote, reported
  EXPECT_EQ(dream_read(t.ws / "MEMORY.md"), kUserMemory);
  EXPECT_NE(dream_read(t.ws / "memory/dreaming/deep/2026-03-04.md").find("would promote"), std::string::npos);
  auto store = load_recall_store(t.ws);
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->entries.begin()->second.promoted_at.empty()) << "still promotable once durable";
}

TEST(DreamingSweep, DisabledDreamingAndNonInteractiveSessionsWriteNothing) {
  DreamTempDir t;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  {
    MemoryService svc(dream_config(false), t.dir / "state", {}, false);
    json r = svc.search_for_session("main", t.ws, {{"query", "nimbus"}}, "agent:main:main", "main");
    ASSERT_FALSE(r["results"].empty());
    EXPECT_FALSE(fs::exists(t.ws / "memory/.dreams"));
  }
  {
    MemoryService svc(json::object(), t.dir / "state2", {}, false);  // no dreaming block at all
    (void)svc.search_for_session("main", t.ws, {{"query", "nimbus"}}, "agent:main:main", "main");
    EXPECT_FALSE(fs::exists(t.ws / "memory/.dreams"));
  }
  MemoryService svc(dream_config(true), t.dir / "state3", {}, false);
  (void)svc.search_for_session("main", t.ws, {{"query", "nimbus"}}, "agent:main:main", "cron");
  (void)svc.search_for_session("main", t.ws, {{"query", "nimbus"}}, "agent:main:subagent:9", "main");
  (void)svc.search("main", t.ws, {{"query", "nimbus"}});  // the CLI's search: no session
  EXPECT_FALSE(fs::exists(t.ws / "memory/.dreams"));
}

TEST(DreamingSweep, UntrustedContentIsNeverRecordedNorPromoted) {
  DreamTempDir t;
  std::ofstream(t.ws / "memory/2026-03-01.md")
      << "# 2026-03-01\n\n- <!-- untrusted --> The wiki says nimbus runs Debian and reboots on Fridays.\n";
  MemoryService svc(dream_config(true), t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);
  auto store = load_recall_store(t.ws);
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->entries.empty());
}

TEST(DreamingSweep, TwoSweepsNeverPromoteAtOnce) {
  DreamTempDir t;
  auto nothing = run_sweep(t.ws, resolve_dreaming_settings(dream_config(true)), at(kMar1Noon));
  ASSERT_TRUE(nothing);
  EXPECT_FALSE(fs::exists(t.ws / "memory/.dreams")) << "no recall store: the workspace is left untouched";
  EXPECT_FALSE(fs::exists(t.ws / "DREAMS.md"));
  ASSERT_TRUE(save_recall_store(t.ws, RecallStore{}));
  auto held = FileLock::acquire(promotion_lock_path(t.ws), false);
  ASSERT_TRUE(held);
  auto r = run_sweep(t.ws, resolve_dreaming_settings(dream_config(true)), at(kMar1Noon));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "DREAMING_LOCKED");
}

TEST(DreamingSweep, ACorruptRecallStoreIsNeverOverwritten) {
  DreamTempDir t;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  fs::create_directories(t.ws / "memory/.dreams");
  std::ofstream(t.ws / "memory/.dreams/short-term-recall.json") << "{not json";
  MemoryService svc(dream_config(true), t.dir / "state", {}, false);
  json r = svc.search_for_session("main", t.ws, {{"query", "nimbus"}}, "agent:main:main", "main");
  EXPECT_FALSE(r["results"].empty()) << "the search itself still answers";
  EXPECT_EQ(dream_read(t.ws / "memory/.dreams/short-term-recall.json"), "{not json");
  auto sweep = run_sweep(t.ws, resolve_dreaming_settings(dream_config(true)), at(kMar1Noon));
  ASSERT_FALSE(sweep);
  EXPECT_EQ(sweep.error().code, "DREAMING_STATE_INVALID");
  EXPECT_NE(sweep.error().message.find("short-term-recall.json"), std::string::npos);
}

TEST(DreamingSweep, StopsAtItsTimeLimitAndPromotesNothingPastIt) {
  DreamTempDir t;
  std::ofstream(t.ws / "MEMORY.md") << kUserMemory;
  std::ofstream(t.ws / "memory/2026-03-01.md") << kNote;
  json config = dream_config(true);
  config["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["timeoutSeconds"] = 5;
  MemoryService svc(config, t.dir / "state", {}, false);
  int64_t now = kMar1Noon;
  svc.set_clock([&now] { return now; });
  recall_three_days(svc, t.ws, now);
  const DreamingSettings s = resolve_dreaming_settings(config);
  EXPECT_EQ(s.timeout_ms, 5000);
  SweepOptions o = at(now);
  int64_t steady = 0;
  o.steady_ms = [&steady] { return steady += 3000; };  // every look at the clock: 3 s later
  auto r = run_sweep(t.ws, s, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_TRUE(r->promoted.empty());
  EXPECT_EQ(dream_read(t.ws / "MEMORY.md"), kUserMemory);
  EXPECT_NE(dream_read(t.ws / "memory/dreaming/deep/2026-03-04.md").find("time limit"), std::string::npos);
}

TEST(DreamingStatus, ConfigProblemsNameTheKey) {
  json config = dream_config(true);
  EXPECT_TRUE(dreaming_problems(config).empty());
  config["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["frequency"] = "0 25 * * *";
  config["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["timezone"] = "Mars/Base";
  const auto problems = dreaming_problems(config);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].rfind("plugins.entries.memory-core.config.dreaming.frequency: ", 0), 0u) << problems[0];
  EXPECT_NE(problems[1].find("dreaming.timezone: \"Mars/Base\""), std::string::npos) << problems[1];
}

TEST(DreamingStatus, NextSweepOrWhyNone) {
  DreamTempDir t;
  DreamingSettings s = resolve_dreaming_settings(dream_config(true));
  EXPECT_EQ(s.frequency, "0 3 * * *");
  json st = dreaming_status(t.ws, s, true, kMar1Noon);
  EXPECT_EQ(st["nextSweepAt"], "2026-03-02T03:00:00.000Z") << st.dump();
  EXPECT_NE(dreaming_status(t.ws, s, false, kMar1Noon)["noSweepReason"].get<std::string>().find("cron.enabled"),
            std::string::npos);
  s.frequency = "61 * * * *";
  EXPECT_NE(dreaming_status(t.ws, s, true, kMar1Noon)["noSweepReason"].get<std::string>().find("frequency"),
            std::string::npos);
  const DreamingSettings off = resolve_dreaming_settings(json::object());
  EXPECT_FALSE(off.enabled);
  EXPECT_NE(dreaming_status(t.ws, off, true, kMar1Noon)["noSweepReason"].get<std::string>().find("enabled is false"),
            std::string::npos);
}

}  // namespace
}  // namespace pincer::memory::dreaming
