// The fixture and helpers shared by the built-in tool tests (tools_test.cpp, exec_tools_test.cpp):
// each test gets its own temp base directory holding a workspace ("ws") and a sibling outside it
// ("outside"), a tool context confined to the workspace with a minimal environment, the builtin
// tool registry and, on demand, a process table for background exec sessions.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/ids.h"
#include "tools/process_table.h"
#include "tools/registry.h"

namespace pincer::tools::tools_test_support {

/// Writes `data` to `p` byte for byte, creating parent directories.
inline void spit(const std::filesystem::path& p, std::string_view data) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << data;
}

inline bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

/// A temp workspace (`ws_`) and outside directory (`outside_`) under `base_`, removed after the test.
class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = std::filesystem::temp_directory_path() / ("pincer-tools-" + ids::random_token(6));
    ws_ = base_ / "ws";
    outside_ = base_ / "outside";
    std::filesystem::create_directories(ws_);
    std::filesystem::create_directories(outside_);
    ctx_.workspace = ws_;
    ctx_.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", base_.string()}, {"LANG", "C.UTF-8"}};
    ctx_.default_timeout_ms = 10'000;
    ctx_.max_output_chars = 20'000;
    ctx_.cancelled = &cancelled_;
  }
  void TearDown() override {
    table_.reset();
    std::error_code ec;
    std::filesystem::remove_all(base_, ec);
  }

  /// Invokes the builtin tool `name`; its text must be valid UTF-8.
  ToolOutput call(std::string_view name, const nlohmann::json& args) {
    const Tool* tool = registry_.find(name);
    EXPECT_NE(tool, nullptr) << name;
    ToolOutput out = invoke_tool(*tool, args, ctx_);
    EXPECT_NO_THROW((void)nlohmann::json(out.text).dump()) << "tool text must be valid UTF-8";
    return out;
  }

  /// A fresh process table with `limits`, installed in the tool context.
  ProcessTable& table(ProcessTableLimits limits = {}) {
    table_ = std::make_unique<ProcessTable>(limits);
    ctx_.processes = table_.get();
    return *table_;
  }

  /// Polls a background session until it finishes; returns all output seen.
  std::string poll_until_done(const std::string& id, ToolOutput* last = nullptr) {
    std::string all;
    for (int i = 0; i < 50; ++i) {
      ToolOutput out = call("process", {{"action", "poll"}, {"sessionId", id}, {"timeout", 200}});
      all += out.text;
      if (last) *last = out;
      if (!out.details.value("running", true)) break;
    }
    return all;
  }

  std::filesystem::path base_, ws_, outside_;
  ToolContext ctx_;
  tools::CancelSignal cancelled_;
  std::unique_ptr<ProcessTable> table_;
  ToolRegistry registry_ = ToolRegistry::builtin();
};

}  // namespace pincer::tools::tools_test_support
