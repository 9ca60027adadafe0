// A new-user tester's finding: SIGTERM while a run waits on an exec approval kept the gateway
// waiting the whole drain (gateway.drainTimeoutMs) for an answer nobody could give any more (the
// clients are told to go away). Now the shutdown ends every pending approval at once, denied with
// the reason, so the run is told, finishes, and the gateway exits as soon as it has: the real
// gateway and the mock LLM; the model is told why, the transcript keeps it, the approval's
// resolved event says "deny".
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace exec_approval_shutdown_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "approval-shutdown-token-0123456789";
constexpr const char* kWhy = "the gateway is shutting down, so nobody can answer the approval request";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Every transcript of agent main, concatenated.
std::string transcripts(const fs::path& home) {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(home / "agents" / "main" / "sessions", ec)) {
    if (e.is_regular_file() && e.path().extension() == ".jsonl") all += slurp(e.path());
  }
  return all;
}

TEST(ExecApprovalShutdownTest, SigtermDeniesThePendingApprovalAndTheDrainEndsPromptly) {
  TempDir home;
  const json script = json::array(
      {{{"toolCalls", json::array({{{"name", "exec"}, {"arguments", {{"command", "touch never.txt"}}}}})}},
       {{"text", "understood, not run"}}});
  home.write("script.json", script.dump());
  MockLlm mock({"--script", (home.path() / "script.json").string(), "--log", (home.path() / "mock.log").string()});
  // A drain and an approval timeout far longer than the bound below: only the shutdown's deny ends the wait.
  home.write("pincer.json", mock_config({.token = kToken,
                                         .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }", .api_key = "mock-key"},
                                         .top = ",\n tools: { exec: { ask: 'always' } }, approvals: { timeoutSec: 600 }",
                                         .gateway = ", drainTimeoutMs: 60000"}));
  Gateway gateway(home.path());
  WsClient client(gateway.port());
  ASSERT_TRUE(handshake(client, connect_params(kToken, {"operator.admin", "operator.read", "operator.write", "operator.approvals"})));
  auto ack = client.request("chat.send", {{"sessionKey", "main"}, {"message", "go"}, {"idempotencyKey", "run-shutdown"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  json asked;
  for (int i = 0; i < 4000 && asked.is_null(); ++i) {
    auto f = client.recv(30s);
    if (!f) break;
    if ((*f).value("event", "") == "exec.approval.requested") asked = (*f)["payload"];
  }
  ASSERT_FALSE(asked.is_null()) << "no exec.approval.requested\n" << gateway.process().err();

  const auto sent = std::chrono::steady_clock::now();
  gateway.process().signal(SIGTERM);
  json resolved;  // the clients still hear the approval end, before they are closed
  for (int i = 0; i < 4000 && resolved.is_null(); ++i) {
    auto f = client.recv(30s);
    if (!f) break;
    if ((*f).value("event", "") == "exec.approval.resolved") resolved = (*f)["payload"];
  }
  const auto exit_code = gateway.process().wait(40s);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent);
  ASSERT_TRUE(exit_code.has_value()) << "the gateway still waits after 40 s\n" << gateway.process().err();
  EXPECT_EQ(*exit_code, 0) << gateway.process().err();
  EXPECT_LT(took, 20s) << "the drain waited for the approval (drainTimeoutMs 60000)";
  ASSERT_FALSE(resolved.is_null()) << "no exec.approval.resolved";
  EXPECT_EQ(resolved["id"], asked["id"]);
  EXPECT_EQ(resolved["decision"], "deny") << resolved.dump();

  // The command did not run; the model was told why, and so does the transcript.
  EXPECT_FALSE(fs::exists(home.path() / "workspace" / "never.txt"));
  EXPECT_NE(slurp(home.path() / "mock.log").find(kWhy), std::string::npos) << slurp(home.path() / "mock.log");
  EXPECT_NE(transcripts(home.path()).find(kWhy), std::string::npos) << transcripts(home.path());
  const std::string err = gateway.process().err();
  EXPECT_NE(err.find("denying 1 pending exec approval"), std::string::npos) << err;
  EXPECT_EQ(err.find("unfinished (gateway.drainTimeoutMs)"), std::string::npos) << err;
}

}  // namespace
}  // namespace exec_approval_shutdown_test
}  // namespace pincer::test
