// What the agent's commands can do to, and learn from, the gateway that runs them — with the real
// binary, the mock LLM scripting the tool calls and real processes:
//  - a kill -9 of the gateway takes every command with it, background grandchildren and `process`
//    sessions included (issue 11 §4);
//  - each command is logged with its exit code and duration, secrets redacted (issue 11 §5);
//  - a command cannot read the gateway's environment through /proc, nor find its state directory
//    in its own environment (issue 22 §3);
//  - models[].maxTokens reaches the provider on every wire API (issue 11 §11).
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace exec_guard_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "exec-guard-token-0123456789";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The process group of `pid` per /proc, or -1 when it is gone (or a zombie).
int pgid_of(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return -1;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  std::string state;
  int ppid = 0, pgrp = -1;
  rest >> state >> ppid >> pgrp;
  return state == "Z" ? -1 : pgrp;
}

/// Live (non-zombie) processes whose process group is one of `groups`.
std::vector<int> members_of(const std::set<int>& groups) {
  std::vector<int> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const int pid = std::atoi(e->d_name);
    if (pid > 0 && groups.count(pgid_of(pid)) != 0) out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

/// Pids (one per line) that the commands wrote, once `want` of them are there.
std::vector<int> wait_for_pids(const fs::path& file, size_t want) {
  std::vector<int> pids;
  for (int i = 0; i < 500 && pids.size() < want; ++i) {
    pids.clear();
    std::istringstream in(slurp(file));
    for (int pid; in >> pid;) pids.push_back(pid);
    if (pids.size() < want) std::this_thread::sleep_for(20ms);
  }
  return pids;
}

class ExecGuardTest : public ::testing::Test {
 protected:
  /// Starts the mock LLM with `script` (JSON array, see tests/mock_llm/README.md) and a gateway.
  void start(const json& script, const std::string& api = "openai-completions", const std::string& model_extra = "",
             const std::map<std::string, std::string>& env = {}) {
    home_.write("script.json", script.dump());
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{"--script", (home_.path() / "script.json").string(),
                                                                "--log", (home_.path() / "mock.log").string()});
    const bool v1 = api == "openai-completions" || api == "openai-responses";
    const std::string base = v1 ? mock_->base_url() : "http://127.0.0.1:" + std::to_string(mock_->port());
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = base, .models = "{ id: 'mock-model'" + model_extra + " }", .api_key = "mock-key", .api = api}}));
    gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{}, env);
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  static json exec_call(const std::string& command, bool background = false) {
    json args = {{"command", command}};
    if (background) args["background"] = true;
    return {{"toolCalls", json::array({{{"name", "exec"}, {"arguments", args}}})}};
  }
  void send(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  /// Waits for the run's terminal chat event; returns its payload.
  json wait_terminal(const std::string& run_id) {
    for (int i = 0; i < 2000; ++i) {
      auto f = client_->recv(20s);
      if (!f) break;
      if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == run_id && (*f)["payload"]["state"] != "delta") {
        return (*f)["payload"];
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  fs::path workspace() const { return home_.path() / "workspace"; }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ExecGuardTest, KillNineOfTheGatewayTakesEveryCommandAlong) {
  // A background `process` session, then a foreground command with a background grandchild
  // that is still running when the gateway is killed.
  start(json::array({exec_call("echo $$ >> pids; exec sleep 60", true), {{"text", "started"}},
                     exec_call("echo $$ >> pids; sleep 60 & echo $! >> pids; sleep 60")}));
  send("start a background job", "run-bg");
  ASSERT_EQ(wait_terminal("run-bg")["state"], "final");
  send("now block", "run-fg");
  const std::vector<int> pids = wait_for_pids(workspace() / "pids", 3);
  ASSERT_EQ(pids.size(), 3u) << slurp(workspace() / "pids");
  std::set<int> groups;
  for (int pid : pids) {
    const int g = pgid_of(pid);
    ASSERT_GT(g, 0) << "pid " << pid << " is not running";
    groups.insert(g);
  }
  EXPECT_EQ(groups.count(gateway_->process().pid()), 0u) << "commands run in their own process groups";

  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  std::vector<int> left = members_of(groups);
  for (int i = 0; i < 250 && !left.empty(); ++i) {
    std::this_thread::sleep_for(20ms);
    left = members_of(groups);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the commands outlived the gateway, e.g. pid "
                            << (left.empty() ? 0 : left.front());
  for (int pid : left) ::kill(pid, SIGKILL);
}

TEST_F(ExecGuardTest, CommandsAreLoggedWithExitCodeAndDurationRedacted) {
  start(json::array({exec_call(std::string("echo logged-command; echo ") + kToken + "; exit 3"), {{"text", "ok"}}}));
  send("run it", "run-log");
  ASSERT_EQ(wait_terminal("run-log")["state"], "final");
  const std::string err = gateway_->process().err();
  EXPECT_NE(err.find("exec: started pid"), std::string::npos) << err;
  const auto end = err.find("(exit code 3) after ");
  ASSERT_NE(end, std::string::npos) << err;
  const std::string line = err.substr(end, err.find('\n', end) - end);
  EXPECT_NE(line.find(" ms: echo logged-command; echo "), std::string::npos) << line;
  EXPECT_EQ(err.find(kToken), std::string::npos) << "the gateway token reached the log";
}

TEST_F(ExecGuardTest, CommandsCannotReadTheGatewaysEnvironment) {
  const std::string secret = "exec-guard-provider-secret-4242";
  // Through $PPID (the gateway, which forked the shell) and through the gateway's pid as the
  // test tells it, its memory too, plus the command's own environment.
  const std::string command =
      "(cat /proc/$PPID/environ; cat /proc/$(cat gw.pid)/environ; head -c 64 /proc/$PPID/mem; echo; env) "
      "> leak.txt 2>&1";
  start(json::array({exec_call(command), {{"text", "ok"}}}), "openai-completions", "",
        {{"EXEC_GUARD_PROVIDER_SECRET", secret}, {"EXEC_GUARD_PLAIN", "plain-value"}});
  fs::create_directories(workspace());
  std::ofstream(workspace() / "gw.pid") << gateway_->process().pid() << "\n";
  send("look around", "run-env");
  ASSERT_EQ(wait_terminal("run-env")["state"], "final");
  const std::string leak = slurp(workspace() / "leak.txt");
  ASSERT_NE(leak.find("EXEC_GUARD_PLAIN=plain-value"), std::string::npos) << "the command did not run: " << leak;
  EXPECT_EQ(leak.find(secret), std::string::npos) << leak;
  EXPECT_EQ(leak.find("PINCER_HOME"), std::string::npos) << leak;
  EXPECT_NE(leak.find("mem' for reading: Permission denied"), std::string::npos) << leak;
}

TEST_F(ExecGuardTest, CommandsGetTheDescriptorLimitTheGatewayStartedWith) {
  // The gateway raises its own soft RLIMIT_NOFILE for many clients; a command must not inherit
  // that (select() and close-every-fd loops break), but get the limit the gateway started with.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max <= 700) GTEST_SKIP() << "hard limit too low to raise";
  rlimit low = saved;
  low.rlim_cur = 700;  // inherited by the gateway started below
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  start(json::array({exec_call("ulimit -n > nofile.txt"), {{"text", "ok"}}}));
  ::setrlimit(RLIMIT_NOFILE, &saved);
  send("how many files", "run-nofile");
  ASSERT_EQ(wait_terminal("run-nofile")["state"], "final");
  EXPECT_EQ(slurp(workspace() / "nofile.txt"), "700\n");
  // The gateway itself did raise its own (else this test proves nothing).
  const std::string limits = slurp("/proc/" + std::to_string(gateway_->process().pid()) + "/limits");
  const auto at = limits.find("Max open files");
  ASSERT_NE(at, std::string::npos) << limits;
  std::istringstream row(limits.substr(at + std::string("Max open files").size()));
  long soft = 0;
  row >> soft;
  EXPECT_GT(soft, 700) << limits;
}

TEST_F(ExecGuardTest, ModelMaxTokensReachesTheProviderOnEveryApi) {
  const std::map<std::string, std::string> field = {{"openai-completions", "/max_tokens"},
                                                    {"openai-responses", "/max_output_tokens"},
                                                    {"anthropic-messages", "/max_tokens"},
                                                    {"ollama", "/options/num_predict"}};
  for (const auto& [api, pointer] : field) {
    SCOPED_TRACE(api);
    client_.reset();
    gateway_.reset();
    mock_.reset();
    fs::remove(home_.path() / "mock.log");
    start(json::array({{{"text", "short"}}}), api, ", maxTokens: 1234");
    send("hi", "run-" + api);
    ASSERT_EQ(wait_terminal("run-" + api)["state"], "final");
    std::istringstream log(slurp(home_.path() / "mock.log"));
    int generations = 0;
    for (std::string line; std::getline(log, line);) {
      const json rec = json::parse(line);
      if (rec.value("method", "") != "POST") continue;
      ++generations;
      const json body = rec["body"].is_string() ? json::parse(rec["body"].get<std::string>()) : rec["body"];
      EXPECT_EQ(body.value(json::json_pointer(pointer), json()), 1234) << body.dump();
    }
    EXPECT_GE(generations, 1);
  }
}

}  // namespace
}  // namespace exec_guard_test
}  // namespace pincer::test
