// FileWatch (core/file_watch.h): a stamp changes after every kind of change a cache depends on —
// writes, creation, removal, replacement by rename, attributes, symlink targets, a missing parent
// directory appearing — and stays the same while nothing changed.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/file_watch.h"

namespace pincer::file_watch_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;

class FileWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "pincer-fw-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static void write(const fs::path& p, const std::string& text, std::ios::openmode mode = std::ios::trunc) {
    std::ofstream(p, std::ios::binary | mode) << text;
  }
  fs::path dir_;
  FileWatch watch_;
};

TEST_F(FileWatchTest, SameStampWhileNothingChanges) {
  write(dir_ / "AGENTS.md", "one");
  const uint64_t a = watch_.stamp(dir_ / "AGENTS.md");
  ASSERT_NE(a, 0u);
  EXPECT_EQ(watch_.stamp(dir_ / "AGENTS.md"), a);
  write(dir_ / "other.txt", "unrelated");  // a sibling is not the path
  EXPECT_EQ(watch_.stamp(dir_ / "AGENTS.md"), a);
}

TEST_F(FileWatchTest, WritesAppendsAndAttributesChangeTheStamp) {
  const fs::path f = dir_ / "SOUL.md";
  write(f, "one");
  uint64_t s = watch_.stamp(f);
  write(f, "two");  // truncate + write
  uint64_t t = watch_.stamp(f);
  EXPECT_GT(t, s);
  write(f, " more", std::ios::app);  // an append keeps the inode and the directory entry
  s = watch_.stamp(f);
  EXPECT_GT(s, t);
  ASSERT_EQ(::chmod(f.c_str(), 0600), 0);
  EXPECT_GT(watch_.stamp(f), s);
}

TEST_F(FileWatchTest, CreationRemovalAndReplacementByRename) {
  const fs::path f = dir_ / "USER.md";
  const uint64_t absent = watch_.stamp(f);
  ASSERT_NE(absent, 0u);
  write(f, "hello");
  const uint64_t created = watch_.stamp(f);
  EXPECT_GT(created, absent);
  write(dir_ / "USER.md.tmp", "replaced");
  fs::rename(dir_ / "USER.md.tmp", f);  // how editors and atomic writers save
  const uint64_t replaced = watch_.stamp(f);
  EXPECT_GT(replaced, created);
  write(f, "edited in place", std::ios::app);  // the new inode is watched too
  const uint64_t edited = watch_.stamp(f);
  EXPECT_GT(edited, replaced);
  fs::remove(f);
  EXPECT_GT(watch_.stamp(f), edited);
}

TEST_F(FileWatchTest, ASymlinkedFileFollowsItsTarget) {
  fs::create_directory(dir_ / "elsewhere");
  write(dir_ / "elsewhere" / "real.md", "v1");
  fs::create_directory(dir_ / "ws");
  fs::create_symlink(dir_ / "elsewhere" / "real.md", dir_ / "ws" / "AGENTS.md");
  const uint64_t a = watch_.stamp(dir_ / "ws" / "AGENTS.md");
  write(dir_ / "elsewhere" / "real.md", "v2 (the link's directory sees nothing)");
  const uint64_t b = watch_.stamp(dir_ / "ws" / "AGENTS.md");
  EXPECT_GT(b, a);
  fs::remove(dir_ / "ws" / "AGENTS.md");
  fs::create_symlink(dir_ / "elsewhere", dir_ / "ws" / "AGENTS.md");  // the link repointed
  EXPECT_GT(watch_.stamp(dir_ / "ws" / "AGENTS.md"), b);
}

TEST_F(FileWatchTest, ADirectoryChangesWithItsEntriesNotDeeper) {
  fs::create_directories(dir_ / "skills" / "weather");
  const fs::path paths[] = {dir_ / "skills"};
  const uint64_t a = watch_.stamp(paths);
  write(dir_ / "skills" / "weather" / "SKILL.md", "deeper: not this directory's entry");
  EXPECT_EQ(watch_.stamp(paths), a);
  fs::create_directory(dir_ / "skills" / "news");
  const uint64_t b = watch_.stamp(paths);
  EXPECT_GT(b, a);
  // The directory removed and made again: a new inode, watched again.
  fs::remove_all(dir_ / "skills");
  const uint64_t c = watch_.stamp(paths);
  EXPECT_GT(c, b);
  fs::create_directory(dir_ / "skills");
  const uint64_t d = watch_.stamp(paths);
  EXPECT_GT(d, c);
  fs::create_directory(dir_ / "skills" / "mail");
  EXPECT_GT(watch_.stamp(paths), d);
}

TEST_F(FileWatchTest, AMissingParentIsWatchedUntilItAppears) {
  const fs::path deep = dir_ / "a" / "b" / "SKILL.md";
  const uint64_t a = watch_.stamp(deep);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(watch_.stamp(deep), a);
  fs::create_directory(dir_ / "a");
  const uint64_t b = watch_.stamp(deep);
  EXPECT_GT(b, a);
  fs::create_directory(dir_ / "a" / "b");
  const uint64_t c = watch_.stamp(deep);
  EXPECT_GT(c, b);
  write(deep, "x");
  const uint64_t d = watch_.stamp(deep);
  EXPECT_GT(d, c);
  write(deep, "y");
  EXPECT_GT(watch_.stamp(deep), d);
}

TEST_F(FileWatchTest, AStampOverSeveralPathsChangesWithAnyOfThem) {
  write(dir_ / "a.md", "a");
  write(dir_ / "b.md", "b");
  const fs::path paths[] = {dir_ / "a.md", dir_ / "b.md"};
  const uint64_t s = watch_.stamp(paths);
  write(dir_ / "a.md", "a2");
  const uint64_t t = watch_.stamp(paths);
  EXPECT_GT(t, s);
  write(dir_ / "b.md", "b2");
  EXPECT_GT(watch_.stamp(paths), t);
  EXPECT_EQ(watch_.watched_paths(), 2u);
}

}  // namespace
}  // namespace pincer::file_watch_test
