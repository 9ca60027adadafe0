// The gateway's protocol core without sockets: a fake ClientLink records what would be sent.
// Covers dispatch-level behaviour that the integration tests cannot reach quickly: per-connection
// event seq, tick, idempotent replays, the control-plane write budget, the unauthorized flood guard.
#include <gtest/gtest.h>

#include "core/clock.h"
#include "gateway/gateway.h"
#include "gateway/protocol/constants.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

class FakeLink final : public ClientLink {
 public:
  void send(std::string text) override { sent.push_back(json::parse(text)); }
  std::size_t buffered_bytes() const override { return buffered; }
  void close(uint16_t code, std::string reason) override {
    close_code = code;
    close_reason = std::move(reason);
  }
  void set_max_message_bytes(std::size_t bytes) override { max_message = bytes; }

  std::vector<json> sent;
  std::size_t buffered = 0;
  uint16_t close_code = 0;
  std::string close_reason;
  std::size_t max_message = 0;
};

class GatewayCoreTest : public ::testing::Test {
 protected:
  GatewayCoreTest() : gateway_(settings(), clock_) {}

  static GatewaySettings settings() {
    GatewaySettings s;
    s.auth.mode = "token";
    s.auth.token = "core-test-token";
    return s;
  }

  ConnId connect(FakeLink& link, std::vector<std::string> scopes = {"operator.admin"}, const std::string& mode = "cli") {
    PeerInfo peer;
    peer.remote_ip = "127.0.0.1";
    peer.loopback = true;
    ConnId id = gateway_.open(link, peer);
    json params = {{"minProtocol", 3},
                   {"maxProtocol", 4},
                   {"client", {{"id", "test"}, {"version", "1"}, {"platform", "linux"}, {"mode", mode}}},
                   {"scopes", scopes},
                   {"auth", {{"token", "core-test-token"}}}};
    gateway_.on_message(id, json{{"type", "req"}, {"id", "c"}, {"method", "connect"}, {"params", params}}.dump());
    bool hello = false;
    for (const auto& f : link.sent) hello |= f["type"] == "res" && f["payload"]["type"] == "hello-ok";
    EXPECT_TRUE(hello);
    return id;
  }

  json call(ConnId id, FakeLink& link, const std::string& method, json params = json::object()) {
    const std::string rid = "r" + std::to_string(++next_);
    gateway_.on_message(id, json{{"type", "req"}, {"id", rid}, {"method", method}, {"params", params}}.dump());
    for (auto it = link.sent.rbegin(); it != link.sent.rend(); ++it) {
      if ((*it)["type"] == "res" && (*it)["id"] == rid) return *it;
    }
    return json();
  }

  ManualClock clock_;
  Gateway gateway_;
  int next_ = 0;
};

TEST_F(GatewayCoreTest, ChallengeFirstAndLimitsRaisedAfterHello) {
  FakeLink link;
  PeerInfo peer;
  ConnId id = gateway_.open(link, peer);
  ASSERT_EQ(link.sent.size(), 1u);
  EXPECT_EQ(link.sent[0]["event"], "connect.challenge");
  EXPECT_EQ(link.max_message, kMaxPreConnectBytes);
  gateway_.on_closed(id);

  FakeLink ok;
  connect(ok);
  EXPECT_EQ(ok.max_message, kMaxPayloadBytes);
}

TEST_F(GatewayCoreTest, EventsCarryAPerConnectionSeq) {
  FakeLink a, b;
  connect(a);
  connect(b);
  gateway_.tick();
  gateway_.tick();
  std::vector<int64_t> seqs;
  for (const auto& f : a.sent) {
    if (f["type"] == "event" && f["event"] == "tick") {
      seqs.push_back(f["seq"]);
      EXPECT_TRUE(f["payload"]["ts"].is_number_integer());
    }
  }
  ASSERT_EQ(seqs.size(), 2u);
  EXPECT_EQ(seqs[1], seqs[0] + 1);
}

TEST_F(GatewayCoreTest, PresenceEventWhenANonCliClientArrivesAndLeaves) {
  FakeLink watcher, app;
  connect(watcher);
  ConnId id = connect(app, {"operator.read"}, "ui");
  auto last_presence = [&] {
    json last;
    for (const auto& f : watcher.sent) {
      if (f["type"] == "event" && f["event"] == "presence") last = f;
    }
    return last;
  };
  EXPECT_TRUE(last_presence().is_null()) << "coalesced until the next flush";
  gateway_.flush_presence();
  json on_join = last_presence();
  ASSERT_FALSE(on_join.is_null());
  EXPECT_EQ(on_join["payload"]["presence"].size(), 2u);  // the gateway itself + the ui client
  EXPECT_TRUE(on_join["stateVersion"]["presence"].is_number_integer());
  gateway_.on_closed(id);
  gateway_.flush_presence();
  EXPECT_EQ(last_presence()["payload"]["presence"].size(), 1u);
  const size_t events = watcher.sent.size();
  gateway_.flush_presence();  // nothing changed: no event
  EXPECT_EQ(watcher.sent.size(), events);
}

TEST_F(GatewayCoreTest, IdempotencyKeyReplaysTheFirstAnswerWithoutRunningAgain) {
  int runs = 0;
  gateway_.mutable_methods().add({"test.effect",
                                  [&](MethodContext&) -> MethodResult { return json{{"run", ++runs}}; },
                                  /*requires_idempotency_key=*/true});
  FakeLink link;
  ConnId id = connect(link);
  EXPECT_EQ(call(id, link, "test.effect")["error"]["message"],
            "invalid test.effect params: must have required property 'idempotencyKey'");
  EXPECT_EQ(call(id, link, "test.effect", {{"idempotencyKey", "k1"}})["payload"]["run"], 1);
  json replay = call(id, link, "test.effect", {{"idempotencyKey", "k1"}});
  EXPECT_EQ(replay["payload"]["run"], 1);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(call(id, link, "test.effect", {{"idempotencyKey", "k2"}})["payload"]["run"], 2);
  clock_.advance(kIdempotencyTtlMs);  // expired: runs again
  EXPECT_EQ(call(id, link, "test.effect", {{"idempotencyKey", "k1"}})["payload"]["run"], 3);
}

TEST_F(GatewayCoreTest, ErrorsAreReplayedToo) {
  int runs = 0;
  gateway_.mutable_methods().add({"test.fail",
                                  [&](MethodContext&) -> MethodResult {
                                    ++runs;
                                    return RpcError::unavailable("boom");
                                  },
                                  true});
  FakeLink link;
  ConnId id = connect(link);
  EXPECT_EQ(call(id, link, "test.fail", {{"idempotencyKey", "k"}})["error"]["message"], "boom");
  EXPECT_EQ(call(id, link, "test.fail", {{"idempotencyKey", "k"}})["error"]["message"], "boom");
  EXPECT_EQ(runs, 1);
}

TEST_F(GatewayCoreTest, ControlPlaneWritesAreLimitedToThreePerMinute) {
  gateway_.mutable_methods().add(
      {"config.testwrite", [](MethodContext&) -> MethodResult { return json{{"ok", true}}; }, false, true});
  FakeLink link;
  ConnId id = connect(link);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(call(id, link, "config.testwrite")["ok"], true) << i;
  json limited = call(id, link, "config.testwrite");
  EXPECT_EQ(limited["error"]["code"], "UNAVAILABLE");
  EXPECT_EQ(limited["error"]["message"], "rate limit exceeded for config.testwrite; retry after 60s");
  EXPECT_EQ(limited["error"]["retryable"], true);
  EXPECT_EQ(limited["error"]["retryAfterMs"], 60000);
  EXPECT_EQ(limited["error"]["details"]["limit"], "3 per 60s");
  clock_.advance(kWriteBudgetWindowMs);
  EXPECT_EQ(call(id, link, "config.testwrite")["ok"], true);
}

TEST_F(GatewayCoreTest, HandlerExceptionsBecomeUnavailable) {
  gateway_.mutable_methods().add(
      {"test.throw", [](MethodContext&) -> MethodResult { throw std::runtime_error("disk on fire"); }});
  FakeLink link;
  ConnId id = connect(link);
  json res = call(id, link, "test.throw");
  EXPECT_EQ(res["error"]["code"], "UNAVAILABLE");
  EXPECT_EQ(res["error"]["message"], "internal error: disk on fire");
}

TEST_F(GatewayCoreTest, RepeatedRoleDenialsCloseTheSocket) {
  // A node-only method this gateway has (a method it does not have is "unknown method" to all).
  gateway_.mutable_methods().add({"node.event", [](MethodContext&) -> MethodResult { return nlohmann::json::object(); }});
  FakeLink link;
  ConnId id = connect(link);
  for (int i = 0; i <= kUnauthorizedFloodLimit; ++i) {
    EXPECT_EQ(call(id, link, "node.event")["error"]["message"], "unauthorized role: operator");
  }
  EXPECT_EQ(link.close_code, kClosePolicy);
  EXPECT_EQ(link.close_reason, "repeated unauthorized calls");
}

TEST_F(GatewayCoreTest, MethodsThisGatewayLacksAreUnknownWhateverTheScopes) {
  FakeLink reader, nobody;
  ConnId r = connect(reader, {"operator.read"});
  ConnId n = connect(nobody, {});
  EXPECT_EQ(call(r, reader, "gateway.stability")["error"]["message"], "unknown method: gateway.stability");
  EXPECT_EQ(call(n, nobody, "node.event")["error"]["message"], "unknown method: node.event");
  EXPECT_EQ(call(n, nobody, "status")["error"]["message"], "missing scope: operator.read");  // it exists
}

TEST_F(GatewayCoreTest, SlowConsumerDropsTicksButClosesForOtherFrames) {
  FakeLink link;
  ConnId id = connect(link);
  link.buffered = kMaxBufferedBytes;
  const std::size_t before = link.sent.size();
  gateway_.tick();
  EXPECT_EQ(link.sent.size(), before);  // dropped, still open
  EXPECT_EQ(link.close_code, 0);
  call(id, link, "status");
  EXPECT_EQ(link.close_code, kClosePolicy);
  EXPECT_EQ(link.close_reason, "slow consumer");
}

TEST_F(GatewayCoreTest, ShutdownAnnouncesAndCloses1001) {
  FakeLink link, pending, late;
  connect(link);
  gateway_.open(pending, PeerInfo{});
  gateway_.shutdown("test");
  EXPECT_EQ(link.sent.back()["event"], "shutdown");
  EXPECT_EQ(link.sent.back()["payload"]["reason"], "test");
  EXPECT_EQ(link.close_code, 0);  // open while running turns drain: it may be waiting for an answer
  EXPECT_EQ(pending.close_code, kCloseGoingAway);  // no event: it never completed the handshake
  EXPECT_EQ(pending.sent.size(), 1u);
  gateway_.open(late, PeerInfo{});
  EXPECT_EQ(late.close_code, kCloseGoingAway);
  gateway_.close_clients();  // the drain is over
  EXPECT_EQ(link.close_code, kCloseGoingAway);  // stopping for good: going away
}

TEST_F(GatewayCoreTest, ARestartClosesWith1012) {
  FakeLink link;
  connect(link);
  gateway_.shutdown("restart", 1500);
  EXPECT_EQ(link.sent.back()["payload"]["restartExpectedMs"], 1500);
  gateway_.close_clients();
  EXPECT_EQ(link.close_code, kCloseServiceRestart);
}

TEST_F(GatewayCoreTest, AgentMethodsWithoutARuntimeAreUnavailable) {
  FakeLink link;
  ConnId id = connect(link);
  json res = call(id, link, "chat.send", {{"sessionKey", "main"}, {"message", "hi"}, {"idempotencyKey", "k"}});
  EXPECT_EQ(res["error"]["code"], "UNAVAILABLE");
  EXPECT_EQ(res["error"]["message"], "agent runtime not available");
  EXPECT_EQ(call(id, link, "chat.send", {{"sessionKey", "main"}, {"idempotencyKey", "k2"}})["error"]["message"],
            "invalid chat.send params: must have required property 'message'");
}

TEST_F(GatewayCoreTest, NodeRoleWithoutDeviceIdentityIsRefused) {
  FakeLink link;
  ConnId id = gateway_.open(link, PeerInfo{"127.0.0.1", true, "", std::nullopt, {}, "", false});
  json params = {{"minProtocol", 3},
                 {"maxProtocol", 4},
                 {"client", {{"id", "node-host"}, {"version", "1"}, {"platform", "linux"}, {"mode", "node"}}},
                 {"role", "node"},
                 {"auth", {{"token", "core-test-token"}}}};
  gateway_.on_message(id, json{{"type", "req"}, {"id", "c"}, {"method", "connect"}, {"params", params}}.dump());
  EXPECT_EQ(link.sent.back()["error"]["code"], "NOT_PAIRED");
  EXPECT_EQ(link.sent.back()["error"]["details"]["code"], "DEVICE_IDENTITY_REQUIRED");
  EXPECT_EQ(link.close_code, kClosePolicy);
}

}  // namespace
}  // namespace pincer::gateway
