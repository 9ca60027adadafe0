// ManagedProcess (src/tools/subprocess.h): the pump sleeps until output, the child's exit, a stop
// request or a deadline; these cases are the ones where output and exit come apart. Every wait is
// a generous bound for a condition, not a timing assertion.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "tools/subprocess.h"

namespace pincer::tools {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<ManagedProcess> start(const std::string& command, std::chrono::milliseconds timeout = 0ms) {
  SpawnOptions o;
  o.command = command;
  o.cwd = std::filesystem::temp_directory_path();
  o.env = {"PATH=/usr/bin:/bin"};
  o.timeout = timeout;
  o.kill_grace = 200ms;
  o.log = false;
  auto proc = ManagedProcess::spawn(std::move(o));
  EXPECT_TRUE(proc.ok()) << proc.error().message;
  return proc.ok() ? *proc : nullptr;
}

TEST(ManagedProcess, OutputAndExitCode) {
  auto p = start("echo hi; exit 3");
  ASSERT_TRUE(p && p->wait_for(30s));
  EXPECT_EQ(p->output(), "hi\n");
  EXPECT_EQ(p->status().exit_code, 3);
  EXPECT_EQ(p->status().stopped_by, StopReason::kNone);
}

TEST(ManagedProcess, AnExitAfterItsOutputClosedIsNoticed) {
  auto p = start("echo before; exec >/dev/null 2>&1; sleep 0.2; exit 4");
  ASSERT_TRUE(p && p->wait_for(30s));
  EXPECT_EQ(p->output(), "before\n");
  EXPECT_EQ(p->status().exit_code, 4);
}

TEST(ManagedProcess, TimeoutAndStopReachAProcessWithoutOutput) {
  auto timed = start("exec >/dev/null 2>&1; sleep 30", 300ms);
  ASSERT_TRUE(timed && timed->wait_for(30s));
  EXPECT_EQ(timed->status().stopped_by, StopReason::kTimeout);
  EXPECT_TRUE(timed->status().signal.has_value());

  auto stopped = start("exec >/dev/null 2>&1; sleep 30");
  ASSERT_TRUE(stopped);
  stopped->stop(StopReason::kCancelled);
  ASSERT_TRUE(stopped->wait_for(30s));
  EXPECT_EQ(stopped->status().stopped_by, StopReason::kCancelled);
}

TEST(ManagedProcess, AChildHoldingTheOutputDoesNotKeepItRunning) {
  auto p = start("sleep 2 & echo started; exit 0");  // the background sleep keeps the pipe open
  ASSERT_TRUE(p && p->wait_for(30s));
  EXPECT_EQ(p->status().exit_code, 0);
  EXPECT_EQ(p->output(), "started\n");
}

}  // namespace
}  // namespace pincer::tools
