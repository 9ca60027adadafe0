// Helpers shared by the configuration tests (config_include_env_test.cpp, config_test.cpp): a
// self-removing temporary directory that writes config files into itself, and an empty environment.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/config.h"
#include "test_helpers.h"

namespace pincer::config::config_test_support {

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("pincer-config-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++) + "-" + std::to_string(rd()));
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

/// An environment with no variables set.
inline const EnvLookup kNoEnv = test_helpers::env_of({});

}  // namespace pincer::config::config_test_support
