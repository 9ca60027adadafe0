// A sandbox bind never exposes Pincer's own state directory (credentials, paired device tokens,
// pincer.json, transcripts): not the directory, not a directory holding it, not a path inside it
// (also through a symlink) — but the agent workspaces beneath it stay bindable (sandbox.h).
#include <filesystem>
#include <string>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/sandbox/sandbox.h"

namespace pincer {
namespace sandbox_state_dir_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class SandboxStateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("pincer-bind-state-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    state_ = root_ / "home" / ".pincer";
    fs::create_directories(state_ / "workspace");
    fs::create_directories(state_ / "credentials");
    fs::create_directories(root_ / "project");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// The error of binding `spec` (with `extra` merged into agents.defaults), or "" when accepted.
  std::string bind_error(const std::string& spec, const json& extra = json::object()) {
    json defaults = extra;
    defaults["sandbox"] = {{"binds", json::array({spec})}};
    auto s = tools::sandbox::settings_for_agent(json{{"agents", {{"defaults", defaults}}}}, "main", state_);
    return s ? "" : s.error().message;
  }

  fs::path root_;
  fs::path state_;
};

TEST_F(SandboxStateDirTest, TheStateDirectoryItsParentsAndItsContentsAreRefused) {
  const std::string at = "agents.defaults.sandbox.binds[0]: ";
  const std::string state = state_.string();
  EXPECT_THAT(bind_error(state + ":/s"), HasSubstr(at + "\"" + state + ":/s\" binds Pincer's state directory " + state));
  EXPECT_THAT(bind_error(state + ":/s"), HasSubstr("the state directory holds Pincer's credentials, paired device tokens, pincer.json and transcripts"));
  EXPECT_THAT(bind_error(state + "/:/s:ro"), HasSubstr("binds Pincer's state directory"));
  EXPECT_THAT(bind_error((root_ / "home").string() + ":/h"), HasSubstr("holds Pincer's state directory " + state));
  EXPECT_THAT(bind_error(root_.string() + ":/r:ro"), HasSubstr("holds Pincer's state directory"));
  EXPECT_THAT(bind_error(state + "/credentials:/c"),
              HasSubstr("binds " + state + "/credentials, inside Pincer's state directory " + state));
  EXPECT_THAT(bind_error(state + "/pincer.json:/etc-pincer.json"), HasSubstr("inside Pincer's state directory"));
  EXPECT_THAT(bind_error(state + "/workspace/../agents:/a"), HasSubstr("inside Pincer's state directory"));
  // A directory beside the state dir is a project directory like any other.
  EXPECT_EQ(bind_error((root_ / "project").string() + ":/project"), "");
  EXPECT_EQ(bind_error((root_ / "home" / ".pincer-other").string() + ":/o"), "");
}

TEST_F(SandboxStateDirTest, AgentWorkspacesInsideTheStateDirectoryStayBindable) {
  const std::string state = state_.string();
  EXPECT_EQ(bind_error(state + "/workspace:/ws"), "");
  EXPECT_EQ(bind_error(state + "/workspace/sub:/sub:ro"), "");
  EXPECT_EQ(bind_error(state + "/workspace-work:/other"), "");
  // A configured workspace beneath the state dir (relative paths are relative to it).
  EXPECT_THAT(bind_error(state + "/projects/site:/site"), HasSubstr("inside Pincer's state directory"));
  EXPECT_EQ(bind_error(state + "/projects/site:/site", {{"workspace", "projects/site"}}), "");
  EXPECT_EQ(bind_error(state + "/projects/site/src:/src", {{"workspace", state + "/projects/site"}}), "");
  json agent_ws = {{"agents",
                    {{"list", json::array({{{"id", "main"}, {"workspace", "mine"}}})},
                     {"defaults", {{"sandbox", {{"binds", json::array({state + "/mine:/mine"})}}}}}}}};
  EXPECT_TRUE(tools::sandbox::settings_for_agent(agent_ws, "main", state_));
  // A workspace does not open the rest of the state dir.
  EXPECT_THAT(bind_error(state + "/credentials:/c", {{"workspace", "projects/site"}}),
              HasSubstr("inside Pincer's state directory"));
}

TEST_F(SandboxStateDirTest, ASymlinkToTheStateDirectoryIsRefused) {
  fs::create_directory_symlink(state_, root_ / "project" / "state-link");
  const std::string link = (root_ / "project" / "state-link").string();
  EXPECT_THAT(bind_error(link + ":/s"), HasSubstr("binds Pincer's state directory " + fs::canonical(state_).string() +
                                                  " (through the symlink " + link + " → "));
  // A link inside a workspace that leads back into the state dir is refused too.
  fs::create_directory_symlink(state_ / "credentials", state_ / "workspace" / "creds");
  EXPECT_THAT(bind_error(state_.string() + "/workspace/creds:/c"), HasSubstr("through the symlink"));
}

TEST_F(SandboxStateDirTest, AStateDirectoryReachedThroughASymlinkIsRecognisedByItsRealPath) {
  fs::create_directory_symlink(state_, root_ / "state-alias");
  auto s = tools::sandbox::settings_for_agent(
      json{{"agents", {{"defaults", {{"sandbox", {{"binds", json::array({state_.string() + ":/s"})}}}}}}}}, "main",
      root_ / "state-alias");
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("binds Pincer's state directory"));
}

}  // namespace
}  // namespace sandbox_state_dir_test
}  // namespace pincer
