// The tool sandbox (TL-5, src/tools/sandbox/): real bubblewrap, real commands. These tests need
// bwrap and user namespaces; when the machine refuses them the tests fail with the reason (set
// PINCER_ALLOW_NO_SANDBOX=1 to skip them instead on such a machine, e.g. inside some containers).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tools/exec_tool.h"
#include "tools/fs_tools.h"
#include "tools/registry.h"
#include "tools/sandbox/sandbox.h"

namespace pincer::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Dir {
  fs::path path;
  Dir() {
    char tmpl[] = "/tmp/pincer-sandbox-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = root_.path / "workspace";
    fs::create_directories(ws_);
    write_file(ws_ / "hello.txt", "hello from the workspace\n");
    write_file(root_.path / "outside" / "secret.txt", "host secret\n");
    if (auto st = sandbox::check_backend(settings_); !st) {
      if (std::getenv("PINCER_ALLOW_NO_SANDBOX") != nullptr) GTEST_SKIP() << st.error().message;
      FAIL() << "the sandbox cannot start on this machine: " << st.error().message;
    }
  }

  ToolOutput exec(const std::string& command, const sandbox::Settings& s) {
    ToolContext ctx;
    ctx.workspace = ws_;
    ctx.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", root_.path / "outside"}};
    ctx.default_timeout_ms = 60'000;
    ctx.sandbox = std::make_shared<const sandbox::Settings>(s);
    return invoke_tool(*registry_.find("exec"), {{"command", command}}, ctx);
  }
  ToolOutput file_tool(const std::string& name, const json& args, const sandbox::Settings& s) {
    ToolContext ctx;
    ctx.workspace = ws_;
    ctx.sandbox = std::make_shared<const sandbox::Settings>(s);
    return invoke_tool(*registry_.find(name), args, ctx);
  }

  Dir root_;
  fs::path ws_;
  sandbox::Settings settings_ = [] {
    sandbox::Settings s;
    s.mode = sandbox::Mode::kAll;
    return s;
  }();
  ToolRegistry registry_ = ToolRegistry::builtin();
};

TEST_F(SandboxTest, OnlyTheWorkspaceIsVisibleAndUnamePwdWork) {
  const std::string secret = (root_.path / "outside" / "secret.txt").string();
  auto out = exec("pwd; uname -n; uname -s; cat hello.txt; cat " + secret + " || echo SECRET-INVISIBLE; "
                  "ls -d \"$(dirname " + secret + ")\" || echo DIR-INVISIBLE; test -e /root/.bashrc || echo ROOTHOME-INVISIBLE",
                  settings_);
  EXPECT_FALSE(out.is_error) << out.text;
  EXPECT_NE(out.text.find(fs::canonical(ws_).string() + "\n"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("pincer-sandbox\n"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("Linux\n"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("hello from the workspace"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("host secret"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("SECRET-INVISIBLE"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("DIR-INVISIBLE"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("ROOTHOME-INVISIBLE"), std::string::npos) << out.text;

  // The same command on the host sees the secret: the test can tell the difference.
  ToolContext host;
  host.workspace = ws_;
  host.env = {{"PATH", "/usr/bin:/bin"}};
  auto on_host = invoke_tool(*registry_.find("exec"), {{"command", "cat " + secret}}, host);
  EXPECT_NE(on_host.text.find("host secret"), std::string::npos) << on_host.text;
}

TEST_F(SandboxTest, WritesReachTheWorkspaceInRwMode) {
  auto out = exec("echo made-inside > made.txt", settings_);
  EXPECT_FALSE(out.is_error) << out.text;
  std::ifstream in(ws_ / "made.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "made-inside");
}

TEST_F(SandboxTest, ReadOnlyWorkspaceRefusesWritesInsideAndInTheFileTools) {
  sandbox::Settings ro = settings_;
  ro.workspace_access = sandbox::WorkspaceAccess::kRo;
  auto out = exec("cat hello.txt; echo x > new.txt && echo WROTE", ro);
  EXPECT_NE(out.text.find("hello from the workspace"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("WROTE"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("Read-only file system"), std::string::npos) << out.text;
  EXPECT_FALSE(fs::exists(ws_ / "new.txt"));

  auto read = file_tool("read", {{"path", "hello.txt"}}, ro);
  EXPECT_FALSE(read.is_error) << read.text;
  auto write = file_tool("write", {{"path", "new.txt"}, {"content", "x"}}, ro);
  EXPECT_TRUE(write.is_error);
  EXPECT_NE(write.text.find("read-only"), std::string::npos) << write.text;
  EXPECT_FALSE(fs::exists(ws_ / "new.txt"));
  auto edit = file_tool("edit", {{"path", "hello.txt"}, {"oldText", "hello"}, {"newText", "bye"}}, ro);
  EXPECT_TRUE(edit.is_error) << edit.text;
}

TEST_F(SandboxTest, NoWorkspaceAccessHidesIt) {
  sandbox::Settings none = settings_;
  none.workspace_access = sandbox::WorkspaceAccess::kNone;
  auto out = exec("cat hello.txt || echo WS-HIDDEN; echo scratch > s.txt && cat s.txt", none);
  EXPECT_EQ(out.text.find("hello from the workspace"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("WS-HIDDEN"), std::string::npos) << out.text;
  EXPECT_FALSE(fs::exists(ws_ / "s.txt")) << "a none sandbox writes to a throwaway directory";
  auto read = file_tool("read", {{"path", "hello.txt"}}, none);
  EXPECT_TRUE(read.is_error);
  EXPECT_NE(read.text.find("not visible"), std::string::npos) << read.text;
}

/// A TCP listener on the host's 127.0.0.1 (any port).
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd, 8);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd); }
};

TEST_F(SandboxTest, NetworkOffCannotReachAHostLoopbackServerNetworkOnCan) {
  Listener server;
  ASSERT_GT(server.port, 0);
  const std::string probe = "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + std::to_string(server.port) +
                            "' 2>/dev/null && echo CONNECTED || echo UNREACHABLE";
  auto off = exec(probe, settings_);
  EXPECT_NE(off.text.find("UNREACHABLE"), std::string::npos) << off.text;
  EXPECT_EQ(off.text.find("CONNECTED"), std::string::npos) << off.text;

  sandbox::Settings on = settings_;
  on.network = true;
  auto with_net = exec(probe, on);
  EXPECT_NE(with_net.text.find("CONNECTED"), std::string::npos) << with_net.text;
}

TEST_F(SandboxTest, BindsAreVisibleReadOnlyWhenAsked) {
  sandbox::Settings b = settings_;
  b.binds.push_back({(root_.path / "outside").string(), "/data", true, "agents.defaults.sandbox.binds[0]"});
  auto out = exec("cat /data/secret.txt; echo y > /data/y.txt && echo WROTE", b);
  EXPECT_NE(out.text.find("host secret"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("WROTE"), std::string::npos) << out.text;
}

TEST_F(SandboxTest, MissingBwrapIsAClearErrorAndNothingRunsOnTheHost) {
  sandbox::Settings missing = settings_;
  missing.command = (root_.path / "no-such-bwrap").string();
  const fs::path marker = ws_ / "ran-on-host";
  auto out = exec("touch " + marker.string(), missing);
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.details.value("code", ""), "SANDBOX_UNAVAILABLE") << out.text;
  EXPECT_NE(out.text.find("no-such-bwrap"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("nothing was run on the host"), std::string::npos) << out.text;
  EXPECT_FALSE(fs::exists(marker));

  missing.command = "pincer-no-such-bwrap";  // a name: looked up on PATH
  auto by_name = exec("touch " + marker.string(), missing);
  EXPECT_TRUE(by_name.is_error);
  EXPECT_NE(by_name.text.find("not found on PATH"), std::string::npos) << by_name.text;
  EXPECT_FALSE(fs::exists(marker));
  // The file tools refuse too: a sandbox that is not there is not silently skipped.
  auto read = file_tool("read", {{"path", "hello.txt"}}, missing);
  EXPECT_TRUE(read.is_error);
  EXPECT_EQ(read.details.value("code", ""), "SANDBOX_UNAVAILABLE") << read.text;
}

TEST_F(SandboxTest, ABwrapThatCannotCreateNamespacesIsReportedWithItsReason) {
  // A stand-in "bwrap" that fails the way a kernel without user namespaces makes it fail.
  const fs::path fake = root_.path / "fake-bwrap";
  write_file(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  fs::permissions(fake, fs::perms::owner_all);
  sandbox::Settings s = settings_;
  s.command = fake.string();
  auto st = sandbox::check_backend(s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "SANDBOX_UNAVAILABLE");
  EXPECT_NE(st.error().message.find("No permissions to create new namespace"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("user namespaces"), std::string::npos) << st.error().message;
}

TEST(SandboxConfig, ReadsDefaultsAndAgentOverrides) {
  json config = json::parse(R"({"agents": {"defaults": {"sandbox": {"mode": "non-main", "workspaceAccess": "ro",
      "binds": ["/srv/data:/data:ro"], "network": "on", "bwrap": {"command": "/opt/bwrap"}}},
      "list": [{"id": "main"}, {"id": "work", "sandbox": {"mode": "all", "binds": ["/srv/x"], "network": "off"}}]}})");
  auto main = sandbox::settings_for_agent(config, "main");
  ASSERT_TRUE(main) << main.error().message;
  EXPECT_EQ(main->mode, sandbox::Mode::kNonMain);
  EXPECT_EQ(main->workspace_access, sandbox::WorkspaceAccess::kRo);
  EXPECT_TRUE(main->network);
  EXPECT_EQ(main->command, "/opt/bwrap");
  ASSERT_EQ(main->binds.size(), 1u);
  EXPECT_EQ(main->binds[0].source, "/srv/data");
  EXPECT_EQ(main->binds[0].target, "/data");
  EXPECT_TRUE(main->binds[0].read_only);
  EXPECT_FALSE(sandbox::applies(*main, "main", "agent:main:main"));
  EXPECT_TRUE(sandbox::applies(*main, "main", "agent:main:telegram:direct:42"));

  auto work = sandbox::settings_for_agent(config, "work");
  ASSERT_TRUE(work);
  EXPECT_EQ(work->mode, sandbox::Mode::kAll);
  EXPECT_FALSE(work->network);
  ASSERT_EQ(work->binds.size(), 2u);
  EXPECT_EQ(work->binds[1].target, "/srv/x");
  EXPECT_FALSE(work->binds[1].read_only);
  EXPECT_TRUE(sandbox::applies(*work, "work", "agent:work:main"));

  auto bad = sandbox::settings_for_agent(json::parse(R"({"agents": {"defaults": {"sandbox": {"binds": ["rel/x"]}}}})"), "main");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("agents.defaults.sandbox.binds[0]"), std::string::npos) << bad.error().message;
  auto off = sandbox::settings_for_agent(json::object(), "main");
  ASSERT_TRUE(off);
  EXPECT_FALSE(sandbox::applies(*off, "main", "agent:main:x"));
}

}  // namespace
}  // namespace pincer::tools
