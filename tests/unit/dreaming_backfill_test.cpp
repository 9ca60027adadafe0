// Grounded backfill (SPEC DR-5): historical notes replayed into DREAMS.md as reversible blocks,
// optionally staged as grounded recalls; a second run replaces instead of adding; rollback removes
// exactly what the backfill wrote.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "memory/dreaming/backfill.h"
#include "memory/dreaming/recall_store.h"

namespace pincer::memory::dreaming {
namespace {

namespace fs = std::filesystem;

struct BackfillTempDir {
  fs::path dir = fs::temp_directory_path() / ("pincer-backfill-" + ids::uuid_v4());
  fs::path ws = dir / "ws";
  BackfillTempDir() { fs::create_directories(ws / "memory"); }
  ~BackfillTempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string backfill_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DreamingBackfill, ReplaysStagesReplacesAndRollsBack) {
  BackfillTempDir t;
  std::ofstream(t.ws / "memory/2026-03-01.md") << "# 2026-03-01\n\n- The build server nimbus runs Debian.\n"
                                                  "- <!-- untrusted --> a copied web page\n";
  std::ofstream(t.ws / "memory/2026-03-02-vendor.md") << "# 2026-03-02\n\n- The vendor pitch was on Tuesday.\n";
  std::ofstream(t.ws / "memory/notes.md") << "- not a daily note\n";
  std::ofstream(t.ws / "DREAMS.md") << "# Dream Diary\n\nA line of the user's own.\n";
  const int64_t now = 1'772'366'400'000;

  auto r = rem_backfill(t.ws, t.ws / "memory", true, now);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->source_files.size(), 2u);
  EXPECT_EQ(r->written, 2);
  EXPECT_EQ(r->replaced, 0);
  EXPECT_EQ(r->staged, 2);
  std::string diary = backfill_read(t.ws / "DREAMS.md");
  EXPECT_EQ(diary.rfind("# Dream Diary\n\nA line of the user's own.\n", 0), 0u) << diary;
  EXPECT_NE(diary.find("<!-- pincer-dreaming:backfill:start 2026-03-01 -->"), std::string::npos) << diary;
  EXPECT_NE(diary.find("- The build server nimbus runs Debian."), std::string::npos);
  EXPECT_EQ(diary.find("copied web page"), std::string::npos) << "untrusted lines are left out";

  auto store = load_recall_store(t.ws);
  ASSERT_TRUE(store);
  ASSERT_EQ(store->entries.size(), 2u);
  const RecallEntry& e = store->entries.at("memory:memory/2026-03-01.md:3:3");
  EXPECT_EQ(e.recall_count, 1);
  EXPECT_EQ(e.grounded_count, 1);
  EXPECT_EQ(e.recall_days, std::vector<std::string>{"2026-03-01"});

  // Again: the day's blocks are replaced and nothing is counted twice.
  auto again = rem_backfill(t.ws, t.ws / "memory", true, now);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->replaced, 2);
  EXPECT_EQ(again->staged, 0);
  const std::string diary2 = backfill_read(t.ws / "DREAMS.md");
  EXPECT_EQ(diary2, diary);

  // A note outside the workspace's memory folder goes to the diary only.
  fs::create_directories(t.dir / "old");
  std::ofstream(t.dir / "old/2025-12-24.md") << "- Christmas dinner at Anna's.\n";
  auto outside = rem_backfill(t.ws, t.dir / "old/2025-12-24.md", true, now);
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->staged, 0);
  ASSERT_EQ(outside->not_staged.size(), 1u);

  auto undo = rem_backfill_rollback(t.ws, true, true);
  ASSERT_TRUE(undo);
  EXPECT_EQ(undo->removed_diary_blocks, 3);
  EXPECT_EQ(undo->removed_recalls, 2);
  EXPECT_EQ(backfill_read(t.ws / "DREAMS.md"), "# Dream Diary\n\nA line of the user's own.\n");
  auto emptied = load_recall_store(t.ws);
  ASSERT_TRUE(emptied);
  EXPECT_TRUE(emptied->entries.empty());

  auto missing = rem_backfill(t.ws, t.dir / "nope", false, now);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
}

}  // namespace
}  // namespace pincer::memory::dreaming
