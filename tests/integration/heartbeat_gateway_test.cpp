// The heartbeat in the real gateway (AT-1; docs/automation.md "The heartbeat") with the mock LLM
// and a short `every`: a beat is a turn in the main session on the heartbeat prompt whose
// HEARTBEAT_OK answer is an acknowledgement (status ok-token, the `heartbeat` event, health);
// outside activeHours and with an effectively empty HEARTBEAT.md the mock gets no request at all;
// `every: "0m"` arms nothing, and a hot reload of pincer.json turns the heartbeat on.
// Delivery to a chat is in tests/channels/telegram_heartbeat.test.mjs. Every wait is for a
// condition (an event, a count) with a generous deadline.
#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "raw_socket.h"
#include "ws_client.h"

namespace pincer::test {
namespace heartbeat_gateway_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "heartbeat-gateway-test-token-0123456789";

/// The mock answers "Hello from the mock LLM. [HEARTBEAT_OK]": the token at the end, 26 other
/// characters — an acknowledgement under the default ackMaxChars (300).
constexpr const char* kAckPrompt = "Heartbeat check ECHO:HEARTBEAT_OK";

std::string config_with(const MockLlm& mock, const std::string& heartbeat) {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}, .defaults = ", heartbeat: " + heartbeat});
}

/// "HH:MM" of the UTC wall clock `hours` from now.
std::string utc_hhmm_in(int hours) {
  const std::time_t t = std::time(nullptr) + hours * 3600;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d:%02d", tm.tm_hour % 24, tm.tm_min % 60);
  return buf;
}

class HeartbeatGatewayTest : public ::testing::Test {
 protected:
  void SetUp() override { mock_ = std::make_unique<MockLlm>(); }
  void start(const std::string& heartbeat, const std::string& heartbeat_md) {
    home_.write("pincer.json", config_with(*mock_, heartbeat));
    if (!heartbeat_md.empty()) home_.write("workspace/HEARTBEAT.md", heartbeat_md);
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  /// Waits for `count` `heartbeat` events (kept in beats_); false on the deadline.
  bool wait_beats(std::size_t count, std::chrono::seconds limit = 40s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (beats_.size() < count && std::chrono::steady_clock::now() < until) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(1s);
      }
      if (f && (*f).value("event", "") == "heartbeat") beats_.push_back((*f)["payload"]);
    }
    return beats_.size() >= count;
  }
  /// The requests the mock answered (chat completions), with their last user message's text.
  std::vector<std::string> mock_user_texts() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<std::string> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") == std::string::npos) continue;
      std::string last;
      for (const auto& m : e["body"]["messages"])
        if (m.value("role", "") == "user") last = m["content"].is_string() ? m["content"].get<std::string>() : m["content"].dump();
      out.push_back(last);
    }
    return out;
  }
  json main_heartbeat() {
    auto health = client_->request("health");
    for (const auto& a : health["payload"]["agents"])
      if (a.value("agentId", "") == "main") return a["heartbeat"];
    return json();
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
  std::vector<json> beats_;
};

TEST_F(HeartbeatGatewayTest, ABeatIsATurnInTheMainSessionAndItsAcknowledgementIsKeptQuiet) {
  start(std::string("{ every: '1s', prompt: '") + kAckPrompt + "' }", "# Heartbeat\n- Check the build status\n");
  ASSERT_TRUE(wait_beats(1)) << "no heartbeat event";
  EXPECT_EQ(beats_[0]["status"], "ok-token") << beats_[0].dump();
  EXPECT_EQ(beats_[0]["agentId"], "main");
  EXPECT_EQ(beats_[0]["indicatorType"], "ok");
  EXPECT_FALSE(beats_[0].contains("preview")) << "nothing delivered";
  const auto texts = mock_user_texts();
  ASSERT_GE(texts.size(), 1u);
  EXPECT_NE(texts[0].find(kAckPrompt), std::string::npos) << texts[0];

  const json hb = main_heartbeat();
  EXPECT_EQ(hb["enabled"], true) << hb.dump();
  EXPECT_EQ(hb["every"], "1s");
  EXPECT_EQ(hb["everyMs"], 1000);
  EXPECT_EQ(hb["target"], "last");
  EXPECT_EQ(hb["ackMaxChars"], 300);
  EXPECT_TRUE(hb["lastRunAtMs"].is_number_integer()) << hb.dump();
  EXPECT_TRUE(hb["lastStatus"].is_string()) << hb.dump();
  EXPECT_EQ(client_->request("health")["payload"]["heartbeatSeconds"], 1);
  auto status = client_->request("status");
  ASSERT_EQ(status["ok"], true);
  EXPECT_EQ(status["payload"]["heartbeat"]["agents"][0]["agentId"], "main");
  EXPECT_EQ(status["payload"]["heartbeat"]["agents"][0]["enabled"], true);

  // The turn is in the agent's main session.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}, {"limit", 10}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  EXPECT_NE(history["payload"]["messages"].dump().find("Heartbeat check"), std::string::npos);
}

TEST_F(HeartbeatGatewayTest, OutsideActiveHoursNoModelCallIsMade) {
  // A one-hour window that starts two hours from now (UTC): now is outside it.
  start("{ every: '1s', prompt: 'ECHO:HEARTBEAT_OK', activeHours: { start: '" + utc_hhmm_in(2) + "', end: '" +
            utc_hhmm_in(3) + "', timezone: 'UTC' } }",
        "- Check the build status\n");
  ASSERT_TRUE(wait_beats(3));
  for (const auto& b : beats_) {
    EXPECT_EQ(b["status"], "skipped") << b.dump();
    EXPECT_EQ(b["reason"], "quiet-hours") << b.dump();
  }
  EXPECT_TRUE(mock_user_texts().empty()) << "no model call outside the window";
}

TEST_F(HeartbeatGatewayTest, AnEmptyHeartbeatFileMakesNoModelCall) {
  start("{ every: '1s', prompt: 'ECHO:HEARTBEAT_OK' }", "# HEARTBEAT.md\n\n<!-- nothing to check yet -->\n- [ ]\n");
  ASSERT_TRUE(wait_beats(3));
  for (const auto& b : beats_) EXPECT_EQ(b["reason"], "empty-heartbeat-file") << b.dump();
  EXPECT_TRUE(mock_user_texts().empty());
}

TEST_F(HeartbeatGatewayTest, AFreshInstallWithoutAWorkspaceYetMakesNoModelCall) {
  // No workspace directory at all: its first run would write the empty HEARTBEAT.md template.
  start("{ every: '1s', prompt: 'ECHO:HEARTBEAT_OK' }", "");
  ASSERT_FALSE(std::filesystem::exists(home_.path() / "workspace"));
  ASSERT_TRUE(wait_beats(3));
  for (const auto& b : beats_) EXPECT_EQ(b["reason"], "empty-heartbeat-file") << b.dump();
  EXPECT_TRUE(mock_user_texts().empty()) << "a fresh install called the model on its own";
}

TEST_F(HeartbeatGatewayTest, OffArmsNothingAndAHotReloadTurnsItOn) {
  start("{ every: '0m' }", "- Check the build status\n");
  json hb = main_heartbeat();
  EXPECT_EQ(hb["enabled"], false) << hb.dump();
  EXPECT_EQ(hb["every"], "disabled");
  ASSERT_TRUE(hb.contains("nextDueAtMs")) << "the heartbeat runtime's summary, not a placeholder: " << hb.dump();
  EXPECT_EQ(hb["nextDueAtMs"], nullptr) << "no timer while off";
  EXPECT_EQ(client_->request("health")["payload"]["heartbeatSeconds"], 0);

  home_.write("pincer.json", config_with(*mock_, std::string("{ every: '1s', prompt: '") + kAckPrompt + "' }"));
  ASSERT_TRUE(wait_beats(1)) << "the reloaded config starts the heartbeat";
  EXPECT_EQ(beats_[0]["status"], "ok-token") << beats_[0].dump();
  EXPECT_EQ(main_heartbeat()["everyMs"], 1000);
  EXPECT_GE(mock_user_texts().size(), 1u);
}

}  // namespace
}  // namespace heartbeat_gateway_test
}  // namespace pincer::test
