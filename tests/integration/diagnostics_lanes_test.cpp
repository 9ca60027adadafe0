// diagnostics.lanes (OpenClaw's Control UI debug page) against the real gateway: the global lanes
// as CommandLaneSnapshots and the per-session lanes summed, idle and with one run held at the mock
// (MOCK_HOLD), one run queued behind it in its own session and one waiting for the main lane's
// only slot (agents.defaults.maxConcurrent 1).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace diagnostics_lanes_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "diagnostics-lanes-token-0123456789";

json lane_named(const json& payload, const std::string& name) {
  for (const auto& l : payload["lanes"]) {
    if (l.value("lane", "") == name) return l;
  }
  return nullptr;
}

TEST(DiagnosticsLanes, GlobalLanesAndSessionLanesAsOpenClawReportsThem) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", mock_config({.token = kToken,
                                         .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"},
                                         .defaults = ", maxConcurrent: 1"}));
  Gateway gateway(home.path());
  struct StderrOnFailure {
    Gateway& g;
    ~StderrOnFailure() {
      if (::testing::Test::HasFailure()) std::cerr << "--- gateway stderr ---\n" << g.process().err() << "\n";
    }
  } on_failure{gateway};
  WsClient client(gateway.port());
  ASSERT_TRUE(handshake(client, connect_params(kToken)));

  auto idle = client.request("diagnostics.lanes");
  ASSERT_EQ(idle["ok"], true) << idle.dump();
  const json& p = idle["payload"];
  EXPECT_TRUE(p["ts"].is_number_integer());
  ASSERT_EQ(p["lanes"].size(), 4u) << p.dump();
  std::vector<std::string> names;
  for (const auto& l : p["lanes"]) names.push_back(l.value("lane", ""));
  EXPECT_EQ(names, (std::vector<std::string>{"cron", "main", "nested", "subagent"}));  // sorted, as OpenClaw's
  const json main_idle = lane_named(p, "main");
  EXPECT_EQ(main_idle, (json{{"lane", "main"}, {"queuedCount", 0}, {"activeCount", 0}, {"maxConcurrent", 1},
                             {"draining", false}, {"generation", 0}}));
  EXPECT_TRUE(p["dynamic"].is_null());

  // A run held mid-stream in session a, a second message for a (behind it in its session), one for b
  // (its session is idle: it waits for the main lane's only slot).
  auto send = [&](const std::string& session, const std::string& message, const std::string& id) {
    auto ack = client.request("chat.send", {{"sessionKey", session}, {"message", message}, {"idempotencyKey", id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  };
  send("a", "first MOCK_HOLD:lanes", "run-a1");
  json busy;
  for (int i = 0; i < 600; ++i) {  // until the run holds the slot (a bound for a loaded machine, not a timing)
    busy = client.request("diagnostics.lanes")["payload"];
    if (lane_named(busy, "main").value("activeCount", 0) == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(lane_named(busy, "main").value("activeCount", 0), 1) << busy.dump();
  send("a", "second", "run-a2");
  send("b", "third", "run-b1");
  busy = client.request("diagnostics.lanes")["payload"];
  const json main_busy = lane_named(busy, "main");
  EXPECT_EQ(main_busy["activeCount"], 1) << busy.dump();
  EXPECT_EQ(main_busy["queuedCount"], 1) << busy.dump();  // b's run; a's second waits in a's own lane
  EXPECT_EQ(lane_named(busy, "cron")["activeCount"], 0);
  EXPECT_EQ(busy["dynamic"], (json{{"laneCount", 2}, {"activeCount", 1}, {"queuedCount", 2}, {"queuedLaneCount", 2}}))
      << busy.dump();

  // Released: all three runs end, and the lanes are idle again.
  http_request(mock.port(), "POST", "/__mock/release?name=lanes");
  json after;
  for (int i = 0; i < 600; ++i) {
    after = client.request("diagnostics.lanes")["payload"];
    if (after["dynamic"].is_null()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(after["dynamic"].is_null()) << after.dump();
  EXPECT_EQ(lane_named(after, "main"), main_idle);
}

}  // namespace
}  // namespace diagnostics_lanes_test
}  // namespace pincer::test
