// read_bootstrap_file (src/agent/bootstrap_file_cache.h): the cache never hides a change.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/bootstrap_file_cache.h"

namespace {

namespace fs = std::filesystem;
using pincer::agent::read_bootstrap_file;

fs::path temp_dir() { return fs::temp_directory_path() / ("pincer-bfc-" + std::to_string(::getpid())); }

fs::path temp_file(const std::string& name) {
  fs::create_directories(temp_dir());
  return temp_dir() / name;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary | std::ios::trunc) << text; }

void set_mtime(const fs::path& p, fs::file_time_type t) { fs::last_write_time(p, t); }

TEST(BootstrapFileCache, SeesEveryChangeOfAnOldFile) {
  const fs::path p = temp_file("AGENTS.md");
  write(p, "first version");
  const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  set_mtime(p, hour_ago);
  ASSERT_EQ(*read_bootstrap_file(p, 1000), "first version");
  ASSERT_EQ(*read_bootstrap_file(p, 1000), "first version");  // from the cache
  write(p, "FIRST VERSION");  // same size; the write changes ctime even with the old mtime put back
  set_mtime(p, hour_ago);
  EXPECT_EQ(*read_bootstrap_file(p, 1000), "FIRST VERSION");
  write(p, "a longer second version");
  EXPECT_EQ(*read_bootstrap_file(p, 1000), "a longer second version");
  fs::remove_all(temp_dir());
}

TEST(BootstrapFileCache, AFreshlyChangedFileIsReadAgain) {
  const fs::path p = temp_file("SOUL.md");
  write(p, "one");
  const auto mtime = fs::last_write_time(p);
  ASSERT_EQ(*read_bootstrap_file(p, 1000), "one");
  write(p, "two");  // same size, same second
  set_mtime(p, mtime);
  EXPECT_EQ(*read_bootstrap_file(p, 1000), "two");
  fs::remove_all(temp_dir());
}

TEST(BootstrapFileCache, ErrorsAreThoseOfReadFile) {
  const fs::path p = temp_file("MISSING.md");
  fs::remove(p);
  auto missing = read_bootstrap_file(p, 1000);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "NOT_FOUND");
  const fs::path big = temp_file("BIG.md");
  write(big, std::string(100, 'x'));
  set_mtime(big, fs::file_time_type::clock::now() - std::chrono::hours(1));
  ASSERT_TRUE(read_bootstrap_file(big, 1000));  // cached at 100 bytes
  auto too_large = read_bootstrap_file(big, 10);
  ASSERT_FALSE(too_large);
  EXPECT_EQ(too_large.error().code, "TOO_LARGE");
  fs::remove(big);
  fs::remove_all(temp_dir());
}

}  // namespace
