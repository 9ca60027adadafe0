// Helpers shared by the OpenClaw import tests (openclaw_map_test.cpp, openclaw_import_test.cpp):
// the hand-written OpenClaw home fixture and a self-removing temporary directory.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace pincer::cli::openclaw::openclaw_import_test_support {

/// tests/fixtures/openclaw-home: an OpenClaw state directory (openclaw.json, agents, sessions, cron).
inline const std::filesystem::path kFixture =
    std::filesystem::path(PINCER_SOURCE_DIR) / "tests" / "fixtures" / "openclaw-home";

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("pincer-import-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
             std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `text` to `relative` (creating folders) and returns the full path.
  std::filesystem::path write(const std::string& relative, const std::string& text) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace pincer::cli::openclaw::openclaw_import_test_support
