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

TEST_F(FileWatchTest, ASymlinkAnywhereOnThePathIsNotWatched) {
  // What a symlink resolves to depends on directories the watch does not see (a link repointed
  // outside the workspace, a link inside the link's target): such paths get no stamp, and their
  // callers read them as they did without inotify. (A new user's test of 1a851a4 caught the miss.)
  fs::create_directories(dir_ / "elsewhere" / "v1");
  write(dir_ / "elsewhere" / "v1" / "real.md", "v1");
  fs::create_directory(dir_ / "ws");
  fs::create_symlink(dir_ / "elsewhere" / "v1" / "real.md", dir_ / "ws" / "AGENTS.md");
  EXPECT_EQ(watch_.stamp(dir_ / "ws" / "AGENTS.md"), 0u);  // the file is a link
  fs::create_symlink(dir_ / "elsewhere" / "v1", dir_ / "ws" / "shared");
  EXPECT_EQ(watch_.stamp(dir_ / "ws" / "shared" / "real.md"), 0u);  // a directory on the way is a link
  fs::create_symlink(dir_ / "ws", dir_ / "ws-link");
  EXPECT_EQ(watch_.stamp(dir_ / "ws-link" / "SOUL.md"), 0u);  // the workspace itself through a link

  // A watched path replaced by a link is not watched from then on.
  write(dir_ / "ws" / "TOOLS.md", "plain");
  const uint64_t plain = watch_.stamp(dir_ / "ws" / "TOOLS.md");
  ASSERT_NE(plain, 0u);
  fs::remove(dir_ / "ws" / "TOOLS.md");
  fs::create_symlink(dir_ / "elsewhere" / "v1" / "real.md", dir_ / "ws" / "TOOLS.md");
  EXPECT_EQ(watch_.stamp(dir_ / "ws" / "TOOLS.md"), 0u);
}

TEST_F(FileWatchTest, ADirectoryAboveRenamedOrReplacedChangesTheStamp) {
  fs::create_directories(dir_ / "home" / "ws");
  write(dir_ / "home" / "ws" / "AGENTS.md", "old home");
  const fs::path f = dir_ / "home" / "ws" / "AGENTS.md";
  const uint64_t a = watch_.stamp(f);
  ASSERT_NE(a, 0u);
  fs::rename(dir_ / "home", dir_ / "home-old");  // the watched inodes move away with it
  fs::create_directories(dir_ / "home" / "ws");
  write(f, "new home");
  const uint64_t b = watch_.stamp(f);
  EXPECT_GT(b, a);
  write(f, "new home, edited", std::ios::app);  // the new directory's file is the one watched now
  const uint64_t c = watch_.stamp(f);
  EXPECT_GT(c, b);
  write(dir_ / "home-old" / "ws" / "AGENTS.md", "the old one", std::ios::app);
  EXPECT_EQ(watch_.stamp(f), c);
  // Replaced by a symlink: unwatched from then on.
  fs::rename(dir_ / "home", dir_ / "home-2");
  fs::create_symlink(dir_ / "home-2", dir_ / "home");
  EXPECT_EQ(watch_.stamp(f), 0u);
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
  EXPECT_GE(watch_.watched_paths(), 2u);  // (and the directories above, by name)
}

}  // namespace
}  // namespace pincer::file_watch_test
