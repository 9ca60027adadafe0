// A workspace that is not a directory, and bootstrap files that are not regular files (H11 items
// 3-4): `config validate` / doctor name the config key and the file; the system prompt and doctor
// say what a bootstrap file is ("is a directory, not a file", "is a FIFO …", "symlink loop")
// instead of "cannot stat …: Operation not supported" or "[MISSING]", and a FIFO never blocks.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/workspace.h"
#include "cli/config_checks.h"
#include "cli/doctor.h"
#include "core/config.h"
#include "core/file_kind.h"
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

TEST(WorkspaceKind, BootstrapFilesThatAreNotRegularFilesAreSaidAsWhatTheyAre) {
  TempDir home;
  const fs::path ws = home.path() / "ws";
  fs::create_directories(ws / "AGENTS.md");
  ASSERT_EQ(::mkfifo((ws / "SOUL.md").c_str(), 0600), 0);  // nobody writes it: a read would block
  fs::create_symlink("/dev/zero", ws / "TOOLS.md");
  fs::create_symlink("loop-b", ws / "IDENTITY.md");
  fs::create_symlink("IDENTITY.md", ws / "loop-b");
  fs::create_symlink("nowhere.md", ws / "USER.md");
  std::ofstream(ws / "HEARTBEAT.md") << "beat";

  const agent::BootstrapLoad load = agent::load_bootstrap(ws, 20000, 150000);
  std::map<std::string, agent::BootstrapFile> by_name;
  for (const auto& f : load.files) by_name[f.name] = f;
  EXPECT_THAT(by_name["AGENTS.md"].content, HasSubstr("AGENTS.md is a directory, not a file"));
  EXPECT_THAT(by_name["SOUL.md"].content, HasSubstr("SOUL.md is a FIFO (named pipe), not a regular file"));
  EXPECT_THAT(by_name["TOOLS.md"].content, HasSubstr("is a character device, not a regular file (a symlink to /dev/zero)"));
  EXPECT_THAT(by_name["IDENTITY.md"].content, HasSubstr("IDENTITY.md is a symlink loop"));
  EXPECT_THAT(by_name["USER.md"].content, HasSubstr("USER.md is a symlink to nowhere.md, which does not exist"));
  EXPECT_EQ(by_name["HEARTBEAT.md"].content, "beat");
  for (const auto& f : load.files) {
    EXPECT_FALSE(f.missing) << f.name;
    EXPECT_EQ(f.content.find("Operation not supported"), std::string::npos) << f.content;
    EXPECT_EQ(f.content.find("[MISSING]"), std::string::npos) << f.content;
  }

  // doctor says the same, one warning per file.
  const json cfg = config::with_defaults({{"agents", {{"defaults", {{"workspace", ws.string()}}}}}});
  const auto findings = cli::check_workspaces(cfg, home.path(), env_with_home(home.path()));
  ASSERT_EQ(findings.size(), 5u);
  EXPECT_EQ(findings[0].check, "workspace");
  EXPECT_EQ(findings[0].status, "warn");
  EXPECT_THAT(findings[0].message, HasSubstr((ws / "AGENTS.md").string() + " is a directory, not a file"));
  EXPECT_THAT(findings[1].message, HasSubstr("is a FIFO (named pipe)"));
  EXPECT_THAT(findings[3].message, HasSubstr("symlink loop"));
}

}  // namespace
}  // namespace pincer::workspace_kind_test
