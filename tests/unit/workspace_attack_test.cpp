// Attacks on workspace confinement (issue 22 §2): a path whose `..` climbs out of a missing
// directory and then walks through a symlink that leads outside, against every tool that takes a
// path, and a directory swapped for a symlink after the check (open_in_workspace and the
// descriptor-based file I/O of write, edit and apply_patch).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "tools/file_io.h"
#include "tools/registry.h"
#include "tools/subprocess.h"
#include "tools/workspace_path.h"
#include "test_helpers.h"

namespace pincer::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using pincer::test_helpers::slurp;

class WorkspaceAttackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("pincer-ws-attack-" + ids::random_token(6));
    ws_ = base_ / "ws";
    outside_ = base_ / "outside";
    fs::create_directories(ws_ / "sub");
    fs::create_directories(outside_);
    std::ofstream(outside_ / "secret.txt") << "top secret\n";
    fs::create_symlink(outside_, ws_ / "out");  // in the workspace, pointing outside
    fs::create_symlink("sub", ws_ / "in");      // in the workspace, staying inside
    ctx_.workspace = ws_;
    ctx_.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    ctx_.default_timeout_ms = 10'000;
    ctx_.max_output_chars = 20'000;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  ToolOutput call(std::string_view name, const json& args) {
    const Tool* tool = registry_.find(name);
    EXPECT_NE(tool, nullptr) << name;
    return invoke_tool(*tool, args, ctx_);
  }
  /// The outside tree exactly as SetUp made it.
  void expect_outside_untouched() {
    EXPECT_EQ(slurp(outside_ / "secret.txt"), "top secret\n");
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(outside_)) ++entries;
    EXPECT_EQ(entries, 1u);
  }

  fs::path base_, ws_, outside_;
  ToolContext ctx_;
  ToolRegistry registry_ = ToolRegistry::builtin();
};

const std::vector<std::string> kEscapes = {
    "nope/../out/secret.txt",       // the reported bypass
    "nope/deeper/../../out/secret.txt",
    "nope/../nope2/../out/secret.txt",
    "sub/nope/../../out/secret.txt",
    "nope/./../out/secret.txt",
    "in/nope/../../out/secret.txt",  // through an inside link first
};

TEST_F(WorkspaceAttackTest, ResolverRefusesSymlinksAfterAClimbOutOfAMissingDirectory) {
  for (const auto& path : kEscapes) {
    auto r = resolve_workspace_path(ws_, path);
    ASSERT_FALSE(r.ok()) << path << " resolved to " << r->real;
    EXPECT_EQ(r.error().code, "PATH_OUTSIDE_WORKSPACE") << path;
    EXPECT_FALSE(resolve_workspace_path(ws_, path, FinalSymlink::kKeep).ok()) << path;
  }
  // Climbing back is fine when what follows stays inside; it resolves like any other path.
  auto r = resolve_workspace_path(ws_, "nope/../in/new.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->relative, "sub/new.txt");
  r = resolve_workspace_path(ws_, "nope/../out", FinalSymlink::kKeep);  // the link itself (delete)
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->relative, "out");
}

TEST_F(WorkspaceAttackTest, EveryPathToolRefusesTheBypass) {
  for (const auto& path : kEscapes) {
    SCOPED_TRACE(path);
    auto out = call("read", {{"path", path}});
    EXPECT_TRUE(out.is_error);
    EXPECT_EQ(out.text.find("top secret"), std::string::npos) << out.text;
    EXPECT_TRUE(call("write", {{"path", path}, {"content", "pwned\n"}}).is_error);
    EXPECT_TRUE(call("write", {{"path", path + ".new"}, {"content", "planted\n"}}).is_error);
    EXPECT_TRUE(call("edit", {{"path", path}, {"oldText", "top"}, {"newText", "pwned"}}).is_error);
    EXPECT_TRUE(call("apply_patch", {{"input", "*** Begin Patch\n*** Update File: " + path +
                                                   "\n@@\n-top secret\n+pwned\n*** End Patch"}})
                    .is_error);
    EXPECT_TRUE(call("apply_patch", {{"input", "*** Begin Patch\n*** Add File: " + path + ".added\n+planted\n*** End Patch"}})
                    .is_error);
    EXPECT_TRUE(call("apply_patch", {{"input", "*** Begin Patch\n*** Delete File: " + path + "\n*** End Patch"}}).is_error);
    const std::string dir = path.substr(0, path.rfind('/'));  // …/out
    auto exec = call("exec", {{"command", "cat secret.txt; touch planted"}, {"workdir", dir}});
    EXPECT_TRUE(exec.is_error);
    EXPECT_EQ(exec.text.find("top secret"), std::string::npos) << exec.text;
    expect_outside_untouched();
  }
}

TEST_F(WorkspaceAttackTest, OpenInWorkspaceRefusesADirectorySwappedForASymlink) {
  std::ofstream(ws_ / "sub" / "secret.txt") << "inside\n";
  auto p = resolve_workspace_path(ws_, "sub/secret.txt");
  ASSERT_TRUE(p.ok()) << p.error().message;
  int fd = open_in_workspace(*p, O_RDONLY);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ::close(fd);
  fd = detail::open_beneath_by_walk(ws_, "sub/secret.txt", O_RDONLY, 0);  // the fallback without openat2
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ::close(fd);

  // After the check, `sub` becomes a link to the outside directory (a racing command could).
  fs::rename(ws_ / "sub", ws_ / "sub.old");
  fs::create_symlink(outside_, ws_ / "sub");
  fd = open_in_workspace(*p, O_RDONLY);
  EXPECT_LT(fd, 0) << "opened " << p->real << " through the swapped symlink";
  if (fd >= 0) ::close(fd);
  EXPECT_TRUE(errno == ELOOP || errno == EXDEV) << std::strerror(errno);
  fd = detail::open_beneath_by_walk(ws_, "sub/secret.txt", O_RDONLY, 0);
  EXPECT_LT(fd, 0) << "the fallback walk opened it through the swapped symlink";
  if (fd >= 0) ::close(fd);
  EXPECT_EQ(errno, ELOOP) << std::strerror(errno);
  fd = detail::open_beneath_by_walk(ws_, "out", O_RDONLY, 0);  // a final link is not followed
  EXPECT_LT(fd, 0);
  if (fd >= 0) ::close(fd);
  fd = detail::open_beneath_by_walk(ws_, "out", O_PATH | O_NOFOLLOW, 0);  // … but can be opened itself
  EXPECT_GE(fd, 0) << std::strerror(errno);
  if (fd >= 0) ::close(fd);
  // The read tool goes through the same open.
  auto out = call("read", {{"path", "sub/secret.txt"}});
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.text.find("top secret"), std::string::npos) << out.text;
}

TEST_F(WorkspaceAttackTest, FileIoThroughAResolvedPathRefusesASwappedDirectory) {
  fs::create_directories(ws_ / "sub" / "deeper");
  std::ofstream(ws_ / "sub" / "deeper" / "secret.txt") << "inside\n";
  fs::create_directories(outside_ / "deeper");
  std::ofstream(outside_ / "deeper" / "secret.txt") << "outside\n";
  auto existing = resolve_workspace_path(ws_, "sub/deeper/secret.txt");
  auto fresh = resolve_workspace_path(ws_, "sub/deeper/new/file.txt");
  auto link = resolve_workspace_path(ws_, "sub/deeper/secret.txt", FinalSymlink::kKeep);
  ASSERT_TRUE(existing.ok() && fresh.ok() && link.ok());
  ASSERT_TRUE(write_file_atomic(*fresh, "ok\n").ok());  // the unswapped tree works
  ASSERT_TRUE(remove_file(*fresh).ok());

  fs::rename(ws_ / "sub", ws_ / "sub.old");
  fs::create_symlink(outside_, ws_ / "sub");
  auto read = read_file_bounded(*existing, 1 << 20);
  EXPECT_FALSE(read.ok()) << "read " << *read;
  auto wrote = write_file_atomic(*existing, "pwned\n");
  ASSERT_FALSE(wrote.ok());
  EXPECT_NE(wrote.error().message.find("is no longer a directory"), std::string::npos) << wrote.error().message;
  EXPECT_FALSE(write_file_atomic(*fresh, "planted\n").ok());
  EXPECT_FALSE(remove_file(*link).ok());
  EXPECT_EQ(slurp(outside_ / "deeper" / "secret.txt"), "outside\n");
  EXPECT_FALSE(fs::exists(outside_ / "deeper" / "new"));
}

TEST_F(WorkspaceAttackTest, ExecEntersItsWorkdirByDescriptor) {
  // The directory checked is the directory entered, even if its path leads elsewhere by then.
  auto p = resolve_workspace_path(ws_, "sub");
  ASSERT_TRUE(p.ok());
  const int dir = open_in_workspace(*p, O_PATH | O_DIRECTORY);
  ASSERT_GE(dir, 0) << std::strerror(errno);
  fs::rename(ws_ / "sub", ws_ / "sub.old");
  fs::create_symlink(outside_, ws_ / "sub");
  SpawnOptions o;
  o.command = "pwd -P; cat secret.txt 2>/dev/null || echo no-secret";
  o.cwd = p->real;
  o.cwd_fd = dir;
  o.env = {"PATH=/usr/bin:/bin"};
  auto proc = ManagedProcess::spawn(std::move(o));
  ::close(dir);
  ASSERT_TRUE(proc.ok()) << proc.error().message;
  ASSERT_TRUE((*proc)->wait_for(std::chrono::seconds(30)));
  EXPECT_EQ((*proc)->output(), (fs::canonical(ws_) / "sub.old").string() + "\nno-secret\n");
}

}  // namespace
}  // namespace pincer::tools
