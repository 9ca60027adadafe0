// Tool settings from pincer.json reach the tools in a real gateway run (issue #14 §5, §7): the
// mock LLM asks for exec; tools.exec.timeoutSec / maxOutputChars bound it, and
// agents.defaults.sandbox puts it inside bubblewrap (or refuses when bwrap is missing).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace tool_config_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "tool-config-test-token-0123456789";

class ToolConfigTest : public ::testing::Test {
 protected:
  /// Starts the gateway with `extra` (JSON5 members) added at the top level of pincer.json.
  void start(const std::string& agents_defaults_extra, const std::string& tools) {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{});
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model' }"},
                                            .defaults = agents_defaults_extra,
                                            .top = ",\n  tools: " + tools}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  /// Runs one turn whose model asks for exec `command`; returns the tool result's text.
  std::string exec_result(const std::string& command, const std::string& run_id) {
    const std::string message = "MOCK_TOOL:exec:" + json{{"command", command}}.dump();
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 2000; ++i) {
      auto f = client_->recv(std::chrono::seconds(60));
      if (!f) break;
      if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == run_id && (*f)["payload"]["state"] != "delta") break;
    }
    auto history = client_->request("chat.history", {{"sessionKey", "main"}});
    std::string last;
    for (const auto& m : history["payload"]["messages"]) {
      if (m["role"] != "toolResult") continue;
      last.clear();
      for (const auto& b : m["content"]) last += b.value("text", "");
    }
    return last;
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ToolConfigTest, ExecTimeoutSecAndMaxOutputCharsTakeEffect) {
  start("", "{ exec: { timeoutSec: 1, maxOutputChars: 2000 } }");
  const std::string slow = exec_result("sleep 30", "run-slow");
  EXPECT_NE(slow.find("timed out after 1s"), std::string::npos) << slow;
  const std::string big = exec_result("head -c 50000 /dev/zero | tr '\\0' a; echo; echo THE-END", "run-big");
  EXPECT_NE(big.find("THE-END"), std::string::npos) << "the tail is kept";
  // 50 009 bytes printed, 2 000 kept (tools.exec.maxOutputChars; the default keeps 100 000).
  EXPECT_NE(big.find("48009 of 50009 output bytes omitted"), std::string::npos) << big.substr(big.size() - 200);
  EXPECT_LT(big.size(), 2'400u) << "2000 bytes of output plus the markers";
}

TEST_F(ToolConfigTest, SandboxModeAllHidesTheHostFromExec) {
  home_.write("host-secret.txt", "the host secret\n");
  start(", sandbox: { mode: 'all' }", "{ }");
  const std::string secret = (home_.path() / "host-secret.txt").string();
  const std::string out = exec_result("uname -n; pwd; cat " + secret + " 2>&1 || echo HIDDEN", "run-sandboxed");
  EXPECT_NE(out.find("pincer-sandbox"), std::string::npos) << out;
  EXPECT_NE(out.find("workspace"), std::string::npos) << out;
  EXPECT_NE(out.find("HIDDEN"), std::string::npos) << out;
  EXPECT_EQ(out.find("the host secret"), std::string::npos) << out;
}

// A bwrap.command path that is no executable is a config error (the gateway does not start with
// it); one that exists but cannot make a sandbox here (no user namespaces …) is found at the first
// command, which is refused rather than run on the host.
TEST_F(ToolConfigTest, ASandboxBackendThatCannotStartRefusesInsteadOfRunningOnTheHost) {
  const auto fake = home_.path() / "broken-bwrap";
  home_.write("broken-bwrap", "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  start(", sandbox: { mode: 'all', bwrap: { command: '" + fake.string() + "' } }", "{ }");
  const auto marker = home_.path() / "ran-on-host";
  const std::string out = exec_result("touch " + marker.string(), "run-missing");
  EXPECT_NE(out.find(fake.string()), std::string::npos) << out;
  EXPECT_NE(out.find("cannot create a sandbox"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing was run on the host"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(marker));
}

}  // namespace
}  // namespace tool_config_test
}  // namespace pincer::test
