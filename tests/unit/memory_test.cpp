// Memory (src/memory): the chunker, the FTS query builder, the SQLite index (sync, keyword and
// CJK search, corrupt files, rebuilds), ranking (MM-5) and agent isolation (MM-8). Real SQLite,
// real files in a temp workspace; no network (embeddings against the mock LLM are in
// tests/integration/memory_test.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "memory/chunker.h"
#include "memory/fts_query.h"
#include "memory/memory_files.h"
#include "memory/memory_index.h"
#include "memory/memory_service.h"
#include "memory/search.h"

namespace pincer::memory {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void spit(const fs::path& p, std::string_view data) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << data;
}

struct Temp {
  fs::path dir = fs::temp_directory_path() / ("pincer-memory-" + ids::uuid_v4());
  Temp() { fs::create_directories(dir); }
  ~Temp() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

MemorySettings settings_in(const fs::path& root, const std::string& agent = "main") {
  return resolve_memory_settings(json::object(), agent, root / "workspace", root / "state", {});
}

std::unique_ptr<MemoryIndex> open_index(const MemorySettings& s, const fs::path& ws) {
  auto idx = MemoryIndex::open(s, ws, "main");
  EXPECT_TRUE(idx) << (idx ? "" : idx.error().message);
  return idx ? std::move(*idx) : nullptr;
}

// ---- chunker -----------------------------------------------------------------------------------

TEST(MemoryChunker, LinesRangesAndOverlap) {
  std::string text;
  for (int i = 1; i <= 200; ++i) text += "line " + std::to_string(i) + " with some words to fill it up nicely\n";
  auto chunks = chunk_markdown(text, {100, 20});
  ASSERT_GT(chunks.size(), 3u);
  EXPECT_EQ(chunks.front().start_line, 1);
  EXPECT_EQ(chunks.back().end_line, 200);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LE(chunks[i].text.size(), 100u * kBytesPerToken + 20u * kBytesPerToken) << i;
    // Lines are whole: the chunk text is exactly the source lines it names.
    std::string expect;
    for (int l = chunks[i].start_line; l <= chunks[i].end_line; ++l) {
      if (l > chunks[i].start_line) expect += '\n';
      expect += "line " + std::to_string(l) + " with some words to fill it up nicely";
    }
    EXPECT_EQ(chunks[i].text, expect) << i;
    if (i > 0) {
      EXPECT_LE(chunks[i].start_line, chunks[i - 1].end_line) << "overlap";
      EXPECT_GT(chunks[i].start_line, chunks[i - 1].start_line) << "progress";
    }
  }
}

TEST(MemoryChunker, HeadingStartsAChunkAndLongLinesSplit) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "alpha beta gamma delta epsilon\n";
  text += "## Second section\nbody\n";
  auto chunks = chunk_markdown(text, {100, 20});
  ASSERT_FALSE(chunks.empty());
  bool heading_first = false;
  for (const auto& c : chunks) heading_first |= c.text.rfind("## Second section", 0) == 0;
  EXPECT_TRUE(heading_first);

  std::string longline(5000, 'x');
  longline += "é";  // a 2-byte character near the cut must not be split
  auto pieces = chunk_markdown(longline, {100, 20});
  ASSERT_GT(pieces.size(), 1u);
  std::string joined;
  for (const auto& p : pieces) {
    EXPECT_EQ(p.start_line, 1);
    EXPECT_EQ(p.end_line, 1);
    joined += p.text;
  }
  EXPECT_EQ(joined, longline);
  EXPECT_TRUE(chunk_markdown("  \n\n\t\n").empty());
}

// ---- query builder -----------------------------------------------------------------------------

TEST(MemoryFtsQuery, UserTextIsNeverSyntax) {
  auto q = build_fts_query(R"(cat AND NOT dog* OR "x" NEAR(a b) col:val ^start)");
  // Function words ("and", "or", "a") are left out: the operators are gone either way.
  EXPECT_EQ(q.words, R"("cat" OR "not" OR "dog" OR "x" OR "near" OR "b" OR "col" OR "val" OR "start")");
  EXPECT_TRUE(build_fts_query("  ,,, !!! ").empty());
  EXPECT_EQ(build_fts_query("What is the deadline for Orion?").words, R"("deadline" OR "orion")");
  EXPECT_EQ(build_fts_query("what is it").words, R"("what" OR "is" OR "it")");  // nothing else to search for
  // The 64-word cap counts the words left after the function words: 67 of them do not push a
  // real word out.
  std::string many;
  for (const char* w : {"a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
                        "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how",
                        "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so",
                        "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we",
                        "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would",
                        "you", "your"}) {
    many += std::string(w) + " ";
  }
  EXPECT_EQ(build_fts_query(many + "Orion").words, R"("orion")");
  auto cjk = build_fts_query("我喜欢什么 颜色");
  EXPECT_EQ(cjk.trigrams, R"("我喜欢" OR "喜欢什" OR "欢什么")");
  ASSERT_EQ(cjk.short_cjk.size(), 1u);
  EXPECT_EQ(cjk.short_cjk[0], "颜色");
}

// ---- index -------------------------------------------------------------------------------------

TEST(MemoryIndexTest, FindsFactsAndRereadsOnlyChangedFiles) {
  Temp t;
  const fs::path ws = t.dir / "workspace";
  spit(ws / "MEMORY.md", "# Memory\n- The user's cat is called Zephyrine.\n");
  spit(ws / "memory/2026-11-30.md", "- Dentist appointment moved to Friday.\n");
  spit(ws / "notes.md", "- not memory: Zephyrine appears here too\n");
  auto idx = open_index(settings_in(t.dir), ws);
  ASSERT_TRUE(idx);
  auto first = idx->sync();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->files, 2);
  EXPECT_EQ(first->changed, 2);
  auto again = idx->sync();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->changed, 0);

  auto r = idx->search("what is my cat called?", std::nullopt, std::nullopt);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].path, "MEMORY.md");
  EXPECT_EQ(r->results[0].start_line, 1);
  EXPECT_EQ(r->results[0].end_line, 2);
  EXPECT_NE(r->results[0].snippet.find("Zephyrine"), std::string::npos);
  EXPECT_EQ(r->mode, "keyword");
  for (const auto& h : r->results) EXPECT_NE(h.path, "notes.md");

  // Only the edited file is re-chunked; a deleted file leaves the index.
  spit(ws / "memory/2026-11-30.md", "- Dentist appointment moved to Monday.\n- Bring the forms.\n");
  fs::remove(ws / "MEMORY.md");
  auto third = idx->sync();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->changed, 1);
  EXPECT_EQ(third->removed, 1);
  auto gone = idx->search("Zephyrine", std::nullopt, std::nullopt);
  ASSERT_TRUE(gone);
  EXPECT_TRUE(gone->results.empty());
  auto monday = idx->search("dentist", std::nullopt, std::nullopt);
  ASSERT_TRUE(monday);
  ASSERT_EQ(monday->results.size(), 1u);
  EXPECT_NE(monday->results[0].snippet.find("Monday"), std::string::npos);
}

TEST(MemoryIndexTest, ChineseQueries) {
  Temp t;
  const fs::path ws = t.dir / "workspace";
  spit(ws / "memory/2026-12-01.md", "- 我喜欢蓝色的杯子。\n- 记住：我的猫叫小白。\n");
  spit(ws / "memory/topics.md", "- Unrelated English note about trains.\n");
  auto idx = open_index(settings_in(t.dir), ws);
  ASSERT_TRUE(idx);
  for (const char* q : {"我喜欢什么颜色", "小白", "猫"}) {
    auto r = idx->search(q, std::nullopt, std::nullopt);
    ASSERT_TRUE(r) << q;
    ASSERT_FALSE(r->results.empty()) << q;
    EXPECT_EQ(r->results[0].path, "memory/2026-12-01.md") << q;
  }
}

TEST(MemoryIndexTest, HostileQueriesAnswerWithoutErrors) {
  Temp t;
  const fs::path ws = t.dir / "workspace";
  spit(ws / "MEMORY.md", "- quote \" and star * and NEAR words\n");
  auto idx = open_index(settings_in(t.dir), ws);
  ASSERT_TRUE(idx);
  for (const char* q : {"\"", "\"\"\"", "*", "NEAR(", "a:b", "(((", "^", "AND", "-x", "'; DROP TABLE chunks; --", "",
                        "\xff\xfe", "😀😀😀", "ab\"cd"}) {
    auto r = idx->search(q, std::nullopt, std::nullopt);
    EXPECT_TRUE(r) << q << ": " << (r ? "" : r.error().message);
  }
  auto r = idx->search("NEAR", std::nullopt, 0.0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->results.size(), 1u);
}

TEST(MemoryIndexTest, ACorruptIndexFileIsRebuiltFromTheMarkdown) {
  Temp t;
  const fs::path ws = t.dir / "workspace";
  spit(ws / "MEMORY.md", "- The boat is called Saltwater Sally.\n");
  const MemorySettings s = settings_in(t.dir);
  {
    auto idx = open_index(s, ws);
    ASSERT_TRUE(idx && idx->sync());
  }
  spit(s.store_path, std::string(8192, '\x5a'));  // not a database any more
  fs::remove(s.store_path.string() + "-wal");
  fs::remove(s.store_path.string() + "-shm");
  std::string reason;
  auto db = IndexDb::open(s.store_path, &reason);
  ASSERT_TRUE(db);
  EXPECT_FALSE(reason.empty());
  db->reset();
  spit(s.store_path, std::string(8192, '\x5a'));
  auto idx = open_index(s, ws);
  ASSERT_TRUE(idx);
  auto r = idx->search("boat", std::nullopt, std::nullopt);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->results.size(), 1u);
}

TEST(MemoryIndexTest, ChangedChunkingRebuildsEverything) {
  Temp t;
  const fs::path ws = t.dir / "workspace";
  spit(ws / "MEMORY.md", "- one\n");
  spit(ws / "memory/a.md", "- two\n");
  MemorySettings s = settings_in(t.dir);
  {
    auto idx = open_index(s, ws);
    auto r = idx->sync();
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->rebuilt);  // a new index
    auto again = idx->sync();
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->rebuilt);
  }
  s.chunking.tokens = 200;
  auto idx = open_index(s, ws);
  auto r = idx->sync();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->rebuilt);
  EXPECT_EQ(r->changed, 2);
}

// ---- ranking (MM-5) ----------------------------------------------------------------------------

Candidate cand(int64_t id, double text, double vec, std::optional<int64_t> day, std::string body) {
  Candidate c;
  c.chunk_id = id;
  c.path = "p" + std::to_string(id);
  c.text_score = text;
  c.vector_score = vec;
  c.has_vector = true;
  c.day = day;
  c.text = std::move(body);
  return c;
}

TEST(MemoryRank, HybridWeightsDecayFloorAndMinScoreBeforeDecay) {
  HybridOptions o;
  o.mmr = false;
  const int64_t today = 20000;
  // 0.7 × 1 + 0.3 × 0 = 0.7; a 300-day-old note decays to the floor 0.5 → 0.35, still returned
  // with minScore 0.6 because minScore applies before decay.
  auto r = rank({cand(1, 0, 1, today - 300, "old"), cand(2, 1, 0, std::nullopt, "evergreen")}, o, true, 0.6, 10, today);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].chunk_id, 1);
  EXPECT_NEAR(r[0].score, 0.35, 1e-9);
  // A 30-day-old note: exactly half-life → 0.5 factor; a 15-day-old one ≈ 0.707.
  auto h = rank({cand(3, 1, 0, today - 15, "a")}, o, false, 0, 10, today);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_NEAR(h[0].score, std::exp(-std::log(2.0) / 30 * 15), 1e-9);
  // Evergreen files (no date) never decay.
  auto e = rank({cand(4, 0.8, 0, std::nullopt, "b")}, o, false, 0, 10, today);
  EXPECT_NEAR(e[0].score, 0.8, 1e-9);
}

TEST(MemoryRank, MmrPrefersADifferentSecondHit) {
  HybridOptions o;
  o.decay = false;
  auto r = rank({cand(1, 1.0, 0, std::nullopt, "the cat sat on the mat"),
                 cand(2, 0.95, 0, std::nullopt, "the cat sat on the mat"),
                 cand(3, 0.9, 0, std::nullopt, "dentist appointment friday")},
                o, false, 0, 2, 0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].chunk_id, 1);
  EXPECT_EQ(r[1].chunk_id, 3);
  o.mmr = false;
  auto plain = rank({cand(1, 1.0, 0, std::nullopt, "x y"), cand(2, 0.95, 0, std::nullopt, "x y"),
                     cand(3, 0.9, 0, std::nullopt, "z")},
                    o, false, 0, 2, 0);
  EXPECT_EQ(plain[1].chunk_id, 2);
}

TEST(MemoryRank, MmrRemembersSimilarityToEveryEarlierPick) {
  HybridOptions o;
  o.decay = false;
  o.mmr_lambda = 0.7;
  // Picks 1, then 3 (2 repeats 1). Third: 2 is a copy of the first pick (0.7·0.96 − 0.3·1 =
  // 0.372), 4 shares two of three terms with the second (0.7·0.85 − 0.3·⅔ = 0.395): 4 wins, and
  // would not if only the latest pick counted.
  auto r = rank({cand(1, 1.0, 0, std::nullopt, "alpha beta gamma"), cand(2, 0.96, 0, std::nullopt, "gamma beta alpha"),
                 cand(3, 0.9, 0, std::nullopt, "delta epsilon"), cand(4, 0.85, 0, std::nullopt, "delta epsilon zeta")},
                o, false, 0, 3, 0);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].chunk_id, 1);
  EXPECT_EQ(r[1].chunk_id, 3);
  EXPECT_EQ(r[2].chunk_id, 4);
}

TEST(MemoryRank, NoteDates) {
  EXPECT_EQ(note_day("memory/2026-12-01.md"), days_from_civil(2026, 12, 1));
  EXPECT_EQ(note_day("memory/2026-12-01-trip-plans.md"), days_from_civil(2026, 12, 1));
  EXPECT_FALSE(note_day("MEMORY.md"));
  EXPECT_FALSE(note_day("memory/topics.md"));
  EXPECT_FALSE(note_day("memory/2026-13-01.md"));
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
}

// ---- service: tools' shapes, isolation (MM-8), disabled backend ---------------------------------

TEST(MemoryServiceTest, AgentsNeverSeeEachOthersMemoryAndShapesAreOpenClaws) {
  Temp t;
  spit(t.dir / "ws-main/MEMORY.md", "- Main's secret word is periwinkle.\n");
  spit(t.dir / "ws-work/MEMORY.md", "- Work's secret word is tangerine.\n");
  MemoryService svc(json::object(), t.dir / "state", {}, false);
  json main_hit = svc.search("main", t.dir / "ws-main", {{"query", "secret word"}});
  ASSERT_EQ(main_hit["results"].size(), 1u) << main_hit.dump();
  const json& h = main_hit["results"][0];
  EXPECT_EQ(h["path"], "MEMORY.md");
  EXPECT_EQ(h["startLine"], 1);
  EXPECT_EQ(h["endLine"], 1);
  EXPECT_EQ(h["source"], "memory");
  EXPECT_EQ(h["citation"], "MEMORY.md#L1");
  EXPECT_TRUE(h["score"].is_number());
  EXPECT_NE(h["snippet"].get<std::string>().find("periwinkle"), std::string::npos);
  EXPECT_EQ(main_hit["mode"], "keyword");
  json work_hit = svc.search("work", t.dir / "ws-work", {{"query", "periwinkle"}});
  EXPECT_TRUE(work_hit["results"].empty()) << work_hit.dump();
  EXPECT_TRUE(fs::exists(t.dir / "state/memory/main.sqlite"));
  EXPECT_TRUE(fs::exists(t.dir / "state/memory/work.sqlite"));

  json got = svc.get("main", t.dir / "ws-main", {{"path", "MEMORY.md"}, {"from", 1}, {"lines", 1}});
  EXPECT_EQ(got["text"], "- Main's secret word is periwinkle.\n");
  EXPECT_FALSE(got.contains("error"));
  for (const char* bad : {"../ws-work/MEMORY.md", "/etc/passwd", "AGENTS.md", "memory/../../x.md"}) {
    json refused = svc.get("main", t.dir / "ws-main", {{"path", bad}});
    EXPECT_TRUE(refused.contains("error")) << bad;
    EXPECT_EQ(refused["text"], "") << bad;
  }
}

TEST(MemoryServiceTest, BackendNoneAnswersAStructuredWarning) {
  Temp t;
  spit(t.dir / "ws/MEMORY.md", "- something\n");
  MemoryService svc(json{{"memory", {{"backend", "none"}}}}, t.dir / "state", {}, false);
  EXPECT_FALSE(svc.enabled("main", t.dir / "ws"));
  json r = svc.search("main", t.dir / "ws", {{"query", "something"}});
  EXPECT_EQ(r["disabled"], true);
  EXPECT_EQ(r["unavailable"], true);
  EXPECT_TRUE(r["results"].empty());
  EXPECT_TRUE(r["warning"].is_string());
  EXPECT_FALSE(fs::exists(t.dir / "state/memory/main.sqlite"));
}

}  // namespace
}  // namespace pincer::memory
