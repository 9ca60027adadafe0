// OpenClaw's `wake` and `set-heartbeats` gateway methods (AT-1; methods/heartbeat.cpp) in the real
// gateway with the mock LLM: a wake's text reaches the model request of the main session's beat
// (mode now at once; next-heartbeat waits for the next beat), set-heartbeats {enabled:false}
// stops every beat (timed and woken) until {enabled:true}; bad params name the field; both
// methods are advertised in hello-ok. Every wait is for a condition with a generous deadline.
#include <chrono>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "raw_socket.h"
#include "ws_client.h"

namespace pincer::test {
namespace heartbeat_wake_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kToken = "heartbeat-wake-test-token-0123456789";

class HeartbeatWakeTest : public ::testing::Test {
 protected:
  void SetUp() override { mock_ = std::make_unique<MockLlm>(); }
  void start(const std::string& every) {
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url()},
                             .defaults = ", heartbeat: { every: '" + every + "', prompt: 'Heartbeat check ECHO:HEARTBEAT_OK' }"}));
    home_.write("workspace/HEARTBEAT.md", "# Heartbeat\n- Check the build status\n");
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    auto res = handshake(*client_, connect_params(kToken));
    ASSERT_TRUE(res);
    hello_ = (*res)["payload"];
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  /// The chat-completion requests the mock received, each as its body's JSON text.
  std::vector<std::string> model_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<std::string> out;
    for (auto& e : json::parse(r.body))
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e["body"].dump());
    return out;
  }
  std::size_t requests_containing(const std::string& needle) {
    std::size_t n = 0;
    for (const auto& body : model_requests()) n += body.find(needle) != std::string::npos;
    return n;
  }
  bool eventually(const std::function<bool()>& cond, std::chrono::seconds limit = 30s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (cond()) return true;
      std::this_thread::sleep_for(100ms);
    }
    return cond();
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
  json hello_;
};

TEST_F(HeartbeatWakeTest, WakeQueuesTheTextForTheMainSessionAndModeNowBeatsAtOnce) {
  start("1h");  // no timed beat during the test
  const json methods = hello_["features"]["methods"];
  EXPECT_NE(std::find(methods.begin(), methods.end(), "wake"), methods.end());
  EXPECT_NE(std::find(methods.begin(), methods.end(), "set-heartbeats"), methods.end());

  auto later = client_->request("wake", {{"mode", "next-heartbeat"}, {"text", "Printer is out of paper"}});
  ASSERT_EQ(later["ok"], true) << later.dump();
  EXPECT_EQ(later["payload"], json({{"ok", true}}));
  std::this_thread::sleep_for(1500ms);
  EXPECT_TRUE(model_requests().empty()) << "next-heartbeat waits for the next beat";

  auto now = client_->request("wake", {{"mode", "now"}, {"text", "Deploy finished on staging"}});
  ASSERT_EQ(now["ok"], true) << now.dump();
  ASSERT_TRUE(eventually([&] { return requests_containing("Deploy finished on staging") >= 1; })) << "no beat";
  const auto bodies = model_requests();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_NE(bodies[0].find("Printer is out of paper"), std::string::npos) << "the earlier event rides along: " << bodies[0];
  EXPECT_NE(bodies[0].find("Heartbeat check"), std::string::npos) << "a beat (the heartbeat prompt): " << bodies[0];

  // The beat ran in the main session.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}, {"limit", 10}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  EXPECT_NE(history["payload"]["messages"].dump().find("Deploy finished on staging"), std::string::npos);
}

TEST_F(HeartbeatWakeTest, SetHeartbeatsOffStopsEveryBeatUntilOnAgain) {
  start("1s");
  auto off = client_->request("set-heartbeats", {{"enabled", false}});
  ASSERT_EQ(off["ok"], true) << off.dump();
  EXPECT_EQ(off["payload"], json({{"ok", true}, {"enabled", false}}));
  std::this_thread::sleep_for(1500ms);  // a beat that had already started before the call ends
  const std::size_t before = model_requests().size();
  EXPECT_EQ(client_->request("wake", {{"mode", "now"}, {"text", "Paused wake"}})["ok"], true);
  std::this_thread::sleep_for(3500ms);  // three intervals
  EXPECT_EQ(model_requests().size(), before) << "heartbeats off: no beat ran, timed or woken";

  auto on = client_->request("set-heartbeats", {{"enabled", true}});
  ASSERT_EQ(on["ok"], true) << on.dump();
  EXPECT_EQ(on["payload"]["enabled"], true);
  ASSERT_TRUE(eventually([&] { return requests_containing("Paused wake") >= 1; })) << "the next beat after on takes the event";
}

TEST_F(HeartbeatWakeTest, PausedHeartbeatsAreReportedPausedByHealthAndStatus) {
  start("1h");
  auto beat_of = [&](const char* method) {
    auto r = client_->request(method, json::object());
    EXPECT_EQ(r["ok"], true) << r.dump();
    return method == std::string("health") ? r["payload"]["agents"][0]["heartbeat"] : r["payload"]["heartbeat"]["agents"][0];
  };
  EXPECT_EQ(beat_of("health").value("paused", true), false);
  EXPECT_TRUE(beat_of("status")["nextDueAtMs"].is_number_integer());
  ASSERT_EQ(client_->request("set-heartbeats", {{"enabled", false}})["ok"], true);
  for (const char* method : {"health", "status"}) {
    const json beat = beat_of(method);
    EXPECT_EQ(beat["paused"], true) << method << " " << beat.dump();
    EXPECT_TRUE(beat["nextDueAtMs"].is_null()) << method << ": no beat is due while paused: " << beat.dump();
    EXPECT_EQ(beat["enabled"], true) << "the config's setting: " << beat.dump();
  }
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()},
                                                  {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
                                                  {"PINCER_GATEWAY_TOKEN", "\x01"},
                                                  {"PINCER_GATEWAY_URL", "\x01"}};
  auto status = run_pincer({"status"}, env, 30s);
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("Heartbeat main: paused (set-heartbeats; every 1h once resumed)"), std::string::npos) << status.out;
  auto health = run_pincer({"health"}, env, 30s);
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_NE(health.out.find("heartbeats paused (set-heartbeats); resume them with: "), std::string::npos) << health.out;
  EXPECT_NE(health.out.find("gateway call set-heartbeats --params '{\"enabled\":true}'"), std::string::npos) << health.out;

  ASSERT_EQ(client_->request("set-heartbeats", {{"enabled", true}})["ok"], true);
  EXPECT_EQ(beat_of("health")["paused"], false);
  EXPECT_TRUE(beat_of("status")["nextDueAtMs"].is_number_integer());
  auto resumed = run_pincer({"status"}, env, 30s);
  EXPECT_NE(resumed.out.find("Heartbeat main: every 1h, next in"), std::string::npos) << resumed.out;
  EXPECT_EQ(run_pincer({"health"}, env, 30s).out.find("paused"), std::string::npos);
}

TEST_F(HeartbeatWakeTest, BadParamsNameTheField) {
  start("1h");
  auto expect_invalid = [&](const std::string& method, const json& params, const std::string& field) {
    auto r = client_->request(method, params);
    ASSERT_EQ(r["ok"], false) << method << " " << params.dump();
    EXPECT_EQ(r["error"]["code"], "INVALID_REQUEST") << r.dump();
    EXPECT_NE(r["error"]["message"].get<std::string>().find(field), std::string::npos) << r.dump();
  };
  expect_invalid("wake", json::object(), "mode");
  expect_invalid("wake", {{"mode", "soon"}, {"text", "x"}}, "/mode");
  expect_invalid("wake", {{"mode", "now"}}, "text");
  expect_invalid("wake", {{"mode", "now"}, {"text", "   "}}, "/text");
  expect_invalid("wake", {{"mode", "now"}, {"text", "x"}, {"agentId", "ghost"}}, "/agentId");
  expect_invalid("wake", {{"mode", "now"}, {"text", "x"}, {"sessionKey", "agent:main:subagent:abc"}}, "/sessionKey");
  expect_invalid("set-heartbeats", json::object(), "enabled");
  expect_invalid("set-heartbeats", {{"enabled", "yes"}}, "/enabled");
  EXPECT_TRUE(model_requests().empty()) << "a refused wake queues nothing and beats nothing";
}

}  // namespace
}  // namespace heartbeat_wake_test
}  // namespace pincer::test
