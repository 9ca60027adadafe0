// A workspace that is not a directory, and bootstrap files that are not regular files (H11 items
// 3-4): `config validate` / doctor name the config key and the file; the system prompt and doctor
// say what a bootstrap file is ("is a directory, not a file", "is a FIFO …", "symlink loop")
// instead of "cannot stat …: Operation not supported" or "[MISSING]", and a FIFO never blocks.
#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/config_checks.h"
#include "core/config.h"
#include "store_test_support.h"

namespace pincer::workspace_kind_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using store::store_test_support::TempDir;
using ::testing::HasSubstr;

config::EnvLookup env_with_home(const fs::path& home) {
  return [home](const std::string& name) -> std::optional<std::string> {
    if (name == "PINCER_HOME") return home.string();
    return std::nullopt;
  };
}

std::vector<std::string> workspace_errors(const json& resolved, const fs::path& home) {
  json cfg = resolved;
  cfg["gateway"] = {{"auth", {{"token", "a-gateway-token-0123456789abcdef"}}}};
  std::vector<std::string> out;
  for (auto& e : cli::check_config(config::with_defaults(cfg), home / "pincer.json", env_with_home(home)).errors) {
    if (e.find("workspace") != std::string::npos) out.push_back(e);
  }
  return out;
}

TEST(WorkspaceKind, AWorkspaceThatIsAFileIsAConfigErrorNamingTheKeyAndTheFile) {
  TempDir home;
  const fs::path file = home.path() / "notes.txt";
  std::ofstream(file) << "x";
  // agents.defaults.workspace
  auto errors = workspace_errors({{"agents", {{"defaults", {{"workspace", file.string()}}}}}}, home.path());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("agents.defaults.workspace: " + file.string() + " is a regular file, not a directory"));
  EXPECT_THAT(errors[0], HasSubstr("agent \"main\""));
  // agents.list[1].workspace, below the file
  errors = workspace_errors({{"agents", {{"list", json::array({{{"id", "main"}}, {{"id", "helper"}, {"workspace", (file / "ws").string()}}})}}}},
                            home.path());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("agents.list[1].workspace: " + (file / "ws").string() + " cannot be created: " +
                                   file.string() + " is a regular file, not a directory"));
  // The default path under the state dir.
  std::ofstream(home.path() / "workspace") << "x";
  errors = workspace_errors(json::object(), home.path());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("the default workspace of agent \"main\": " + (home.path() / "workspace").string()));
  // A directory, or a path that can be made, is fine.
  fs::remove(home.path() / "workspace");
  EXPECT_TRUE(workspace_errors({{"agents", {{"defaults", {{"workspace", (home.path() / "a" / "b").string()}}}}}}, home.path()).empty());
}

}  // namespace
}  // namespace pincer::workspace_kind_test
