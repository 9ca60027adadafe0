// The real `pincer` binary on an ephemeral port, spoken to over a real WebSocket (issue #2 §4):
// handshake, auth failures and their close codes, frame validation, scopes, HTTP probes.
#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace gateway_handshake_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "test-token-0123456789abcdef";

std::string token_config(const std::string& extra_gateway = "") {
  return std::string("{ gateway: { auth: { mode: 'token', token: '") + kToken + "' }, " + extra_gateway + " } }";
}

class GatewayTest : public ::testing::Test {
 protected:
  void SetUp() override { home_.write("pincer.json", token_config()); }
  Gateway& gateway() {
    if (!gw_) gw_ = std::make_unique<Gateway>(home_.path());
    return *gw_;
  }
  /// Opens a socket and reads the connect.challenge.
  std::unique_ptr<WsClient> open() {
    auto c = std::make_unique<WsClient>(gateway().port());
    auto challenge = c->recv();
    EXPECT_TRUE(challenge.has_value());
    if (challenge) {
      EXPECT_EQ((*challenge)["event"], "connect.challenge");
    }
    return c;
  }
  /// Opens and completes the handshake; returns the hello-ok payload.
  std::unique_ptr<WsClient> connected(const std::vector<std::string>& scopes = {"operator.admin"}) {
    auto c = open();
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, scopes)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true) << (res ? res->dump() : "no response");
    return c;
  }

  TempDir home_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(GatewayTest, ChallengeThenConnectGivesHelloOk) {
  WsClient c(gateway().port());
  auto challenge = c.recv();
  ASSERT_TRUE(challenge);
  EXPECT_EQ((*challenge)["type"], "event");
  EXPECT_EQ((*challenge)["event"], "connect.challenge");
  EXPECT_EQ((*challenge)["payload"]["nonce"].get<std::string>().size(), 36u);
  EXPECT_TRUE((*challenge)["payload"]["ts"].is_number_integer());
  EXPECT_FALSE(challenge->contains("seq"));

  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = c.recv_response("c1");
  ASSERT_TRUE(res);
  ASSERT_EQ((*res)["ok"], true) << res->dump();
  const json& hello = (*res)["payload"];
  EXPECT_EQ(hello["type"], "hello-ok");
  EXPECT_EQ(hello["protocol"], 4);
  EXPECT_EQ(hello["server"]["connId"].get<std::string>().size(), 36u);
  auto methods = hello["features"]["methods"];
  for (const char* m : {"health", "status", "config.get", "config.schema", "logs.tail"}) {
    EXPECT_NE(std::find(methods.begin(), methods.end(), m), methods.end()) << m;
  }
  auto events = hello["features"]["events"];
  for (const char* e : {"tick", "health", "presence", "shutdown"}) {
    EXPECT_NE(std::find(events.begin(), events.end(), e), events.end()) << e;
  }
  EXPECT_EQ(hello["policy"]["maxPayload"], 26214400);
  EXPECT_EQ(hello["policy"]["maxBufferedBytes"], 52428800);
  EXPECT_EQ(hello["policy"]["tickIntervalMs"], 30000);
  EXPECT_EQ(hello["snapshot"]["health"]["ok"], true);
  EXPECT_EQ(hello["snapshot"]["authMode"], "token");
  EXPECT_EQ(hello["snapshot"]["sessionDefaults"]["mainSessionKey"], "agent:main:main");
  EXPECT_EQ(hello["snapshot"]["presence"][0]["mode"], "gateway");
  EXPECT_EQ(hello["auth"]["role"], "operator");

  auto health = c.request("health");
  EXPECT_EQ(health["ok"], true);
  EXPECT_EQ(health["payload"]["ok"], true);
}

TEST_F(GatewayTest, NegotiatesProtocol3ForOlderClients) {
  auto c = open();
  auto params = connect_params(kToken);
  params["minProtocol"] = 3;
  params["maxProtocol"] = 3;
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = c->recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["payload"]["protocol"], 3);
}

TEST_F(GatewayTest, WrongTokenIsRefusedWithAuthTokenMismatchAndClose1008) {
  auto c = open();
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params("wrong-token-xyz")}});
  auto res = c->recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["ok"], false);
  EXPECT_EQ((*res)["error"]["code"], "INVALID_REQUEST");
  EXPECT_EQ((*res)["error"]["details"]["code"], "AUTH_TOKEN_MISMATCH");
  EXPECT_NE((*res)["error"]["message"].get<std::string>().find("token mismatch"), std::string::npos);
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
}

TEST_F(GatewayTest, MissingTokenIsAuthTokenMissing) {
  auto c = open();
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params("")}});
  auto res = c->recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["details"]["code"], "AUTH_TOKEN_MISSING");
  EXPECT_EQ(c->wait_closed()->code, 1008);
}

TEST_F(GatewayTest, NonConnectFirstFrameClosesWith1008) {
  auto c = open();
  c->send_json({{"type", "req"}, {"id", "h1"}, {"method", "health"}});
  auto res = c->recv_response("h1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["message"], "invalid handshake: first request must be connect");
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
  EXPECT_EQ(closed->reason, "invalid handshake: first request must be connect");
}

TEST_F(GatewayTest, GarbageFirstFrameClosesWith1008) {
  auto c = open();
  c->send_text("{not json");
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
}

TEST_F(GatewayTest, ExtraTopLevelKeyIsRejected) {
  // Before the handshake: no answer, close 1008.
  auto first = open();
  first->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}, {"extra", 1}});
  EXPECT_EQ(first->wait_closed()->code, 1008);

  // After it: an INVALID_REQUEST answer naming the key; the socket stays usable.
  auto c = connected();
  c->send_json({{"type", "req"}, {"id", "x1"}, {"method", "health"}, {"bogus", true}});
  auto res = c->recv_response("x1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["ok"], false);
  EXPECT_EQ((*res)["error"]["code"], "INVALID_REQUEST");
  EXPECT_EQ((*res)["error"]["message"], "invalid request frame: unexpected property \"bogus\"");
  EXPECT_EQ(c->request("health")["ok"], true);
}

TEST_F(GatewayTest, ClientTextCannotForgeLogLines) {
  auto bad = open();
  bad->send_text(R"({"type":"req","id":"x","method":"connect","a\n2026-01-01 info FORGED LINE\u001b[31m":1})");
  EXPECT_TRUE(bad->wait_closed());
  auto c = connected();
  auto res = c->request("logs.tail", {{"limit", 100}});
  ASSERT_EQ(res["ok"], true);
  for (const auto& line : res["payload"]["lines"]) {
    const std::string text = line;
    EXPECT_NE(text.rfind("2026-01-01 info FORGED", 0), 0u) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  }
}

TEST_F(GatewayTest, InvalidConnectParamsNameTheField) {
  auto c = open();
  auto params = connect_params(kToken);
  params.erase("minProtocol");
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = c->recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["message"], "invalid connect params: must have required property 'minProtocol'");
  EXPECT_EQ(c->wait_closed()->code, 1008);
}

TEST_F(GatewayTest, ProtocolOutOfRangeClosesWith1002) {
  auto c = open();
  auto params = connect_params(kToken);
  params["minProtocol"] = 5;
  params["maxProtocol"] = 6;
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = c->recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["message"], "protocol mismatch");
  EXPECT_EQ((*res)["error"]["details"]["expectedProtocol"], 4);
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1002);
}

TEST_F(GatewayTest, SecondConnectIsRefusedWithoutClosing) {
  auto c = connected();
  c->send_json({{"type", "req"}, {"id", "c2"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = c->recv_response("c2");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["message"], "connect is only valid as the first request");
  EXPECT_EQ(c->request("health")["ok"], true);
}

TEST_F(GatewayTest, ScopesAreEnforcedPerMethod) {
  auto reader = connected({"operator.read"});
  EXPECT_EQ(reader->request("status")["ok"], true);
  EXPECT_EQ(reader->request("config.get")["ok"], true);  // explicitly read, despite the config.* rule
  auto denied = reader->request("sessions.delete", {{"key", "main"}});  // unclassified → admin (default-deny)
  EXPECT_EQ(denied["error"]["message"], "missing scope: operator.admin");
  // OpenClaw v4's shape: FORBIDDEN with the scope in structured details.
  EXPECT_EQ(denied["error"]["code"], "FORBIDDEN");
  EXPECT_EQ(denied["error"]["details"],
            (json{{"code", "MISSING_SCOPE"}, {"missingScope", "operator.admin"}, {"requiredScopes", {"operator.admin"}}}));
  // A method the gateway does not have is unknown to every caller, not a scope problem.
  EXPECT_EQ(reader->request("tts.status")["error"]["message"], "unknown method: tts.status");
  EXPECT_EQ(reader->request("no.such.method")["error"]["message"], "unknown method: no.such.method");
  EXPECT_EQ(connected({})->request("gateway.stability")["error"]["message"], "unknown method: gateway.stability");

  auto admin = connected({"operator.admin"});
  EXPECT_EQ(admin->request("no.such.method")["error"]["message"], "unknown method: no.such.method");

  auto nobody = connected({});
  EXPECT_EQ(nobody->request("status")["error"]["message"], "missing scope: operator.read");
  EXPECT_EQ(nobody->request("health")["ok"], true);  // health is always allowed
}

TEST_F(GatewayTest, ConfigGetRedactsSecretsAndSchemaIsServed) {
  auto c = connected();
  auto cfg = c->request("config.get");
  ASSERT_EQ(cfg["ok"], true) << cfg.dump();
  EXPECT_EQ(cfg["payload"]["exists"], true);
  EXPECT_EQ(cfg["payload"]["config"]["gateway"]["auth"]["token"], "__PINCER_REDACTED__");
  EXPECT_EQ(cfg["payload"]["config"]["gateway"]["port"], 18789);  // default filled in
  EXPECT_EQ(cfg.dump().find(kToken), std::string::npos);

  auto schema = c->request("config.schema");
  ASSERT_EQ(schema["ok"], true);
  EXPECT_EQ(schema["payload"]["schema"]["properties"]["gateway"]["properties"]["port"]["default"], 18789);
}

TEST_F(GatewayTest, LogsTailReturnsRecentLinesWithoutSecrets) {
  auto c = connected();
  auto res = c->request("logs.tail", {{"limit", 50}});
  ASSERT_EQ(res["ok"], true) << res.dump();
  const json& p = res["payload"];
  EXPECT_GT(p["size"].get<int64_t>(), 0);
  EXPECT_EQ(p["cursor"], p["size"]);
  std::string all;
  for (const auto& line : p["lines"]) all += line.get<std::string>() + "\n";
  EXPECT_NE(all.find("listening"), std::string::npos) << all;
  EXPECT_EQ(all.find(kToken), std::string::npos);

  auto bad = c->request("logs.tail", {{"limit", 0}});
  EXPECT_EQ(bad["error"]["message"], "invalid logs.tail params: /limit must be an integer in 1..5000");
}

TEST_F(GatewayTest, HttpProbes) {
  auto live = http_request(gateway().port(), "GET", "/healthz");
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(json::parse(live.body), json({{"ok", true}, {"status", "live"}}));
  EXPECT_EQ(http_request(gateway().port(), "GET", "/health").status, 200);
  auto ready = http_request(gateway().port(), "GET", "/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.headers["cache-control"], "no-store");
  auto head = http_request(gateway().port(), "HEAD", "/healthz");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  auto post = http_request(gateway().port(), "POST", "/healthz");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.headers["allow"], "GET, HEAD");
  EXPECT_EQ(http_request(gateway().port(), "GET", "/no-such-page").status, 404);
}

TEST_F(GatewayTest, ForeignBrowserOriginIsRefused) {
  WsClient c(gateway().port(), {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(c.recv());
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = c.recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ((*res)["error"]["details"]["code"], "CONTROL_UI_ORIGIN_NOT_ALLOWED");
  EXPECT_EQ(c.wait_closed()->code, 1008);
}

TEST_F(GatewayTest, OversizedPreConnectFrameIsRefused) {
  auto c = open();
  c->send_text(std::string(70 * 1024, 'x'));
  auto closed = c->wait_closed();
  ASSERT_TRUE(closed);
  // 1009 (message too big, pre-connect cap 64 KiB); the rest of the frame is drained, not reset.
  EXPECT_EQ(closed->code, 1009) << closed->reason;
}

TEST_F(GatewayTest, SilentClientIsClosedAfterHandshakeTimeout) {
  auto c = open();
  auto closed = c->wait_closed(15s);  // the gateway allows 10 s
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
  EXPECT_EQ(closed->reason, "handshake timeout");
}

TEST(GatewayAuthRateLimit, RepeatedFailuresLockTheClientOut) {
  TempDir home;
  home.write("pincer.json", token_config().replace(token_config().find("auth: {") + 7, 0,
                                                   " rateLimit: { maxAttempts: 2, exemptLoopback: false },"));
  Gateway gw(home.path());
  auto attempt = [&](const std::string& token) {
    WsClient c(gw.port());
    c.recv();
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(token)}});
    return c.recv_response("c1").value_or(json());
  };
  EXPECT_EQ(attempt("bad-token-1")["error"]["details"]["code"], "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(attempt("bad-token-2")["error"]["details"]["code"], "AUTH_TOKEN_MISMATCH");
  auto locked = attempt(kToken);  // even the right token is refused during the lockout
  EXPECT_EQ(locked["error"]["details"]["code"], "AUTH_RATE_LIMITED");
  EXPECT_EQ(locked["error"]["retryable"], true);
  EXPECT_GT(locked["error"]["retryAfterMs"].get<int64_t>(), 0);
}

}  // namespace
}  // namespace gateway_handshake_test
}  // namespace pincer::test
