// Helpers shared by the session storage tests (session_keys_index_test.cpp, transcript_test.cpp):
// a self-removing temporary directory, reading and writing files byte for byte, a file's mode
// bits, and the shape of an archive timestamp (`.corrupt.<ts>`, `.reset.<ts>` suffixes).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/ids.h"
#include "store/atomic_file.h"

namespace pincer::store::store_test_support {

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() / ("pincer-store-" + ids::random_token(6))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The file's bytes; a failed read is a test failure (and gives "").
inline std::string read_checked(const std::filesystem::path& p) {
  auto r = read_file(p);
  EXPECT_TRUE(r.ok()) << p;
  return r.ok() ? *r : std::string();
}

/// Writes `data` to `p` byte for byte, creating parent directories.
inline void spit(const std::filesystem::path& p, std::string_view data) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

/// The permission bits (e.g. 0600) of `p`.
inline unsigned mode_of(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_mode & 0777;
}

/// An archive suffix timestamp: ISO time with '-' for ':' (optional milliseconds), UTC.
inline const std::regex kArchiveTs(R"(^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z$)");

}  // namespace pincer::store::store_test_support
