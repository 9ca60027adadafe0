// MA-4 read-only shared folders (agents.defaults.binds / agents.list[].binds): the file tools read
// beneath them (host path or mount point), write and edit refuse there, and nothing else outside
// the workspace opens — symlink escapes, `..`, a prefix sibling. Real temp directories.
#include <gtest/gtest.h>

#include <fstream>

#include "core/ids.h"
#include "test_helpers.h"
#include "tools/fs_tools.h"
#include "tools/sandbox/sandbox.h"
#include "tools/workspace_path.h"

namespace pincer::tools {
namespace shared_folders_test {  // named: the unity build joins several test files
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SharedFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("pincer-shared-" + ids::random_token(6));
    for (const char* d : {"ws", "shared/sub", "shared-evil", "outside"}) fs::create_directories(base_ / d);
    write(base_ / "shared" / "notes.md", "team notes\n");
    write(base_ / "shared" / "sub" / "a.txt", "deep\n");
    write(base_ / "shared-evil" / "secret.txt", "evil\n");
    write(base_ / "outside" / "secret.txt", "secret\n");
    fs::create_directory_symlink(base_ / "outside", base_ / "shared" / "escape");
    fs::create_symlink(base_ / "outside" / "new.txt", base_ / "shared" / "dangling");
    config_ = {{"agents",
                {{"list", json::array({json{{"id", "main"}, {"binds", {(base_ / "shared").string() + ":/mnt/team"}}},
                                       json{{"id", "other"}}})}}}};
    ctx_.workspace = base_ / "ws";
    ctx_.agent_id = "main";
    ctx_.config = std::make_shared<const json>(config_);
    for (auto& t : make_fs_tools()) tools_.push_back(std::move(t));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  ToolOutput call(std::string_view name, const json& args) {
    for (const auto& t : tools_) {
      if (t->name() == name) return invoke_tool(*t, args, ctx_);
    }
    ADD_FAILURE() << "no tool " << name;
    return ToolOutput::error("none");
  }
  std::string p(const std::string& rel) const { return (base_ / rel).string(); }

  fs::path base_;
  json config_;
  ToolContext ctx_;
  std::vector<std::unique_ptr<Tool>> tools_;
};

TEST_F(SharedFoldersTest, ReadWorksByHostPathAndByMountPoint) {
  auto host = call("read", {{"path", p("shared/notes.md")}});
  EXPECT_FALSE(host.is_error) << host.text;
  EXPECT_NE(host.text.find("team notes"), std::string::npos);
  auto mounted = call("read", {{"path", "/mnt/team/sub/a.txt"}});
  EXPECT_FALSE(mounted.is_error) << mounted.text;
  EXPECT_NE(mounted.text.find("deep"), std::string::npos);
  auto dotted = call("read", {{"path", "/mnt/team/./sub/../notes.md"}});
  EXPECT_FALSE(dotted.is_error) << dotted.text;
}

TEST_F(SharedFoldersTest, NothingElseOutsideTheWorkspaceOpens) {
  for (const std::string& path : {p("shared-evil/secret.txt"), std::string("/mnt/team-evil/secret.txt"), p("shared/escape/secret.txt"),
                                  std::string("/mnt/team/escape/secret.txt"), std::string("/mnt/team/../outside/secret.txt"),
                                  p("shared/../outside/secret.txt"), p("outside/secret.txt"), std::string("/mnt/team/dangling")}) {
    auto out = call("read", {{"path", path}});
    EXPECT_TRUE(out.is_error) << path << ": " << out.text;
    EXPECT_EQ(out.text.find("secret\n"), std::string::npos) << path;
    EXPECT_EQ(out.text.find("evil\n"), std::string::npos) << path;
  }
  // Another agent does not get main's folders.
  ctx_.agent_id = "other";
  EXPECT_TRUE(call("read", {{"path", p("shared/notes.md")}}).is_error);
}

TEST_F(SharedFoldersTest, WriteAndEditAreRefusedThere) {
  auto w = call("write", {{"path", p("shared/new.txt")}, {"content", "x"}});
  ASSERT_TRUE(w.is_error);
  EXPECT_EQ(w.details.value("code", ""), "READ_ONLY") << w.text;
  EXPECT_NE(w.text.find("read-only shared folder"), std::string::npos) << w.text;
  EXPECT_FALSE(fs::exists(base_ / "shared" / "new.txt"));
  auto e = call("edit", {{"path", "/mnt/team/notes.md"}, {"oldText", "team"}, {"newText", "evil"}});
  ASSERT_TRUE(e.is_error);
  EXPECT_EQ(e.details.value("code", ""), "READ_ONLY") << e.text;
  EXPECT_EQ(test_helpers::slurp(base_ / "shared" / "notes.md"), "team notes\n");
  auto through_link = call("write", {{"path", "/mnt/team/dangling"}, {"content", "x"}});
  EXPECT_TRUE(through_link.is_error);
  EXPECT_FALSE(fs::exists(base_ / "outside" / "new.txt"));
  // Elsewhere outside the workspace: the workspace's own refusal.
  auto elsewhere = call("write", {{"path", p("outside/x.txt")}, {"content", "x"}});
  ASSERT_TRUE(elsewhere.is_error);
  EXPECT_NE(elsewhere.details.value("code", ""), "READ_ONLY");
  // The workspace itself is unaffected.
  EXPECT_FALSE(call("write", {{"path", "mine.txt"}, {"content", "x"}}).is_error);
}

TEST_F(SharedFoldersTest, ConfigRulesAndTheSandbox) {
  const fs::path state = base_ / "state";
  auto folders = sandbox::shared_folders_for_agent(config_, "main", state);
  ASSERT_TRUE(folders) << folders.error().message;
  ASSERT_EQ(folders->size(), 1u);
  EXPECT_EQ((*folders)[0].target, "/mnt/team");
  EXPECT_EQ((*folders)[0].config_path, "agents.list[0].binds[0]");
  // agents.defaults.binds reach every agent, before the entry's own.
  json both = config_;
  both["agents"]["defaults"] = {{"binds", {p("outside") + ":ro"}}};
  auto other = sandbox::shared_folders_for_agent(both, "other", state);
  ASSERT_TRUE(other);
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ((*other)[0].source, base_ / "outside");
  // Refusals: writable, system directories, the state directory.
  auto refused = [&](const std::string& spec) {
    json c = {{"agents", {{"defaults", {{"binds", {spec}}}}}}};
    auto r = sandbox::shared_folders_for_agent(c, "main", state);
    return r ? std::string() : r.error().message;
  };
  EXPECT_NE(refused(p("shared") + ":rw").find("read-only"), std::string::npos);
  EXPECT_NE(refused("/etc:ro").find("agents.defaults.binds[0]"), std::string::npos);
  EXPECT_FALSE(refused(state.string()).empty());
  EXPECT_FALSE(refused("relative/path").empty());
  // A sandboxed exec gets them read-only.
  auto settings = sandbox::settings_for_agent(config_, "main", state);
  ASSERT_TRUE(settings) << settings.error().message;
  ASSERT_EQ(settings->binds.size(), 1u);
  EXPECT_TRUE(settings->binds[0].read_only);
  const auto argv = sandbox::bwrap_wrapper(*settings, "/usr/bin/bwrap", base_ / "ws", base_ / "ws");
  bool ro_bound = false;
  for (size_t i = 0; i + 2 < argv.size(); ++i) {
    ro_bound = ro_bound || (argv[i] == "--ro-bind" && argv[i + 1] == p("shared") && argv[i + 2] == "/mnt/team");
  }
  EXPECT_TRUE(ro_bound);
}

}  // namespace
}  // namespace shared_folders_test
}  // namespace pincer::tools
