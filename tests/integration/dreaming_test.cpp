// Dreaming in the real gateway (SPEC DR-1, DR-2, DR-5): memory_search tool calls of an
// interactive session (the mock LLM calls the tool) fill the recall store; the managed sweep job
// is in the cron list, a run of it is a sweep (diary, phase reports; no model turn); a reload that
// turns dreaming off removes the job. Waits on the gateway's `cron` events, never on a timer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway_process.h"
#include "mock_config.h"
#include "raw_socket.h"
#include "ws_client.h"

namespace pincer::test {
namespace dreaming_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "dreaming-test-token-0123456789";

std::string dreaming_config(const MockLlm& mock, bool enabled) {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .top = std::string(",\n  memory: { capture: { enabled: false } },\n") +
                             "  plugins: { entries: { 'memory-core': { config: { dreaming: { enabled: " + (enabled ? "true" : "false") +
                             ", timezone: 'UTC' } } } } }"});
}

std::string dreaming_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// How many requests the mock LLM has answered (its /health).
int dreaming_model_requests(const MockLlm& mock) {
  auto r = raw_exchange(mock.port(), "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return json::parse(r.body).value("requests", -1);
}

class DreamingE2E : public ::testing::Test {
 protected:
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// One turn whose model calls memory_search with `query`; waits for the final chat event.
  void search_turn(WsClient& c, const std::string& session, const std::string& query, const std::string& run_id) {
    const std::string msg = "MOCK_TOOL:memory_search:" + json{{"query", query}}.dump();
    auto ack = c.request("chat.send", {{"sessionKey", session}, {"message", msg}, {"idempotencyKey", run_id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 2000; ++i) {
      std::optional<json> f = c.next_frame(20s);
      ASSERT_TRUE(f) << "no final event for " << run_id;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] != "delta") {
        ASSERT_EQ(p["state"], "final") << p.dump();
        return;
      }
    }
  }
  /// The next `cron` event with `action` (skipping others), within 60 s.
  std::optional<json> cron_event(WsClient& c, const std::string& action) {
    for (int i = 0; i < 1000; ++i) {
      std::optional<json> f = c.next_frame(60s);
      if (!f) return std::nullopt;
      if ((*f).value("event", "") == "cron" && (*f)["payload"].value("action", "") == action) return (*f)["payload"];
    }
    return std::nullopt;
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(DreamingE2E, RecallsAreTrackedAndTheManagedJobRunsASweep) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", dreaming_config(*mock_, true));
  home_.write("workspace/memory/2026-11-20.md", "# 2026-11-20\n\n- The build server nimbus runs Debian.\n");
  gateway_ = std::make_unique<Gateway>(home_.path());
  const fs::path ws = home_.path() / "workspace";
  auto c = client();

  // Two queries in the main session: the store counts both; a subagent-style key is not ingested.
  search_turn(*c, "main", "nimbus", "s1");
  search_turn(*c, "main", "Debian server", "s2");
  const json store = json::parse(dreaming_read(ws / "memory/.dreams/short-term-recall.json"));
  ASSERT_EQ(store["entries"].size(), 1u) << store.dump(2);
  const json& e = store["entries"].begin().value();
  EXPECT_EQ(e["path"], "memory/2026-11-20.md");
  EXPECT_EQ(e["recallCount"], 2);
  EXPECT_EQ(e["queryHashes"].size(), 2u);

  // The managed job is listed, in OpenClaw's shape.
  auto list = c->request("cron.list", {{"includeDisabled", true}});
  ASSERT_EQ(list["ok"], true) << list.dump();
  std::string id;
  for (const auto& j : list["payload"]["jobs"]) {
    if (j.value("declarationKey", "") == "memory-core:memory-dreaming-promotion") id = j.value("id", "");
  }
  ASSERT_FALSE(id.empty()) << list.dump(2);

  // A run of it is a sweep: no model turn, the diary and the phase reports are written.
  const int model_calls = dreaming_model_requests(*mock_);
  auto run = c->request("cron.run", {{"id", id}});
  ASSERT_EQ(run["ok"], true) << run.dump();
  auto finished = cron_event(*c, "finished");
  ASSERT_TRUE(finished);
  EXPECT_EQ((*finished)["status"], "ok") << finished->dump();
  EXPECT_NE((*finished).value("summary", "").find("staged 1"), std::string::npos) << finished->dump();
  EXPECT_EQ(dreaming_model_requests(*mock_), model_calls);
  const std::string diary = dreaming_read(ws / "DREAMS.md");
  EXPECT_NE(diary.find("## Light Sleep"), std::string::npos) << diary;
  EXPECT_NE(diary.find("## Deep Sleep"), std::string::npos) << diary;
  EXPECT_EQ(dreaming_read(ws / "MEMORY.md").find("pincer-dreaming-promotion"), std::string::npos)
      << "two recalls do not pass the gates";
  EXPECT_TRUE(fs::exists(ws / "memory/.dreams/phase-signals.json"));

  // Dreaming turned off by a reload: the job goes.
  home_.write("pincer.json", dreaming_config(*mock_, false));
  auto removed = cron_event(*c, "removed");
  ASSERT_TRUE(removed) << gateway_->process().err();
  EXPECT_EQ((*removed)["jobId"], id);
}

TEST_F(DreamingE2E, DisabledDreamingWritesNothingOnSearch) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", dreaming_config(*mock_, false));
  home_.write("workspace/memory/2026-11-20.md", "# 2026-11-20\n\n- The build server nimbus runs Debian.\n");
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  search_turn(*c, "main", "nimbus", "s1");
  EXPECT_FALSE(fs::exists(home_.path() / "workspace/memory/.dreams"));
  auto list = c->request("cron.list", {{"includeDisabled", true}});
  EXPECT_EQ(list["payload"]["jobs"].size(), 0u) << list.dump();
}

}  // namespace
}  // namespace dreaming_test
}  // namespace pincer::test
