// The exec and process tools (src/tools/exec_tool.h, process_table.h, output_buffer.h): output and
// exit codes, confined working directories, secrets scrubbed from the environment, timeouts and
// cancellation killing the whole process group, output caps, background sessions (poll, kill,
// yieldMs, table bounds and expiry) and the head-and-tail output buffer. Each test gets its own
// temp workspace (tools_test_support.h); exec tests use sub-second timeouts. The other built-in
// tools are in tools_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tools/exec_tool.h"
#include "tools/output_buffer.h"
#include "tools/process_table.h"
#include "tools/registry.h"
#include "tools_test_support.h"

namespace pincer::tools::exec_tools_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

using tools_test_support::contains;
using tools_test_support::spit;
using tools_test_support::ToolsTest;

/// A process is gone when it no longer exists or is a zombie nobody reaped yet.
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

bool eventually_gone(pid_t pid) {
  for (int i = 0; i < 100 && !process_gone(pid); ++i) std::this_thread::sleep_for(20ms);
  return process_gone(pid);
}

// ---------------------------------------------------------------------------------------------
// exec

TEST_F(ToolsTest, ExecReportsOutputAndExitCode) {
  auto out = call("exec", {{"command", "echo hello; echo oops 1>&2"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(out.text, "hello\noops\n\n[exit code 0]");
  EXPECT_EQ(out.details["exitCode"], 0);

  out = call("exec", {{"command", "exit 3"}});
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.text, "(no output)\n\n[exit code 3]");

  out = call("exec", {{"command", "kill -9 $$"}});
  EXPECT_TRUE(out.is_error);
  EXPECT_TRUE(contains(out.text, "[terminated by signal 9 (SIGKILL)]")) << out.text;

  out = call("exec", {{"command", "cat; echo after-stdin"}});  // stdin is /dev/null: cat ends at once
  EXPECT_EQ(out.text, "after-stdin\n\n[exit code 0]");
  EXPECT_EQ(call("exec", {{"command", "   "}}).text, "exec: command must not be empty");
}

TEST_F(ToolsTest, ExecWorkdirIsConfined) {
  fs::create_directories(ws_ / "sub");
  spit(ws_ / "file", "x");
  auto out = call("exec", {{"command", "pwd"}, {"workdir", "sub"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(out.text, (fs::canonical(ws_) / "sub").string() + "\n\n[exit code 0]");
  out = call("exec", {{"command", "pwd"}});
  EXPECT_TRUE(contains(out.text, fs::canonical(ws_).string()));
  EXPECT_EQ(call("exec", {{"command", "pwd"}, {"workdir", "../outside"}}).text,
            "exec: path \"../outside\" is outside the workspace");
  EXPECT_EQ(call("exec", {{"command", "pwd"}, {"workdir", "file"}}).text, "exec: workdir \"file\" is not a directory");
}

TEST_F(ToolsTest, ExecScrubsSecretsFromTheEnvironment) {
  ctx_.env["FOO_TOKEN"] = "tok-value";
  ctx_.env["MY_API_KEY"] = "key-value";
  ctx_.env["DB_PASSWORD"] = "pw-value";
  ctx_.env["GITHUB_AUTH"] = "auth-value";
  ctx_.env["aws_secret_access_key"] = "aws-value";
  ctx_.env["PINCER_GATEWAY_URL"] = "ws://gateway";
  ctx_.env["PINCER_HOME"] = "/state/of/the/gateway";
  ctx_.env["OPENCLAW_STATE_DIR"] = "/state/of/openclaw";
  ctx_.env["VISIBLE"] = "yes";
  auto out = call("exec", {{"command", "env"}, {"env", {{"EXTRA", "given"}}}});
  ASSERT_FALSE(out.is_error) << out.text;
  for (const char* hidden : {"tok-value", "key-value", "pw-value", "auth-value", "aws-value", "ws://gateway",
                             "PINCER_HOME", "/state/of/openclaw"}) {
    EXPECT_FALSE(contains(out.text, hidden)) << hidden;
  }
  for (const char* shown : {"VISIBLE=yes", "EXTRA=given", "HOME=", "LANG=C.UTF-8", "PATH=/usr/local/bin"}) {
    EXPECT_TRUE(contains(out.text, shown)) << shown;
  }
  EXPECT_EQ(call("exec", {{"command", "true"}, {"env", {{"PATH", "/evil"}}}}).text,
            "exec: env: overriding PATH is not allowed");
  EXPECT_TRUE(call("exec", {{"command", "true"}, {"env", {{"LD_PRELOAD", "x.so"}}}}).is_error);

  EXPECT_TRUE(is_secret_env_name("openai_api_key"));
  EXPECT_TRUE(is_secret_env_name("PINCER_GATEWAY_PORT"));
  EXPECT_FALSE(is_secret_env_name("PINCER_HOME"));
  EXPECT_TRUE(is_state_env_name("PINCER_HOME"));
  EXPECT_TRUE(is_state_env_name("openclaw_state_dir"));
  EXPECT_FALSE(is_state_env_name("HOME"));
  EXPECT_FALSE(is_secret_env_name("PATH"));
  auto env = child_environment({});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin"}));
}

TEST_F(ToolsTest, ExecTimeoutKillsTheWholeProcessGroup) {
  const auto start = std::chrono::steady_clock::now();
  auto out = call("exec", {{"command", "sleep 30 & echo $!; wait"}, {"timeoutSeconds", 0.3}});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(out.is_error);
  EXPECT_TRUE(contains(out.text, "[timed out after 0.3s; process group killed]")) << out.text;
  EXPECT_EQ(out.details["timedOut"], true);
  EXPECT_LT(elapsed, 5s);
  const pid_t grandchild = std::stoi(out.text);
  EXPECT_TRUE(eventually_gone(grandchild));
}

TEST_F(ToolsTest, ExecCancellationKillsTheProcessGroup) {
  std::thread canceller([this] {
    std::this_thread::sleep_for(200ms);
    cancelled_.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto out = call("exec", {{"command", "sleep 30"}});
  canceller.join();
  EXPECT_TRUE(out.is_error);
  EXPECT_TRUE(contains(out.text, "[cancelled; process group killed]")) << out.text;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_F(ToolsTest, ExecCapsHugeOutputWhileReading) {
  auto out = call("exec", {{"command", "echo first; yes | head -c 10000000; echo; echo last"}});
  ASSERT_FALSE(out.is_error) << out.text.substr(0, 200);
  EXPECT_LT(out.text.size(), ctx_.max_output_chars + 200);
  EXPECT_TRUE(out.text.rfind("first\n", 0) == 0);
  EXPECT_TRUE(contains(out.text, "bytes omitted ...]"));
  EXPECT_TRUE(contains(out.text, "last\n\n[exit code 0; "));
  EXPECT_TRUE(contains(out.text, " of 10000012 output bytes omitted]")) << out.text.substr(out.text.size() - 100);
  EXPECT_GT(out.details["omittedBytes"].get<uint64_t>(), 9'900'000u);
}

TEST_F(ToolsTest, ExecDoesNotWaitForGrandchildrenHoldingThePipe) {
  const auto start = std::chrono::steady_clock::now();
  auto out = call("exec", {{"command", "sleep 3 & echo started"}});
  EXPECT_EQ(out.text, "started\n\n[exit code 0]");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

// ---------------------------------------------------------------------------------------------
// Background processes

TEST_F(ToolsTest, BackgroundExecAndPoll) {
  table();
  auto out = call("exec", {{"command", "echo start; sleep 0.3; echo end; exit 4"}, {"background", true}});
  ASSERT_FALSE(out.is_error) << out.text;
  const std::string id = out.details["sessionId"];
  EXPECT_TRUE(contains(out.text, "Command running in background (sessionId \"" + id + "\""));

  auto list = call("process", {{"action", "list"}});
  EXPECT_TRUE(contains(list.text, id + "  running")) << list.text;

  ToolOutput last;
  std::string all = poll_until_done(id, &last);
  EXPECT_TRUE(contains(all, "start\n"));
  EXPECT_TRUE(contains(all, "end\n"));
  EXPECT_TRUE(contains(last.text, "[exit code 4]")) << last.text;
  EXPECT_EQ(last.details["exitCode"], 4);

  // Output is not repeated by the next poll; log shows everything retained.
  EXPECT_EQ(call("process", {{"action", "poll"}, {"sessionId", id}}).text, "(no new output)\n\n[exit code 4]");
  EXPECT_EQ(call("process", {{"action", "log"}, {"sessionId", id}}).text, "start\nend\n\n[exit code 4]");
  EXPECT_FALSE(call("process", {{"action", "remove"}, {"sessionId", id}}).is_error);
  EXPECT_TRUE(call("process", {{"action", "poll"}, {"sessionId", id}}).is_error);
}

TEST_F(ToolsTest, AStoppedRunEndsAPollThatWaitsForOutput) {
  table();
  auto out = call("exec", {{"command", "sleep 30"}, {"background", true}});
  const std::string id = out.details["sessionId"];
  std::thread canceller([this] {
    std::this_thread::sleep_for(200ms);
    cancelled_.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto polled = call("process", {{"action", "poll"}, {"sessionId", id}, {"timeout", 30000}});  // woken, not 30 s
  canceller.join();
  EXPECT_FALSE(polled.is_error) << polled.text;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_FALSE(call("process", {{"action", "kill"}, {"sessionId", id}}).is_error);
}

TEST_F(ToolsTest, BackgroundKill) {
  table();
  auto out = call("exec", {{"command", "sleep 30"}, {"background", true}});
  const std::string id = out.details["sessionId"];
  const pid_t pid = out.details["pid"];
  auto killed = call("process", {{"action", "kill"}, {"sessionId", id}});
  ASSERT_FALSE(killed.is_error) << killed.text;
  EXPECT_EQ(killed.text, "Killed session \"" + id + "\": killed on request.");
  EXPECT_TRUE(eventually_gone(pid));
  EXPECT_TRUE(contains(call("process", {{"action", "kill"}, {"sessionId", id}}).text, "already finished"));

  auto missing = call("process", {{"action", "poll"}, {"sessionId", "nope"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_TRUE(contains(missing.text, "no background process with sessionId \"nope\""));
  EXPECT_EQ(call("process", {{"action", "poll"}}).text, "process: action \"poll\" needs a sessionId");
}

TEST_F(ToolsTest, YieldMsMovesALongCommandToTheBackground) {
  table();
  auto out = call("exec", {{"command", "sleep 0.4; echo late"}, {"yieldMs", 100}});
  ASSERT_FALSE(out.is_error) << out.text;
  ASSERT_TRUE(out.details.contains("sessionId")) << out.text;
  EXPECT_TRUE(contains(poll_until_done(out.details["sessionId"]), "late\n"));

  out = call("exec", {{"command", "echo quick"}, {"yieldMs", 5000}});  // finishes first: plain result
  EXPECT_EQ(out.text, "quick\n\n[exit code 0]");
}

TEST_F(ToolsTest, BackgroundWithoutATableRunsInTheForeground) {
  auto out = call("exec", {{"command", "echo fg"}, {"background", true}});
  EXPECT_EQ(out.text, "fg\n\n[exit code 0]");
  EXPECT_EQ(call("process", {{"action", "list"}}).text, "No background processes.");
}

TEST_F(ToolsTest, ProcessTableIsBounded) {
  table({.max_running = 1, .max_finished = 1, .finished_ttl = 10min});
  auto first = call("exec", {{"command", "sleep 30"}, {"background", true}});
  ASSERT_FALSE(first.is_error);
  auto second = call("exec", {{"command", "sleep 30"}, {"background", true}});
  EXPECT_TRUE(second.is_error);
  EXPECT_TRUE(contains(second.text, "1 background processes are already running")) << second.text;
  // yieldMs cannot move a command to a full table: it keeps running in the foreground.
  auto fg = call("exec", {{"command", "sleep 0.3; echo fg"}, {"yieldMs", 50}});
  EXPECT_EQ(fg.text, "fg\n\n[exit code 0]");
  call("process", {{"action", "kill"}, {"sessionId", first.details["sessionId"]}});
  // Finished entries beyond max_finished are dropped, oldest first.
  auto a = call("exec", {{"command", "true"}, {"background", true}});
  poll_until_done(a.details["sessionId"]);
  EXPECT_EQ(table_->list().size(), 1u);
  EXPECT_EQ(table_->list()[0].id, a.details["sessionId"]);
}

TEST_F(ToolsTest, FinishedProcessesExpire) {
  table({.max_running = 4, .max_finished = 4, .finished_ttl = 0ms});
  // It ends only once the test has its handle (a finished entry expires on the next lookup).
  auto out = call("exec", {{"command", "while [ ! -e go ]; do sleep 0.01; done"}, {"background", true}});
  auto proc = table_->find(out.details["sessionId"]);
  ASSERT_TRUE(proc.ok());
  spit(ws_ / "go", "");
  (*proc)->wait_for(60s);  // generous: the machine may be busy
  EXPECT_TRUE(table_->list().empty());
}

TEST_F(ToolsTest, DestroyingTheTableStopsRunningProcesses) {
  table();
  auto out = call("exec", {{"command", "sleep 30"}, {"background", true}});
  const pid_t pid = out.details["pid"];
  table_.reset();
  ctx_.processes = nullptr;
  EXPECT_TRUE(eventually_gone(pid));
}

TEST(OutputBuffer, KeepsHeadAndTailAndCountsTheRest) {
  OutputBuffer b(4, 4);
  b.append("abcdef");
  EXPECT_EQ(b.render(), "abcdef");
  b.append("ghijklmnop");
  EXPECT_EQ(b.total(), 16u);
  EXPECT_EQ(b.dropped(), 8u);
  EXPECT_EQ(b.render(), "abcd\n[... 8 bytes omitted ...]\nmnop");

  auto s = b.read_from(2, 100);
  EXPECT_EQ(s.text, "cd\n[... 8 bytes omitted ...]\nmnop");
  EXPECT_EQ(s.next, 16u);
  s = b.read_from(14, 100);
  EXPECT_EQ(s.text, "op");
  s = b.read_from(0, 3);
  EXPECT_EQ(s.text, "abc");
  EXPECT_EQ(s.next, 3u);
  EXPECT_EQ(omitted_marker(9990000), "[... 9,990,000 bytes omitted ...]");

  OutputBuffer big(10, 1000);
  for (int i = 0; i < 10000; ++i) big.append("0123456789");
  EXPECT_EQ(big.total(), 100000u);
  EXPECT_EQ(big.render().size(), 10u + 1000u + std::string("\n[... 98,990 bytes omitted ...]\n").size());
}

}  // namespace
}  // namespace pincer::tools::exec_tools_test
