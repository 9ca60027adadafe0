// Exec approvals through the real gateway (SPEC TL-3): the mock LLM asks for an `exec`, the
// gateway asks an approval client (the gateway protocol, as `pincer chat` and the web chat do) with
// exec.approval.requested, and the answer — allow-once, deny, or none before the timeout — decides
// whether the command runs; the run is told. exec.approval.list, exec.approvals.get|set and the
// grants of a scoped allow-always (exec.approval.grants.list|revoke) too; OpenClaw's unified
// approval.get / approval.resolve over the same requests.
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace exec_approvals_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "exec-approvals-token-0123456789";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ExecApprovalsTest : public ::testing::Test {
 protected:
  void start(const json& script, const std::string& extra_config) {
    home_.write("script.json", script.dump());
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{"--script", (home_.path() / "script.json").string(),
                                                                "--log", (home_.path() / "mock.log").string()});
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model' }", .api_key = "mock-key"},
                                            .top = ",\n" + extra_config}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken, {"operator.admin", "operator.read", "operator.write", "operator.approvals"})));
  }
  static json exec_call(const std::string& command) {
    return {{"toolCalls", json::array({{{"name", "exec"}, {"arguments", {{"command", command}}}}})}};
  }
  void send(const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "go"}, {"idempotencyKey", run_id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  /// The next event named `name` (kept events first), with a generous deadline.
  json wait_event(const std::string& name, const std::string& run_id = "") {
    auto matches = [&](const json& f) {
      if (f.value("event", "") != name) return false;
      if (run_id.empty()) return true;
      const json& p = f["payload"];
      return p.value("runId", "") == run_id || p.value("request", json::object()).value("runId", "") == run_id;
    };
    auto& kept = client_->events();
    for (auto it = kept.begin(); it != kept.end(); ++it) {
      if (matches(*it)) {
        json f = *it;
        kept.erase(it);
        return f["payload"];
      }
    }
    for (int i = 0; i < 4000; ++i) {
      auto f = client_->recv(30s);
      if (!f) break;
      if (name == "chat" && matches(*f) && (*f)["payload"]["state"] == "delta") continue;
      if (matches(*f)) return (*f)["payload"];
    }
    ADD_FAILURE() << "no " << name << " event";
    return json();
  }
  fs::path workspace() const { return home_.path() / "workspace"; }
  std::string mock_log() const { return slurp(home_.path() / "mock.log"); }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ExecApprovalsTest, ApprovedFromTheClientTheCommandRunsAsShown) {
  start(json::array({exec_call("echo approved > ran.txt"), {{"text", "done"}}}), "tools: { exec: { ask: 'always' } }");
  send("run-approve");
  const json asked = wait_event("exec.approval.requested", "run-approve");
  EXPECT_EQ(asked["request"]["command"], "echo approved > ran.txt");
  EXPECT_TRUE(fs::equivalent(fs::path(asked["request"]["cwd"].get<std::string>()), workspace())) << asked.dump();
  EXPECT_EQ(asked["request"]["commandArgv"], json::array({"/bin/sh", "-c", "echo approved > ran.txt"}));
  EXPECT_FALSE(fs::exists(workspace() / "ran.txt"));  // nothing ran before the answer
  // The Control UI's list shows it while it waits.
  auto listed = client_->request("exec.approval.list", json::object());
  ASSERT_EQ(listed["payload"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["payload"][0]["id"], asked["id"]);
  auto r = client_->request("exec.approval.resolve", {{"id", asked["id"]}, {"decision", "allow-once"}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(wait_event("exec.approval.resolved")["decision"], "allow-once");
  EXPECT_EQ(wait_event("chat", "run-approve")["state"], "final");
  EXPECT_EQ(slurp(workspace() / "ran.txt"), "approved\n");
  EXPECT_TRUE(client_->request("exec.approval.list", json::object())["payload"].empty());
}

TEST_F(ExecApprovalsTest, DeniedCommandDoesNotRunAndTheModelIsTold) {
  start(json::array({exec_call("touch denied.txt"), {{"text", "ok"}}}), "tools: { exec: { ask: 'always' } }");
  send("run-deny");
  const json asked = wait_event("exec.approval.requested", "run-deny");
  ASSERT_EQ(client_->request("exec.approval.resolve", {{"id", asked["code"]}, {"decision", "deny"}})["ok"], true);
  wait_event("chat", "run-deny");
  EXPECT_FALSE(fs::exists(workspace() / "denied.txt"));
  EXPECT_NE(mock_log().find("the owner refused to run this command"), std::string::npos);
}

TEST_F(ExecApprovalsTest, NoAnswerWithinTheTimeoutDenies) {
  start(json::array({exec_call("touch late.txt"), {{"text", "ok"}}}),
        "tools: { exec: { ask: 'always' } }, approvals: { timeoutSec: 1 }");
  send("run-timeout");
  const json asked = wait_event("exec.approval.requested", "run-timeout");
  const json resolved = wait_event("exec.approval.resolved");
  EXPECT_EQ(resolved["id"], asked["id"]);
  EXPECT_TRUE(resolved["decision"].is_null());
  wait_event("chat", "run-timeout");
  EXPECT_FALSE(fs::exists(workspace() / "late.txt"));
  EXPECT_NE(mock_log().find("nobody answered the approval request"), std::string::npos);
  // Too late to answer now.
  auto late = client_->request("exec.approval.resolve", {{"id", asked["id"]}, {"decision", "allow-once"}});
  EXPECT_EQ(late["ok"], false);
  EXPECT_EQ(late["error"]["code"], "APPROVAL_NOT_FOUND");
}

TEST_F(ExecApprovalsTest, OwnerRunsWithoutApprovalsByDefault) {
  start(json::array({exec_call("touch free.txt"), {{"text", "ok"}}}), "");
  send("run-free");
  EXPECT_EQ(wait_event("chat", "run-free")["state"], "final");
  EXPECT_TRUE(fs::exists(workspace() / "free.txt"));
}

TEST_F(ExecApprovalsTest, ApprovalsFileGetAndSet) {
  start(json::array(), "");
  auto got = client_->request("exec.approvals.get", json::object());
  ASSERT_EQ(got["ok"], true) << got.dump();
  EXPECT_EQ(got["payload"]["exists"], false);
  json file = {{"version", 1}, {"agents", {{"main", {{"allowlist", json::array({{{"pattern", "git status*"}}})}}}}}};
  auto set = client_->request("exec.approvals.set", {{"file", file}, {"baseHash", got["payload"]["hash"]}});
  ASSERT_EQ(set["ok"], true) << set.dump();
  const fs::path path = home_.path() / "exec-approvals.json";
  EXPECT_EQ(json::parse(slurp(path))["agents"]["main"]["allowlist"][0]["pattern"], "git status*");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  // A stale hash is refused; a bad shape names what is wrong.
  auto stale = client_->request("exec.approvals.set", {{"file", file}, {"baseHash", got["payload"]["hash"]}});
  EXPECT_EQ(stale["error"]["code"], "CONFLICT") << stale.dump();
  auto bad = client_->request("exec.approvals.set", {{"file", {{"defaults", {{"ask", "sometimes"}}}}}});
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("defaults.ask"), std::string::npos) << bad.dump();
}

TEST_F(ExecApprovalsTest, SmartModeRunsWhatTheTriageModelCallsSafe) {
  // Model calls in order: the run (exec), the triage of that command, the run again.
  start(json::array({exec_call("touch triaged.txt"), {{"text", "SAFE: it only creates an empty file"}}, {{"text", "ok"}}}),
        "tools: { exec: { ask: 'always' } }, approvals: { mode: 'smart' }");
  send("run-smart");
  EXPECT_EQ(wait_event("chat", "run-smart")["state"], "final");
  EXPECT_TRUE(fs::exists(workspace() / "triaged.txt"));
  EXPECT_NE(mock_log().find("You review shell commands"), std::string::npos);
  for (const auto& e : client_->events()) EXPECT_NE(e.value("event", ""), "exec.approval.requested");
  EXPECT_NE(gateway_->process().err().find("smart triage"), std::string::npos);
}

TEST_F(ExecApprovalsTest, SmartModeAsksWhenTheTriageAnswerIsUnclear) {
  start(json::array({exec_call("touch unclear.txt"), {{"text", "perhaps?"}}, {{"text", "ok"}}}),
        "tools: { exec: { ask: 'always' } }, approvals: { mode: 'smart' }");
  send("run-unclear");
  const json asked = wait_event("exec.approval.requested", "run-unclear");
  EXPECT_FALSE(fs::exists(workspace() / "unclear.txt"));
  ASSERT_EQ(client_->request("exec.approval.resolve", {{"id", asked["id"]}, {"decision", "allow-once"}})["ok"], true);
  wait_event("chat", "run-unclear");
  EXPECT_TRUE(fs::exists(workspace() / "unclear.txt"));
}

TEST_F(ExecApprovalsTest, ASessionGrantIsListedCountsItsUsesAndOnceRevokedIsAskedAgain) {
  const std::string cmd = "echo x >> grant.txt";
  start(json::array({exec_call(cmd), {{"text", "one"}}, exec_call(cmd), {{"text", "two"}}, exec_call(cmd), {{"text", "three"}}}),
        "tools: { exec: { ask: 'always' } }");
  EXPECT_EQ(client_->request("exec.approval.grants.list", json::object())["payload"]["grants"], json::array());
  send("run-g1");
  const json asked = wait_event("exec.approval.requested", "run-g1");
  auto r = client_->request("exec.approval.resolve",
                            {{"id", asked["id"]}, {"decision", "allow-always"}, {"scope", "session"}, {"ttlMs", 3'600'000}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(wait_event("chat", "run-g1")["state"], "final");
  json grants = client_->request("exec.approval.grants.list", json::object())["payload"]["grants"];
  ASSERT_EQ(grants.size(), 1u) << grants.dump();
  const json g = grants[0];
  EXPECT_EQ(g["command"], cmd);
  EXPECT_EQ(g["mintedByApprovalId"], asked["id"]);
  EXPECT_EQ(g["agentId"], "main");
  EXPECT_EQ(g["scope"], "session");
  EXPECT_EQ(g["sessionKey"], "agent:main:main");
  EXPECT_TRUE(fs::equivalent(fs::path(g["cwd"].get<std::string>()), workspace())) << g.dump();
  EXPECT_EQ(g["useCount"], 0);
  ASSERT_TRUE(g["expiresAtMs"].is_number_integer()) << g.dump();
  EXPECT_GT(g["expiresAtMs"].get<int64_t>(), g["createdAtMs"].get<int64_t>() + 3'000'000);

  send("run-g2");  // covered by the grant: runs unasked
  EXPECT_EQ(wait_event("chat", "run-g2")["state"], "final");
  EXPECT_EQ(slurp(workspace() / "grant.txt"), "x\nx\n");
  grants = client_->request("exec.approval.grants.list", {{"limit", 10}})["payload"]["grants"];
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]["useCount"], 1);
  EXPECT_TRUE(grants[0]["lastUsedAtMs"].is_number_integer());

  const std::string id = g["grantId"];
  EXPECT_EQ(client_->request("exec.approval.grants.revoke", {{"grantId", id}})["payload"]["outcome"], "revoked");
  EXPECT_EQ(client_->request("exec.approval.grants.revoke", {{"grantId", id}})["payload"]["outcome"], "already-revoked");
  EXPECT_EQ(client_->request("exec.approval.grants.revoke", {{"grantId", "nope"}})["payload"]["outcome"], "not-found");
  EXPECT_EQ(client_->request("exec.approval.grants.list", json::object())["payload"]["grants"], json::array());
  auto bad = client_->request("exec.approval.grants.list", {{"limit", 0}});
  EXPECT_EQ(bad["ok"], false) << bad.dump();

  send("run-g3");  // revoked: asked again
  const json again = wait_event("exec.approval.requested", "run-g3");
  ASSERT_EQ(client_->request("exec.approval.resolve", {{"id", again["id"]}, {"decision", "deny"}})["ok"], true);
  wait_event("chat", "run-g3");
  EXPECT_EQ(slurp(workspace() / "grant.txt"), "x\nx\n");
}

// OpenClaw's unified approval.get / approval.resolve over the same requests: the snapshot of a
// pending request, the first answer applied (the command runs), later answers not applied.
TEST_F(ExecApprovalsTest, UnifiedApprovalGetAndResolveFirstAnswerWins) {
  start(json::array({exec_call("echo unified > u.txt"), {{"text", "done"}}}), "tools: { exec: { ask: 'always' } }");
  send("run-unified");
  const json asked = wait_event("exec.approval.requested", "run-unified");
  const std::string id = asked["id"];
  auto got = client_->request("approval.get", {{"id", id}});
  ASSERT_EQ(got["ok"], true) << got.dump();
  const json& pending = got["payload"]["approval"];
  EXPECT_EQ(pending["id"], id);
  EXPECT_EQ(pending["status"], "pending");
  EXPECT_EQ(pending["urlPath"], "/approve/" + id);
  // The urlPath is served: it leads to the web chat, which shows the pending approval.
  const HttpResult page = http_request(gateway_->port(), "GET", pending["urlPath"].get<std::string>());
  EXPECT_EQ(page.status, 302) << page.body;
  EXPECT_EQ(page.headers.count("location") ? page.headers.at("location") : "", "/");
  EXPECT_EQ(pending["presentation"]["kind"], "exec");
  EXPECT_EQ(pending["presentation"]["commandText"], "echo unified > u.txt");
  EXPECT_EQ(pending["presentation"]["agentId"], "main");
  EXPECT_EQ(pending["presentation"]["allowedDecisions"], json::array({"allow-once", "allow-always", "deny"}));
  EXPECT_FALSE(pending["presentation"].contains("cwd"));  // reviewer-safe: no cwd, env or argv
  EXPECT_FALSE(pending.contains("resolvedAtMs"));
  EXPECT_EQ(pending["createdAtMs"], asked["createdAtMs"]);
  // The short code is not an approval id.
  auto by_code = client_->request("approval.get", {{"id", asked["code"]}});
  EXPECT_EQ(by_code["error"]["code"], "INVALID_REQUEST") << by_code.dump();
  EXPECT_EQ(by_code["error"]["details"]["reason"], "APPROVAL_NOT_FOUND");

  auto first = client_->request("approval.resolve", {{"id", id}, {"kind", "exec"}, {"decision", "allow-once"}});
  ASSERT_EQ(first["ok"], true) << first.dump();
  EXPECT_EQ(first["payload"]["applied"], true);
  const json& allowed = first["payload"]["approval"];
  EXPECT_EQ(allowed["status"], "allowed");
  EXPECT_EQ(allowed["decision"], "allow-once");
  EXPECT_EQ(allowed["reason"], "user");
  EXPECT_EQ(allowed["source"], json({{"agentId", "main"}, {"sessionKey", "agent:main:main"}}));
  EXPECT_EQ(allowed["resolver"], json({{"kind", "runtime"}, {"id", "cli"}}));
  EXPECT_TRUE(allowed["resolvedAtMs"].is_number_integer());
  EXPECT_EQ(wait_event("exec.approval.resolved")["decision"], "allow-once");
  EXPECT_EQ(wait_event("chat", "run-unified")["state"], "final");
  EXPECT_EQ(slurp(workspace() / "u.txt"), "unified\n");

  // A later answer, by either method, changes nothing.
  auto second = client_->request("approval.resolve", {{"id", id}, {"kind", "exec"}, {"decision", "deny"}});
  ASSERT_EQ(second["ok"], true) << second.dump();
  EXPECT_EQ(second["payload"]["applied"], false);
  EXPECT_EQ(second["payload"]["approval"]["status"], "allowed");
  EXPECT_EQ(client_->request("exec.approval.resolve", {{"id", id}, {"decision", "deny"}})["error"]["code"], "APPROVAL_NOT_FOUND");
  EXPECT_EQ(client_->request("approval.get", {{"id", id}})["payload"]["approval"]["decision"], "allow-once");
}

// Unknown ids, bad params, an unusable answer (denied: fail closed), an expired request.
TEST_F(ExecApprovalsTest, UnifiedApprovalErrorsMalformedAnswersAndExpiry) {
  start(json::array(), "");
  auto unknown = client_->request("approval.get", {{"id", "no-such-approval"}});
  EXPECT_EQ(unknown["ok"], false);
  EXPECT_EQ(unknown["error"]["code"], "INVALID_REQUEST");
  EXPECT_EQ(unknown["error"]["details"]["reason"], "APPROVAL_NOT_FOUND");
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("approval not found"), std::string::npos);
  auto no_id = client_->request("approval.get", json::object());
  EXPECT_NE(no_id["error"]["message"].get<std::string>().find("invalid approval.get params"), std::string::npos) << no_id.dump();
  auto extra = client_->request("approval.get", {{"id", "x"}, {"kind", "exec"}});
  EXPECT_NE(extra["error"]["message"].get<std::string>().find("kind"), std::string::npos) << extra.dump();
  EXPECT_EQ(client_->request("approval.resolve", {{"id", "nope"}, {"kind", "exec"}, {"decision", "deny"}})["error"]["details"]["reason"],
            "APPROVAL_NOT_FOUND");

  // A request that waits (exec.approval.request, two-phase: its id at once).
  auto ask = [&](const std::string& command, int64_t timeout_ms) {
    auto accepted = client_->request("exec.approval.request",
                                     {{"command", command}, {"timeoutMs", timeout_ms}, {"twoPhase", true}});
    EXPECT_EQ(accepted["payload"]["status"], "accepted") << accepted.dump();
    // Wall-clock milliseconds, not cut to 32 bits (they once were).
    EXPECT_GT(accepted["payload"]["createdAtMs"].get<int64_t>(), int64_t{1'600'000'000'000}) << accepted.dump();
    EXPECT_GT(accepted["payload"]["expiresAtMs"].get<int64_t>(), accepted["payload"]["createdAtMs"].get<int64_t>());
    return accepted["payload"]["id"].get<std::string>();
  };
  const std::string wrong_kind = ask("rm -rf build", 60'000);
  auto forced = client_->request("approval.resolve", {{"id", wrong_kind}, {"kind", "plugin"}, {"decision", "allow-once"}});
  ASSERT_EQ(forced["ok"], true) << forced.dump();
  EXPECT_EQ(forced["payload"]["applied"], true);
  EXPECT_EQ(forced["payload"]["approval"]["status"], "denied");
  EXPECT_EQ(forced["payload"]["approval"]["decision"], "deny");
  EXPECT_EQ(forced["payload"]["approval"]["reason"], "malformed-verdict");
  EXPECT_EQ(wait_event("exec.approval.resolved")["decision"], "deny");

  // A malformed verdict is the caller's error (INVALID_REQUEST naming the field and the allowed
  // values), not an answer: the approval stays pending and a proper answer still decides it.
  const std::string typo = ask("ls /tmp", 60'000);
  auto bad = client_->request("approval.resolve", {{"id", typo}, {"kind", "exec"}, {"decision", "approve"}});
  EXPECT_EQ(bad["ok"], false) << bad.dump();
  EXPECT_EQ(bad["error"]["code"], "INVALID_REQUEST") << bad.dump();
  EXPECT_NE(bad["error"]["message"].get<std::string>().find(
                R"(decision "approve" is not allowed (one of allow-once, allow-always, deny))"),
            std::string::npos)
      << bad.dump();
  auto no_kind = client_->request("approval.resolve", {{"id", typo}, {"decision", "deny"}});
  EXPECT_NE(no_kind["error"]["message"].get<std::string>().find("kind is missing (one of exec, plugin, system-agent)"),
            std::string::npos)
      << no_kind.dump();
  EXPECT_EQ(client_->request("approval.get", {{"id", typo}})["payload"]["approval"]["status"], "pending");
  auto proper = client_->request("approval.resolve", {{"id", typo}, {"kind", "exec"}, {"decision", "deny"}});
  EXPECT_EQ(proper["payload"]["applied"], true) << proper.dump();
  EXPECT_EQ(proper["payload"]["approval"]["reason"], "user") << proper.dump();
  EXPECT_EQ(wait_event("exec.approval.resolved")["id"], typo);

  const std::string late = ask("make", 1'000);
  const json resolved = wait_event("exec.approval.resolved");
  EXPECT_EQ(resolved["id"], late);
  EXPECT_TRUE(resolved["decision"].is_null());
  const json expired = client_->request("approval.get", {{"id", late}})["payload"]["approval"];
  EXPECT_EQ(expired["status"], "expired") << expired.dump();
  EXPECT_EQ(expired["reason"], "timeout");
  EXPECT_FALSE(expired.contains("decision"));
  EXPECT_FALSE(expired.contains("resolver"));
  auto too_late = client_->request("approval.resolve", {{"id", late}, {"kind", "exec"}, {"decision", "allow-once"}});
  EXPECT_EQ(too_late["payload"]["applied"], false) << too_late.dump();
  EXPECT_EQ(too_late["payload"]["approval"]["status"], "expired");

  // approval.history: the ended approvals kept in memory, newest first, OpenClaw's terminal
  // snapshots, paged by nextCursor.
  const json all = client_->request("approval.history", json::object());
  ASSERT_EQ(all["ok"], true) << all.dump();
  const json& items = all["payload"]["items"];
  ASSERT_EQ(items.size(), 3u) << all.dump();
  EXPECT_EQ(items[0]["id"], late);
  EXPECT_EQ(items[0]["status"], "expired");
  EXPECT_EQ(items[1]["id"], typo);
  EXPECT_EQ(items[1]["status"], "denied");
  EXPECT_EQ(items[1]["reason"], "user");
  EXPECT_EQ(items[2]["id"], wrong_kind);
  EXPECT_EQ(items[2]["reason"], "malformed-verdict");
  EXPECT_EQ(items[2]["presentation"]["commandText"], "rm -rf build");
  EXPECT_FALSE(all["payload"].contains("nextCursor"));
  const json page = client_->request("approval.history", {{"limit", 2}})["payload"];
  ASSERT_EQ(page["items"].size(), 2u) << page.dump();
  ASSERT_EQ(page["nextCursor"], typo) << page.dump();
  const json rest = client_->request("approval.history", {{"limit", 2}, {"cursor", typo}})["payload"];
  ASSERT_EQ(rest["items"].size(), 1u) << rest.dump();
  EXPECT_EQ(rest["items"][0]["id"], wrong_kind);
  EXPECT_EQ(client_->request("approval.history", {{"limit", 0}})["error"]["code"], "INVALID_REQUEST");
}

}  // namespace
}  // namespace exec_approvals_test
}  // namespace pincer::test
