// Cron jobs in the real gateway (AT-2; docs/automation.md): the cron.* methods in OpenClaw's
// shapes and the `cron` event; a manual run of an agentTurn job in its own session `cron:<id>`
// (run history, job state); an `at` job that fires by itself, also across a restart between its
// creation and its time; a hand edit of cron/jobs.json picked up while running; a systemEvent
// job's line in the main session's next turn; `pincer cron …` on the file and through the gateway.
// Every wait is for a condition with a generous deadline.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace cron_gateway_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "cron-gateway-test-token-0123456789";

std::string config_for(const MockLlm& mock) {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}});
}

template <class Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = 40s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string message_text_of(const json& message) {
  std::string out;
  if (message.contains("content") && message["content"].is_array()) {
    for (const auto& b : message["content"])
      if (b.value("type", "") == "text") out += b.value("text", "");
  } else if (message.contains("content") && message["content"].is_string()) {
    out = message["content"];
  }
  return out;
}

json turn_job(const std::string& name, json schedule, const std::string& message) {
  return json{{"name", name},
              {"schedule", std::move(schedule)},
              {"sessionTarget", "isolated"},
              {"payload", {{"kind", "agentTurn"}, {"message", message}}}};
}

class CronGatewayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", config_for(*mock_));
    start();
  }
  void start() { gateway_ = std::make_unique<Gateway>(home_.path()); }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  json call(const std::string& method, const json& params = json::object()) {
    auto c = client();
    return c->request(method, params);
  }
  /// The job's run history, newest first (empty when none yet).
  json runs_of(const std::string& id) {
    auto r = call("cron.runs", {{"id", id}});
    return r["ok"] == true ? r["payload"]["entries"] : json::array();
  }
  /// Adds `job`, runs it now and waits for its first run entry: {id, entries} (entries empty on failure).
  std::pair<std::string, json> add_and_run(const json& job) {
    auto added = call("cron.add", job);
    EXPECT_EQ(added["ok"], true) << added.dump();
    if (added["ok"] != true) return {"", json::array()};
    const std::string id = added["payload"]["id"];
    EXPECT_EQ(call("cron.run", {{"id", id}})["ok"], true);
    json entries;
    EXPECT_TRUE(eventually([&] { return !(entries = runs_of(id)).empty(); })) << gateway_->process().err();
    return {id, entries};
  }
  std::map<std::string, std::string> cli_env() const {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_ ? gateway_->port() : 1)},
            {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}};
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(CronGatewayTest, MethodsInOpenClawShapesAndAManualRunInItsOwnSession) {
  auto status = call("cron.status");
  ASSERT_EQ(status["ok"], true) << status.dump();
  EXPECT_EQ(status["payload"]["enabled"], true);
  EXPECT_EQ(status["payload"]["jobs"], 0);
  EXPECT_EQ(status["payload"]["nextWakeAtMs"], nullptr) << "no job: nothing armed";

  auto bad = call("cron.add", turn_job("bad", {{"kind", "cron"}, {"expr", "0 25 * * *"}}, "x"));
  ASSERT_EQ(bad["ok"], false);
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("schedule.expr: hour: 25"), std::string::npos) << bad.dump();

  auto watcher = client();  // sees the `cron` events
  auto added = watcher->request("cron.add", turn_job("check", {{"kind", "every"}, {"everyMs", 3600000}}, "check in ECHO:cronrun"));
  ASSERT_EQ(added["ok"], true) << added.dump();
  const std::string id = added["payload"]["id"];
  EXPECT_EQ(added["payload"]["name"], "check");
  EXPECT_TRUE(added["payload"]["state"]["nextRunAtMs"].is_number_integer());

  auto list = call("cron.list");
  ASSERT_EQ(list["payload"]["jobs"].size(), 1u) << list.dump();
  EXPECT_EQ(list["payload"]["total"], 1);
  EXPECT_EQ(list["payload"]["hasMore"], false);
  EXPECT_TRUE(call("cron.status")["payload"]["nextWakeAtMs"].is_number_integer());

  auto run = watcher->request("cron.run", {{"id", id}});
  ASSERT_EQ(run["ok"], true) << run.dump();
  EXPECT_EQ(run["payload"]["enqueued"], true);
  json entries;
  ASSERT_TRUE(eventually([&] { return !(entries = runs_of(id)).empty(); })) << gateway_->process().err();
  EXPECT_EQ(entries[0]["status"], "ok") << entries.dump();
  EXPECT_EQ(entries[0]["summary"], "Hello from the mock LLM. [cronrun]");
  EXPECT_EQ(entries[0]["sessionKey"], "agent:main:cron:" + id);
  EXPECT_TRUE(entries[0]["durationMs"].is_number_integer());
  auto history = call("chat.history", {{"sessionKey", "cron:" + id}});
  ASSERT_EQ(history["ok"], true);
  bool replied = false;
  for (const auto& m : history["payload"]["messages"])
    replied = replied || message_text_of(m) == "Hello from the mock LLM. [cronrun]";
  EXPECT_TRUE(replied) << history.dump();
  auto job = call("cron.get", {{"id", id}});
  EXPECT_EQ(job["payload"]["state"]["lastStatus"], "ok") << job.dump();
  // The events of the run reached the watching client.
  bool started = false, finished = false;
  ASSERT_TRUE(eventually([&] {
    while (auto f = watcher->recv(100ms)) {
      if (f->value("event", "") != "cron") continue;
      started = started || (*f)["payload"]["action"] == "started";
      finished = finished || (*f)["payload"]["action"] == "finished";
    }
    for (const auto& f : watcher->events()) {
      if (f.value("event", "") != "cron") continue;
      started = started || f["payload"]["action"] == "started";
      finished = finished || f["payload"]["action"] == "finished";
    }
    return started && finished;
  }, 10s));

  auto off = call("cron.update", {{"id", id}, {"patch", {{"enabled", false}}}});
  ASSERT_EQ(off["ok"], true) << off.dump();
  EXPECT_EQ(off["payload"]["enabled"], false);
  EXPECT_EQ(call("cron.list")["payload"]["jobs"].size(), 0u);
  EXPECT_EQ(call("cron.list", {{"includeDisabled", true}})["payload"]["jobs"].size(), 1u);
  auto removed = call("cron.remove", {{"id", id}});
  EXPECT_EQ(removed["payload"]["removed"], true);
  EXPECT_EQ(call("cron.get", {{"id", id}})["ok"], false);
}

TEST_F(CronGatewayTest, AWebhookDeliveryPostsTheFinishedRunAndABlockedOneFailsTheRun) {
  // The receiver is on loopback: allowed only by the policy (a job's URL may come from the agent).
  gateway_.reset();
  std::string cfg = config_for(*mock_);
  cfg.replace(cfg.rfind('}'), 1, ", cron: { webhookToken: 'cron-hook-secret', webhookSsrfPolicy: { "
                                 "allowedHostnames: ['127.0.0.1'] } } }");
  home_.write("pincer.json", cfg);
  start();
  const std::string receiver = "http://127.0.0.1:" + std::to_string(mock_->port()) + "/__mock/receiver/cron";
  json job = turn_job("digest", {{"kind", "every"}, {"everyMs", 3600000}}, "deploy digest ECHO:digest");
  job["delivery"] = {{"mode", "webhook"}, {"to", receiver}};
  const auto [id, entries] = add_and_run(job);
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0]["status"], "ok") << entries.dump();
  EXPECT_EQ(entries[0]["deliveryStatus"], "delivered") << entries.dump();
  json posted;
  for (const auto& r : json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body))
    if (r.value("path", "") == "/__mock/receiver/cron") posted = r;
  ASSERT_TRUE(posted.is_object()) << "nothing reached the receiver";
  EXPECT_EQ(posted["receivedAuthorization"], "Bearer cron-hook-secret");
  EXPECT_EQ(posted["body"]["jobId"], id);
  EXPECT_EQ(posted["body"]["action"], "finished");
  EXPECT_EQ(posted["body"]["status"], "ok");
  EXPECT_EQ(posted["body"]["summary"], "Hello from the mock LLM. [digest]");

  // A receiver answering 500 fails the run (no bestEffort); one on a host the policy does not
  // allow is never contacted.
  json failing = turn_job("failing", {{"kind", "every"}, {"everyMs", 3600000}}, "x ECHO:f");
  failing["delivery"] = {{"mode", "webhook"}, {"to", receiver + "?status=500"}};
  const std::string failing_id = call("cron.add", failing)["payload"]["id"];
  json blocked = turn_job("blocked", {{"kind", "every"}, {"everyMs", 3600000}}, "y ECHO:b");
  blocked["delivery"] = {{"mode", "webhook"}, {"to", "http://localhost:" + std::to_string(mock_->port()) + "/__mock/receiver/blocked"}};
  const std::string blocked_id = call("cron.add", blocked)["payload"]["id"];
  ASSERT_EQ(call("cron.run", {{"id", failing_id}})["ok"], true);
  ASSERT_EQ(call("cron.run", {{"id", blocked_id}})["ok"], true);
  ASSERT_TRUE(eventually([&] { return !runs_of(failing_id).empty() && !runs_of(blocked_id).empty(); }));
  const json f = runs_of(failing_id)[0], b = runs_of(blocked_id)[0];
  EXPECT_EQ(f["status"], "error") << f.dump();
  EXPECT_NE(f.value("deliveryError", "").find("HTTP 500"), std::string::npos) << f.dump();
  EXPECT_EQ(b["status"], "error") << b.dump();
  EXPECT_NE(b.value("deliveryError", "").find("private or loopback"), std::string::npos) << b.dump();
  for (const auto& r : json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body))
    EXPECT_NE(r.value("path", ""), "/__mock/receiver/blocked") << "the blocked URL was contacted";
}

TEST_F(CronGatewayTest, AnAtJobFiresAfterARestartBetweenItsCreationAndItsTime) {
  json job = turn_job("soon", {{"kind", "at"}, {"at", wall_now_ms() + 3000}}, "the time has come ECHO:fired");
  auto added = call("cron.add", job);
  ASSERT_EQ(added["ok"], true) << added.dump();
  const std::string id = added["payload"]["id"];
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(20s));
  start();  // before or after its time: either way it runs once
  json entries;
  ASSERT_TRUE(eventually([&] { return !(entries = runs_of(id)).empty(); })) << gateway_->process().err();
  EXPECT_EQ(entries[0]["status"], "ok") << entries.dump();
  EXPECT_EQ(entries[0]["summary"], "Hello from the mock LLM. [fired]");
  auto after = call("cron.get", {{"id", id}});
  EXPECT_EQ(after["payload"]["enabled"], false) << "a one-shot job is done: " << after.dump();
  EXPECT_EQ(call("cron.status")["payload"]["nextWakeAtMs"], nullptr);
  EXPECT_EQ(runs_of(id).size(), 1u) << "ran once";
}

TEST_F(CronGatewayTest, HandEditsOfTheJobFileApplyWhileRunning) {
  json job = turn_job("byhand", {{"kind", "at"}, {"at", wall_now_ms() + 1500}}, "edited by hand ECHO:byhand");
  job["id"] = "byhand";
  std::filesystem::create_directories(home_.path() / "cron");
  {
    std::ofstream out(home_.path() / "cron" / "jobs.json.tmp");
    out << json{{"version", 1}, {"jobs", json::array({job})}}.dump(2);
  }
  std::filesystem::rename(home_.path() / "cron" / "jobs.json.tmp", home_.path() / "cron" / "jobs.json");
  json entries;
  ASSERT_TRUE(eventually([&] { return !(entries = runs_of("byhand")).empty(); })) << gateway_->process().err();
  EXPECT_EQ(entries[0]["summary"], "Hello from the mock LLM. [byhand]");
}

TEST_F(CronGatewayTest, ASystemEventReachesTheMainSessionsNextTurn) {
  auto added = call("cron.add", {{"name", "note"},
                                 {"schedule", {{"kind", "every"}, {"everyMs", 3600000}}},
                                 {"sessionTarget", "main"},
                                 {"wakeMode", "next-heartbeat"},
                                 {"payload", {{"kind", "systemEvent"}, {"text", "the plants need water"}}}});
  ASSERT_EQ(added["ok"], true) << added.dump();
  const std::string id = added["payload"]["id"];
  ASSERT_EQ(call("cron.run", {{"id", id}})["payload"]["enqueued"], true);
  ASSERT_TRUE(eventually([&] { return !runs_of(id).empty(); }));
  auto c = client();
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "good morning"}, {"idempotencyKey", "sys-1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  std::string user;
  ASSERT_TRUE(eventually([&] {
    auto h = call("chat.history", {{"sessionKey", "main"}});
    for (const auto& m : h["payload"]["messages"])
      if (m.value("role", "") == "user") user = message_text_of(m);
    return !user.empty();
  }));
  EXPECT_EQ(user.rfind("System: [", 0), 0u) << user;
  EXPECT_NE(user.find("UTC] the plants need water\n\ngood morning"), std::string::npos) << user;
}

TEST_F(CronGatewayTest, TheCliWorksOnTheFileAndThroughTheGateway) {
  auto env = cli_env();
  auto add = run_pincer({"cron", "add", "--name", "plants", "--cron", "0 8 * * *", "--tz", "Europe/Berlin", "--message",
                         "water the plants", "--json"},
                        env, 30s);
  ASSERT_EQ(add.exit_code, 0) << add.out << add.err;
  const json job = json::parse(add.out, nullptr, false);
  ASSERT_TRUE(job.is_object()) << add.out;
  const std::string id = job["id"];
  EXPECT_EQ(job["delivery"]["mode"], "announce");
  EXPECT_EQ(job["delivery"]["channel"], "last");
  auto list = run_pincer({"cron", "list"}, env, 30s);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("plants"), std::string::npos) << list.out;
  auto bad = run_pincer({"cron", "add", "--every", "soon", "--message", "x"}, env, 30s);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--every"), std::string::npos) << bad.err;
  EXPECT_EQ(run_pincer({"cron", "disable", id}, env, 30s).exit_code, 0);
  EXPECT_EQ(call("cron.get", {{"id", id}})["payload"]["enabled"], false);

  // Without a gateway the same commands edit the file.
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(20s));
  gateway_.reset();
  env = cli_env();
  auto offline = run_pincer({"cron", "enable", id}, env, 30s);
  EXPECT_EQ(offline.exit_code, 0) << offline.err;
  std::ifstream in(home_.path() / "cron" / "jobs.json");
  const json file = json::parse(in, nullptr, false);
  ASSERT_TRUE(file.is_object());
  EXPECT_EQ(file["jobs"][0]["enabled"], true);
  auto run = run_pincer({"cron", "run", id}, env, 30s);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("only in the gateway"), std::string::npos) << run.err;
  EXPECT_EQ(run_pincer({"cron", "rm", id}, env, 30s).exit_code, 0);
  auto gone = run_pincer({"cron", "list", "--all", "--json"}, env, 30s);
  EXPECT_EQ(json::parse(gone.out, nullptr, false)["jobs"].size(), 0u) << gone.out;

  // Offline, --json prints JSON only (the scheduler's log lines go to stderr).
  auto quiet = run_pincer({"cron", "add", "--name", "q", "--every", "1h", "--system-event", "x", "--disabled", "--json"},
                          env, 30s);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_TRUE(json::parse(quiet.out, nullptr, false).is_object()) << quiet.out;
  // A sub-second --every is a typo, not a schedule: every run is a model call.
  auto typo = run_pincer({"cron", "add", "--every", "20", "--system-event", "x"}, env, 30s);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("at least 1s"), std::string::npos) << typo.err;
  // A hand edit that gives fields the wrong type is listed INVALID (terminal-safe), not a crash.
  home_.write("cron/jobs.json", R"({"version": 1, "jobs": [
    {"id": "typed", "name": 5, "enabled": true, "schedule": {"kind": "every", "everyMs": "45s"},
     "sessionTarget": "main", "wakeMode": "now", "payload": {"kind": "systemEvent", "text": "x"}},
    {"id": "esc", "name": "bell\u001b]0;pwned\u0007", "enabled": true, "schedule": {"kind": "every", "everyMs": 60000},
     "sessionTarget": "main", "wakeMode": "now", "payload": {"kind": "systemEvent", "text": "x"}}]})");
  auto typed = run_pincer({"cron", "list", "--all"}, env, 30s);
  EXPECT_EQ(typed.exit_code, 0) << typed.err;
  EXPECT_NE(typed.out.find("typed"), std::string::npos) << typed.out;
  EXPECT_NE(typed.out.find("INVALID"), std::string::npos) << typed.out;
  EXPECT_EQ(typed.out.find('\x1b'), std::string::npos) << typed.out;
}

// A time limit under a millisecond is still a limit (it became 0 ms, which means "none given", and
// the turn ran to its end).
TEST_F(CronGatewayTest, ATimeoutBelowAMillisecondStillLimitsTheTurn) {
  json job = turn_job("hasty", {{"kind", "every"}, {"everyMs", 3600000}}, "take your time MOCK_SLOW:100 ECHO:hasty");
  job["payload"]["timeoutSeconds"] = 0.0001;
  const auto [id, entries] = add_and_run(job);
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0]["status"], "error") << entries.dump();
  EXPECT_NE(entries[0].dump().find("timeout"), std::string::npos) << entries.dump();
}

}  // namespace
}  // namespace cron_gateway_test
}  // namespace pincer::test
