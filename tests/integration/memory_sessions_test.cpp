// The sessions corpus and memory settings reloaded while running (issue 13), end to end: the
// real gateway, the mock LLM calling memory_search, real transcripts and a real pincer.json edit.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace memory_sessions_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "memory-sessions-token-0123456789";

std::string sessions_config(const MockLlm& mock, const std::string& memory) {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .top = ",\n  memory: { capture: { enabled: false }, " + memory + " }"});
}

const char* kSessionsOn = "search: { sources: ['memory', 'sessions'], experimental: { sessionMemory: true } }";

class MemorySessionsE2E : public ::testing::Test {
 protected:
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    auto params = connect_params(kToken);
    params["caps"] = json::array({"tool-events"});
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// One turn in `session`; returns the result of its first tool call, parsed when it is JSON.
  json turn(WsClient& c, const std::string& session, const std::string& message, const std::string& run_id) {
    auto ack = c.request("chat.send", {{"sessionKey", session}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    json result;
    for (int i = 0; i < 2000; ++i) {
      std::optional<json> f = c.next_frame(20s);
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "agent" && p.value("stream", "") == "tool" && p["data"].value("phase", "") == "result" &&
          result.is_null()) {
        const json& r = p["data"]["result"];
        result = r.is_string() ? json::parse(r.get<std::string>(), nullptr, false) : r;
        if (result.is_discarded()) result = r;
      }
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        EXPECT_EQ(p["state"], "final") << p.dump();
        return result;
      }
    }
    ADD_FAILURE() << "no terminal event for " << run_id;
    return result;
  }
  static std::string search_sessions(const std::string& query) {
    return "MOCK_TOOL:memory_search:" + json{{"query", query}, {"corpus", "sessions"}}.dump();
  }
  bool wait_log(const std::string& text, std::size_t from) { return gateway_->wait_for_stderr(text, from); }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(MemorySessionsE2E, WhatWasSaidInOneSessionIsFoundInAnotherWithItsKeyAndTurn) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", sessions_config(*mock_, kSessionsOn));
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  turn(*c, "alpha", "good morning", "a1");
  turn(*c, "alpha", "my locker code is 7319-umbrella", "a2");
  const json r = turn(*c, "beta", search_sessions("locker code umbrella"), "b1");
  ASSERT_TRUE(r.is_object() && r.contains("results")) << r.dump();
  const json* hit = nullptr;
  for (const auto& h : r["results"]) {
    if (h.value("snippet", "").find("7319-umbrella") != std::string::npos) hit = &h;
  }
  ASSERT_NE(hit, nullptr) << r.dump();
  EXPECT_EQ((*hit)["source"], "sessions");
  EXPECT_NE((*hit)["sessionKey"].get<std::string>().find("alpha"), std::string::npos) << hit->dump();
  EXPECT_EQ((*hit)["path"].get<std::string>().rfind("sessions/", 0), 0u) << hit->dump();
  EXPECT_LE((*hit)["turn"].get<int>(), 2) << hit->dump();
  EXPECT_GE((*hit).value("turnEnd", (*hit)["turn"].get<int>()), 2) << hit->dump();
  for (const auto& h : r["results"]) EXPECT_EQ(h["source"], "sessions") << r.dump();
}

TEST_F(MemorySessionsE2E, MemorySettingsEditedWhileRunningApplyWithoutARestart) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", sessions_config(*mock_, ""));
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  turn(*c, "alpha", "the spare tyre is in the garage loft", "a1");
  // Off by default: a plain search (it opens the index) does not see the transcript …
  const json plain = turn(*c, "beta", "MOCK_TOOL:memory_search:" + json{{"query", "spare tyre garage"}}.dump(), "b0");
  ASSERT_TRUE(plain.is_object() && plain.contains("results")) << plain.dump();
  EXPECT_EQ(plain.dump().find("garage loft"), std::string::npos) << plain.dump();
  // … and asking for it says it is not enabled.
  const json off = turn(*c, "beta", search_sessions("spare tyre garage"), "b1");
  ASSERT_TRUE(off.is_object()) << off.dump();
  EXPECT_EQ(off.value("unavailable", false), true) << off.dump();

  const std::size_t before = gateway_->process().err().size();
  home_.write("pincer.json", sessions_config(*mock_, kSessionsOn));
  ASSERT_TRUE(wait_log("config reloaded", before)) << "the memory edit was not applied hot";
  EXPECT_EQ(gateway_->process().err().find("restarting the gateway in place", before), std::string::npos);
  EXPECT_TRUE(wait_log("memory settings of agent main changed", before));
  const json on = turn(*c, "beta", search_sessions("spare tyre garage"), "b2");  // same connection: no restart
  ASSERT_TRUE(on.is_object() && on.contains("results")) << on.dump();
  bool found = false;
  for (const auto& h : on["results"]) found = found || h.value("snippet", "").find("garage loft") != std::string::npos;
  EXPECT_TRUE(found) << on.dump();
}

}  // namespace
}  // namespace memory_sessions_test
}  // namespace pincer::test
