// The gateway's method surface as OpenClaw's clients see it (GW-7, GW-8): every method hello-ok
// advertises exists; config.set|patch|apply with baseHash, redaction placeholders, comments kept
// and the control-plane write budget; the Control UI's channel pairing, branch, presence and
// heartbeat reads. The real gateway binary, the mock LLM, a real WebSocket client.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace openclaw_surface_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "oc-surface-token-0123456789abcdef";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

class OpenClawSurfaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{});
    home_.write("pincer.json", "// the user's own comment, kept by config.patch\n" +
                                   mock_config({.token = kToken,
                                                .provider = {.base_url = mock_->base_url(),
                                                             .models = "{ id: 'mock-model', contextWindow: 64000 }"},
                                                .top = ",\n  channels: { telegram: { botToken: '123:abc', enabled: false } }"}));
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(json* hello = nullptr) {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    auto params = connect_params(kToken);
    params["scopes"] = {"operator.admin"};
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    if (hello && res) *hello = (*res)["payload"];
    return c;
  }
  std::filesystem::path config_file() const { return home_.path() / "pincer.json"; }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(OpenClawSurfaceTest, EveryAdvertisedMethodExists) {
  json hello;
  auto c = client(&hello);
  const json& methods = hello["features"]["methods"];
  ASSERT_GT(methods.size(), 80u);
  for (const auto& m : methods) {
    const std::string method = m;
    // Empty params: most methods refuse them, none may answer "unknown method". (The config
    // writes are refused for their params after the write budget is charged: harmless here.)
    auto res = c->request(method, json::object());
    ASSERT_TRUE(res.contains("ok")) << method << ": no answer " << res.dump();
    if (res["ok"] == true) continue;
    EXPECT_EQ(res["error"]["message"].get<std::string>().rfind("unknown method", 0), std::string::npos)
        << method << " is advertised but unknown: " << res.dump();
  }
  EXPECT_EQ(c->request("no.such.method")["error"]["message"], "unknown method: no.such.method");
}

TEST_F(OpenClawSurfaceTest, ConfigPatchNeedsTheBaseHashAndIsBudgeted) {
  auto c = client();
  auto got = c->request("config.get");
  ASSERT_EQ(got["ok"], true) << got.dump();
  const std::string hash = got["payload"]["hash"];
  EXPECT_EQ(hash, ids::sha256_hex(read_text(config_file())));

  const std::string raw = "{ agents: { defaults: { timeoutSeconds: 321 } } }";
  auto missing = c->request("config.patch", {{"raw", raw}});
  EXPECT_EQ(missing["error"]["message"], "config base hash required; re-run config.get and retry") << missing.dump();
  auto stale = c->request("config.patch", {{"raw", raw}, {"baseHash", std::string(64, '0')}});
  EXPECT_EQ(stale["error"]["message"], "config changed since last load; re-run config.get and retry") << stale.dump();
  EXPECT_EQ(stale["error"]["details"]["code"], "CONFLICT");

  EXPECT_EQ(read_text(config_file()).find("321"), std::string::npos) << "a refused write changed the file";
  // The third write of the minute goes through; the fourth is over the control-plane write budget
  // (GW-8: 3 a minute per client), refused before it is looked at.
  auto third = c->request("config.patch", {{"raw", raw}, {"baseHash", hash}});
  ASSERT_EQ(third["ok"], true) << third.dump();
  auto limited = c->request("config.patch", {{"raw", "{ agents: { defaults: { timeoutSeconds: 7 } } }"},
                                             {"baseHash", third["payload"]["hash"]}});
  EXPECT_EQ(limited["error"]["code"], "UNAVAILABLE") << limited.dump();
  EXPECT_EQ(limited["error"]["retryable"], true);
  EXPECT_TRUE(limited["error"]["retryAfterMs"].is_number_integer());
  EXPECT_EQ(read_text(config_file()).find("timeoutSeconds: 7"), std::string::npos) << "a limited write changed the file";
}

TEST_F(OpenClawSurfaceTest, ConfigPatchWritesLeafByLeaf) {
  auto c = client();
  const std::string hash = c->request("config.get")["payload"]["hash"];
  auto res = c->request("config.patch", {{"raw", "{ agents: { defaults: { timeoutSeconds: 321 } }, "
                                                 "channels: { telegram: null } }"},
                                         {"baseHash", hash}});
  ASSERT_EQ(res["ok"], true) << res.dump();
  const std::string text = read_text(config_file());
  EXPECT_NE(text.find("// the user's own comment, kept by config.patch"), std::string::npos) << text;
  EXPECT_NE(text.find("321"), std::string::npos) << text;
  EXPECT_EQ(text.find("telegram"), std::string::npos) << text;
  EXPECT_EQ(res["payload"]["hash"], ids::sha256_hex(text));
  EXPECT_EQ(res["payload"]["changedPaths"], json::array({"agents.defaults.timeoutSeconds", "channels.telegram"}));
  EXPECT_EQ(res["payload"]["config"]["gateway"]["auth"]["token"], "__PINCER_REDACTED__");
  EXPECT_FALSE(res["payload"].contains("restart")) << "hot changes need no restart: " << res.dump();
  // The same patch again changes nothing.
  auto again = c->request("config.patch", {{"raw", "{ agents: { defaults: { timeoutSeconds: 321 } } }"},
                                           {"baseHash", res["payload"]["hash"]}});
  ASSERT_EQ(again["ok"], true) << again.dump();
  EXPECT_EQ(again["payload"]["noop"], true);
  EXPECT_EQ(read_text(config_file()), text);
}

TEST_F(OpenClawSurfaceTest, ConfigSetKeepsRedactedSecretsAndRefusesInvalidConfigs) {
  auto c = client();
  const std::string hash = c->request("config.get")["payload"]["hash"];
  // What a UI sends back after showing config.get: the token as its placeholder.
  json doc = {{"gateway", {{"auth", {{"token", "__PINCER_REDACTED__"}}}}},
              {"models", {{"providers", {{"mock", {{"baseUrl", mock_->base_url()}, {"apiKey", "__OPENCLAW_REDACTED__"},
                                                   {"api", "openai-completions"},
                                                   {"models", {{{"id", "mock-model"}, {"contextWindow", 64000}}}}}}}}}},
              {"agents", {{"defaults", {{"model", {{"primary", "mock/mock-model"}}}, {"timeoutSeconds", 99}}}}}};
  auto bad = c->request("config.set", {{"raw", json{{"gateway", {{"port", "not a port"}}}}.dump()}, {"baseHash", hash}});
  EXPECT_EQ(bad["ok"], false) << bad.dump();
  EXPECT_EQ(bad["error"]["details"]["code"], "CONFIG_INVALID") << bad.dump();
  auto res = c->request("config.set", {{"raw", doc.dump()}, {"baseHash", hash}});
  ASSERT_EQ(res["ok"], true) << res.dump();
  const json written = json::parse(read_text(config_file()));
  EXPECT_EQ(written["gateway"]["auth"]["token"], kToken);
  EXPECT_EQ(written["models"]["providers"]["mock"]["apiKey"], "k");
  EXPECT_EQ(written["agents"]["defaults"]["timeoutSeconds"], 99);
  // A placeholder where the file has nothing cannot be turned into a secret.
  auto invented = c->request("config.set", {{"raw", json{{"gateway", {{"auth", {{"password", "__PINCER_REDACTED__"}}}}}}.dump()},
                                            {"baseHash", res["payload"]["hash"]}});
  EXPECT_NE(invented["error"]["message"].get<std::string>().find("gateway.auth.password: a redacted value was sent back"),
            std::string::npos)
      << invented.dump();
}

TEST_F(OpenClawSurfaceTest, ChannelPairingRequestsAreListedAndApproved) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  home_.write("channels/pairing.json",
              json{{"pending", {{{"channel", "telegram"}, {"account", "default"}, {"senderId", "42"}, {"username", "ann"},
                                 {"code", "ABCD2345"}, {"createdAt", now}}}},
                   {"approved", json::object()}}
                  .dump());
  auto c = client();
  auto list = c->request("channels.pairing.list");
  ASSERT_EQ(list["ok"], true) << list.dump();
  ASSERT_EQ(list["payload"]["requests"].size(), 1u) << list.dump();
  const json& r = list["payload"]["requests"][0];
  EXPECT_EQ(r["requestId"], "ABCD2345");
  EXPECT_EQ(r["senderId"], "42");
  EXPECT_EQ(r["metadata"]["username"], "ann");
  EXPECT_EQ(list["payload"]["limits"]["pendingPerAccount"], 3);
  auto wrong = c->request("channels.pairing.approve", {{"channel", "telegram"}, {"accountId", "other"}, {"requestId", "ABCD2345"}});
  EXPECT_EQ(wrong["error"]["message"], "pending DM access request no longer exists");
  auto ok = c->request("channels.pairing.approve", {{"channel", "telegram"}, {"accountId", "default"}, {"requestId", "abcd2345"}});
  ASSERT_EQ(ok["ok"], true) << ok.dump();
  EXPECT_EQ(ok["payload"], (json{{"requestId", "abcd2345"}, {"senderId", "42"}, {"notification", "not-requested"},
                                  {"commandOwnerBootstrap", "not-requested"}}));
  const json store = json::parse(read_text(home_.path() / "channels/pairing.json"));
  EXPECT_EQ(store["pending"].size(), 0u);
  EXPECT_EQ(store["approved"]["telegram:default"], json::array({"42"}));
}

TEST_F(OpenClawSurfaceTest, BranchesPresenceAndHeartbeatReads) {
  auto c = client();
  EXPECT_EQ(c->request("sessions.branches.list", {{"sessionKey", "main"}})["payload"], (json{{"branches", json::array()}}));
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "hi ECHO:b"}, {"idempotencyKey", "b1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  for (int i = 0; i < 2000; ++i) {
    auto f = c->recv(20s);
    ASSERT_TRUE(f) << "no final chat event";
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] == "final") break;
  }
  auto branches = c->request("sessions.branches.list", {{"sessionKey", "agent:main:main"}});
  ASSERT_EQ(branches["ok"], true) << branches.dump();
  ASSERT_EQ(branches["payload"]["branches"].size(), 1u) << branches.dump();
  EXPECT_EQ(branches["payload"]["branches"][0]["active"], true);
  EXPECT_EQ(branches["payload"]["branches"][0]["headline"], "hi ECHO:b");
  EXPECT_EQ(branches["payload"]["branches"][0]["messageCount"], 1);

  auto presence = c->request("system-presence");
  ASSERT_EQ(presence["ok"], true) << presence.dump();
  EXPECT_EQ(presence["payload"][0]["mode"], "gateway");
  EXPECT_EQ(c->request("last-heartbeat")["payload"], nullptr);
  EXPECT_EQ(c->request("node.list")["payload"]["nodes"], json::array());
}

}  // namespace
}  // namespace openclaw_surface_test
}  // namespace pincer::test
