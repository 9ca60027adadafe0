// `pincer cron` defects a new-user tester found, with the real binary and gateway: the same bad
// input fails with the same exit code (2, docs/cli.md) and message with and without a running
// gateway (an unknown agent or channel, a sub-second interval through cron.add); `cron edit --tz`
// alone changes the job's zone; `cron disable` keeps the run record; a broken cron/jobs.json is
// named (path and line) by `cron list` and `doctor` and never written over by the gateway.
// Every wait is for a condition with a generous deadline.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace cron_cli_hardening_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kCronHardeningToken = "cron-hardening-test-token-0123456789";

std::string cron_hardening_config() {
  return std::string("{ gateway: { auth: { token: '") + kCronHardeningToken + "' } },\n" +
         "  agents: { list: [ { id: 'main' }, { id: 'work' } ] } }\n";
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CronCliHardeningTest : public ::testing::Test {
 protected:
  void SetUp() override { home_.write("pincer.json", cron_hardening_config()); }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  void start() {
    gateway_ = std::make_unique<Gateway>(home_.path());
    running_ = true;
  }
  void stop() {
    gateway_->process().signal(SIGTERM);
    ASSERT_TRUE(gateway_->process().wait(20s));
    running_ = false;
  }
  std::map<std::string, std::string> env() const {
    return {{"PINCER_HOME", home_.path().string()},
            {"PINCER_GATEWAY_PORT", std::to_string(running_ ? gateway_->port() : 1)},
            {"PINCER_GATEWAY_TOKEN", "\x01"},
            {"PINCER_GATEWAY_URL", "\x01"}};
  }
  RunResult cron(std::vector<std::string> args) {
    args.insert(args.begin(), "cron");
    return run_pincer(args, env(), 30s);
  }
  json call(const std::string& method, const json& params) {
    WsClient c(gateway_->port());
    EXPECT_TRUE(c.recv());
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kCronHardeningToken)}});
    auto res = c.recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c.request(method, params);
  }
  std::filesystem::path jobs_file() const { return home_.path() / "cron" / "jobs.json"; }

  TempDir home_;
  std::unique_ptr<Gateway> gateway_;
  bool running_ = false;
};

TEST_F(CronCliHardeningTest, BadInputFailsAlikeWithAndWithoutTheGateway) {
  struct Outcome {
    int code;
    std::string err;
  };
  auto bad_inputs = [&] {
    std::vector<Outcome> out;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"add", "--every", "1h", "--message", "x", "--agent", "ghost"},
             {"add", "--every", "1h", "--message", "x", "--channel", "telegarm", "--to", "1"},
             {"edit", "no-such-job", "--name", "y"}}) {
      auto r = cron(args);
      out.push_back({r.exit_code, r.err});
    }
    return out;
  };
  start();
  // The methods refuse a sub-second interval as the CLI does (one rule).
  auto fast = call("cron.add", {{"name", "fast"},
                                {"schedule", {{"kind", "every"}, {"everyMs", 500}}},
                                {"sessionTarget", "main"},
                                {"payload", {{"kind", "systemEvent"}, {"text", "x"}}}});
  ASSERT_EQ(fast["ok"], false) << fast.dump();
  EXPECT_NE(fast["error"]["message"].get<std::string>().find("schedule.everyMs: at least 1000 (1 s), got 500 ms"),
            std::string::npos)
      << fast.dump();
  const auto online = bad_inputs();
  stop();
  const auto offline = bad_inputs();
  ASSERT_EQ(online.size(), offline.size());
  for (std::size_t i = 0; i < online.size(); ++i) {
    EXPECT_EQ(online[i].code, offline[i].code) << i << ": " << online[i].err << " / " << offline[i].err;
  }
  EXPECT_EQ(online[0].err.find("no gateway answers"), std::string::npos) << "through the gateway: " << online[0].err;
  EXPECT_NE(offline[0].err.find("no gateway answers"), std::string::npos) << "on the file: " << offline[0].err;
  EXPECT_EQ(online[0].code, 2);
  EXPECT_NE(online[0].err.find("agentId: unknown agent \"ghost\" (configured: \"main\", \"work\""), std::string::npos)
      << online[0].err;
  EXPECT_NE(offline[0].err.find("agentId: unknown agent \"ghost\""), std::string::npos) << offline[0].err;
  EXPECT_EQ(online[1].code, 2);
  EXPECT_NE(online[1].err.find("delivery.channel: \"telegarm\" is not a configured channel"), std::string::npos)
      << online[1].err;
  EXPECT_EQ(online[2].code, 1) << "an unknown job id is not bad input: " << online[2].err;
  EXPECT_FALSE(std::filesystem::exists(jobs_file()) && read_all(jobs_file()).find("ghost") != std::string::npos);
}

// A named channel without --to has no chat to announce to (only `last` brings one): refused at
// add, naming both flags, instead of a job whose every run fails to deliver.
TEST_F(CronCliHardeningTest, AddWithAChannelButNoRecipientIsRefusedNamingBothFlags) {
  auto r = cron({"add", "--name", "nowhere", "--every", "1h", "--message", "x", "--channel", "telegram"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("pincer: cron add: --channel telegram needs --to CHAT"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(jobs_file()) && read_all(jobs_file()).find("nowhere") != std::string::npos);
  // `last` brings its chat: added (with the no-chat-yet warning).
  auto last = cron({"add", "--name", "to-last", "--every", "1h", "--message", "x", "--channel", "last"});
  EXPECT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.err.find("has no chat to announce to yet"), std::string::npos) << last.err;
}

TEST_F(CronCliHardeningTest, AnUnknownZoneIsRefusedWithADurationAtToo) {
  // `--at 20m` is an instant (no zone needed), but a zone kept with it must be real: a later edit
  // of the time uses it (and failed on a field the user never touched).
  auto r = cron({"add", "--name", "mars", "--at", "20m", "--tz", "Mars/Olympus", "--message", "x", "--no-deliver"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--tz: unknown time zone 'Mars/Olympus'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(jobs_file()) && read_all(jobs_file()).find("Mars") != std::string::npos);
  auto ok = cron({"add", "--name", "berlin", "--at", "20m", "--tz", "Europe/Berlin", "--message", "x", "--no-deliver"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(CronCliHardeningTest, EditTzAloneAndDisableKeepsTheRecord) {
  start();
  auto add = cron({"add", "--name", "eight", "--cron", "0 8 * * *", "--tz", "UTC", "--system-event", "x", "--json"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  const std::string id = json::parse(add.out)["id"];
  auto tz = cron({"edit", id, "--tz", "Europe/Berlin", "--json"});
  ASSERT_EQ(tz.exit_code, 0) << tz.err;
  const json edited = json::parse(tz.out);
  EXPECT_EQ(edited["schedule"]["tz"], "Europe/Berlin");
  EXPECT_EQ(edited["schedule"]["expr"], "0 8 * * *");
  // A manual run gives the job a record; disabling it keeps it.
  ASSERT_EQ(cron({"run", id}).exit_code, 0);
  json job;
  const auto until = std::chrono::steady_clock::now() + 40s;
  while (std::chrono::steady_clock::now() < until) {
    job = call("cron.get", {{"id", id}})["payload"];
    if (job["state"].contains("lastRunAtMs")) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(job["state"].contains("lastRunAtMs")) << job.dump();
  auto off = cron({"disable", id, "--json"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const json disabled = json::parse(off.out);
  EXPECT_EQ(disabled["enabled"], false);
  EXPECT_EQ(disabled["state"]["lastRunAtMs"], job["state"]["lastRunAtMs"]) << disabled.dump();
  EXPECT_EQ(disabled["state"]["lastStatus"], job["state"]["lastStatus"]);
  // --tz on an every job has nothing to apply to.
  auto every = cron({"add", "--name", "tick", "--every", "1h", "--system-event", "x", "--json"});
  ASSERT_EQ(every.exit_code, 0) << every.err;
  auto no_zone = cron({"edit", json::parse(every.out)["id"], "--tz", "Europe/Berlin"});
  EXPECT_EQ(no_zone.exit_code, 2);
  EXPECT_NE(no_zone.err.find("an every schedule has no time zone"), std::string::npos) << no_zone.err;
}

TEST_F(CronCliHardeningTest, ABrokenJobFileIsNamedAndNeverWrittenOver) {
  const std::string broken = "{\"version\": 1, \"jobs\": [\n  {\"id\": \"a\" \"name\": \"a\"}\n]}\n";
  home_.write("cron/jobs.json", broken);
  auto offline = cron({"list"});
  EXPECT_EQ(offline.exit_code, 1);
  EXPECT_NE(offline.err.find(jobs_file().string() + ": line 2, column"), std::string::npos) << offline.err;
  auto doctor = run_pincer({"doctor"}, env(), 60s);
  EXPECT_NE(doctor.out.find("cron: " + jobs_file().string() + ": line 2, column"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("fix or remove " + jobs_file().string()), std::string::npos) << doctor.out;

  start();
  auto online = cron({"list"});
  EXPECT_EQ(online.exit_code, 1) << online.out;
  EXPECT_NE(online.err.find(jobs_file().string() + ": line 2, column"), std::string::npos) << online.err;
  EXPECT_NE(online.err.find("no change is saved until it is fixed"), std::string::npos) << online.err;
  auto add = cron({"add", "--every", "1h", "--system-event", "x"});
  EXPECT_EQ(add.exit_code, 1) << add.err;
  stop();
  EXPECT_NE(gateway_->process().err().find(jobs_file().string() + ": line 2"), std::string::npos)
      << "the gateway's log names the file";
  EXPECT_EQ(read_all(jobs_file()), broken) << "kept as it was";

  // Duplicate ids: the same, naming the line of the second.
  home_.write("cron/jobs.json", "{\"version\": 1, \"jobs\": [\n  {\"id\": \"x\"},\n  {\"id\": \"x\"}\n]}\n");
  auto dup = cron({"list"});
  EXPECT_EQ(dup.exit_code, 1);
  EXPECT_NE(dup.err.find("line 3: the job id 'x' is used twice (jobs[0] and jobs[1])"), std::string::npos) << dup.err;
}

// Schedules past 9999-12-31 (the tester's overflow: a wrapped next run, jobs run back to back):
// refused by the CLI naming the flag and by cron.add naming the field, nothing saved.
TEST_F(CronCliHardeningTest, SchedulesPastTheLimitAreRefusedByTheCliAndCronAdd) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--every", "106751991167d"}, {"--every", "106751991168d"}, {"--every", "99999999999d"},
           {"--at", "99999999d"}, {"--at", "10000-01-01T00:00:00Z"}}) {
    auto r = cron({"add", "--name", "ovf", flag, value, "--message", "x", "--no-deliver"});
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + " '" + value + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("9999"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(jobs_file()) && read_all(jobs_file()).find("ovf") != std::string::npos);
  start();
  for (const json& every : {json(INT64_MAX), json(1e300)}) {
    auto res = call("cron.add", {{"name", "ovf"},
                                 {"schedule", {{"kind", "every"}, {"everyMs", every}}},
                                 {"sessionTarget", "main"},
                                 {"payload", {{"kind", "systemEvent"}, {"text", "x"}}}});
    ASSERT_EQ(res["ok"], false) << res.dump();
    EXPECT_NE(res["error"]["message"].get<std::string>().find("schedule.everyMs: " + every.dump() + " is out of range"),
              std::string::npos)
        << res.dump();
  }
  auto status = call("cron.status", json::object());
  EXPECT_FALSE(status.contains("payload") && status["payload"].value("nextWakeAtMs", json()).is_number()) << status.dump();
}

}  // namespace
}  // namespace cron_cli_hardening_test
}  // namespace pincer::test
