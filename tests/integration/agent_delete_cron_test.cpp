// A new-user tester's finding: `pincer agents delete <id>` left that agent's cron jobs in
// cron/jobs.json; each of their runs then failed and `pincer doctor` said nothing. Now the delete
// removes them (as OpenClaw's agents delete does) and says how many — in the file when no gateway
// runs, through the gateway when one does, and so does the gateway's agents.delete — and doctor
// warns of a job whose agent is not configured. The real binary with a temp PINCER_HOME.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace agent_delete_cron_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "agent-delete-cron-token-0123456789";

std::string config(const std::string& base_url) {
  return std::string("{\n  gateway: { auth: { token: '") + kToken + "' } },\n" +
         "  models: { providers: { mock: { baseUrl: '" + base_url +
         "', apiKey: 'k', api: 'openai-completions', models: [ { id: 'mock-model' } ] } } },\n" +
         "  agents: { defaults: { model: { primary: 'mock/mock-model' } },\n" +
         "    list: [ { id: 'main' }, { id: 'work' }, { id: 'ops' } ] },\n}\n";
}

json job(const std::string& id, const std::string& agent, bool enabled = true) {
  return {{"id", id},
          {"name", id + " job"},
          {"enabled", enabled},
          {"agentId", agent},
          {"schedule", {{"kind", "every"}, {"everyMs", 3600000}}},
          {"sessionTarget", "isolated"},
          {"payload", {{"kind", "agentTurn"}, {"message", "hello"}}}};
}

void write_jobs(const TempDir& home, const json& jobs) {
  home.write("cron/jobs.json", json{{"version", 1}, {"jobs", jobs}}.dump(2));
}

std::vector<std::string> job_ids(const fs::path& home) {
  std::ifstream in(home / "cron" / "jobs.json");
  const json doc = json::parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), nullptr, false);
  std::vector<std::string> ids;
  if (doc.is_object()) {
    for (const auto& j : doc.value("jobs", json::array())) ids.push_back(j.value("id", ""));
  }
  return ids;
}

json finding_of(const json& report, const std::string& check) {
  json all = json::array();
  for (const auto& f : report.value("findings", json::array())) {
    if (f["check"] == check) all.push_back(f);
  }
  return all;
}

TEST(AgentDeleteCron, NoGatewayTheAgentsJobsLeaveTheFileAndDoctorNamesOrphans) {
  TempDir home;
  home.write("pincer.json", config("http://127.0.0.1:9/v1"));
  write_jobs(home, json::array({job("w1", "work"), job("m1", "main"), job("w2", "work", false), job("o1", "ops"),
                                job("g1", "ghost")}));
  const auto env = isolated_cli_env(home.path(), {{"PINCER_GATEWAY_PORT", "9"}});

  // doctor: the job of an agent that is not configured, with the fix; none for the others.
  auto doctor = run_pincer({"doctor", "--json"}, env, 60s);
  const json report = json::parse(doctor.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << doctor.out << doctor.err;
  json cron = finding_of(report, "cron");
  ASSERT_EQ(cron.size(), 1u) << report.dump(2);
  EXPECT_EQ(cron[0]["status"], "warn");
  EXPECT_NE(cron[0]["message"].get<std::string>().find("cron job \"g1 job\" (g1) runs agent \"ghost\", which is not configured"),
            std::string::npos)
      << cron[0].dump();
  EXPECT_NE(cron[0]["fix"].get<std::string>().find("cron rm g1"), std::string::npos) << cron[0].dump();

  // --json: the removed jobs listed; the other agents' jobs stay.
  auto deleted = run_pincer({"agents", "delete", "work", "--force", "--json"}, env, 60s);
  ASSERT_EQ(deleted.exit_code, 0) << deleted.out << deleted.err;
  const json d = json::parse(deleted.out);
  ASSERT_EQ(d["removedCronJobs"].size(), 2u) << d.dump();
  EXPECT_EQ(d["removedCronJobs"][0], (json{{"id", "w1"}, {"name", "w1 job"}}));
  EXPECT_EQ(d["removedCronJobs"][1]["id"], "w2");  // a disabled one too
  EXPECT_EQ(job_ids(home.path()), (std::vector<std::string>{"m1", "o1", "g1"}));

  // Text: how many.
  auto text = run_pincer({"agents", "delete", "ops", "--force"}, env, 60s);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Removed 1 cron job\n    - o1 job (o1)"), std::string::npos) << text.out;
  EXPECT_EQ(job_ids(home.path()), (std::vector<std::string>{"m1", "g1"}));

  // Deleted by hand from pincer.json instead: doctor names what is left behind.
  write_jobs(home, json::array({job("m1", "main"), job("w3", "work")}));
  home.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } }, agents: { list: [ { id: 'main' } ] } }\n");
  auto later = run_pincer({"doctor", "--json"}, env, 60s);
  cron = finding_of(json::parse(later.out, nullptr, false), "cron");
  ASSERT_EQ(cron.size(), 1u) << later.out;
  EXPECT_NE(cron[0]["message"].get<std::string>().find("(w3) runs agent \"work\""), std::string::npos) << cron[0].dump();
}

TEST(AgentDeleteCron, WhileTheGatewayRunsTheJobsAreRemovedThroughIt) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config(mock.base_url()));
  write_jobs(home, json::array({job("w1", "work"), job("m1", "main")}));
  Gateway gateway(home.path());
  const auto env = isolated_cli_env(home.path(), {{"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}});
  auto deleted = run_pincer({"agents", "delete", "work", "--force", "--json"}, env, 60s);
  ASSERT_EQ(deleted.exit_code, 0) << deleted.out << deleted.err;
  const json d = json::parse(deleted.out);
  ASSERT_EQ(d["removedCronJobs"].size(), 1u) << d.dump();
  EXPECT_EQ(d["removedCronJobs"][0]["id"], "w1");
  // The gateway's own list (what it schedules) and its file agree.
  WsClient client(gateway.port());
  ASSERT_TRUE(handshake(client, connect_params(kToken)));
  auto listed = client.request("cron.list", {{"includeDisabled", true}});
  ASSERT_EQ(listed["ok"], true) << listed.dump();
  ASSERT_EQ(listed["payload"]["jobs"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["payload"]["jobs"][0]["id"], "m1");
  EXPECT_EQ(job_ids(home.path()), (std::vector<std::string>{"m1"}));
}

// The gateway method (the Control UI's delete) removes them too, and answers which.
TEST(AgentDeleteCron, TheAgentsDeleteMethodRemovesTheJobs) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config(mock.base_url()));
  write_jobs(home, json::array({job("m1", "main"), job("o1", "ops", false), job("w1", "work")}));
  Gateway gateway(home.path());
  WsClient client(gateway.port());
  ASSERT_TRUE(handshake(client, connect_params(kToken, {"operator.admin", "operator.read", "operator.write"})));
  auto deleted = client.request("agents.delete", {{"agentId", "ops"}, {"deleteFiles", false}});
  ASSERT_EQ(deleted["ok"], true) << deleted.dump();
  EXPECT_EQ(deleted["payload"]["removedCronJobs"], (json::array({{{"id", "o1"}, {"name", "o1 job"}}}))) << deleted.dump();
  auto listed = client.request("cron.list", {{"includeDisabled", true}});
  ASSERT_EQ(listed["ok"], true) << listed.dump();
  std::vector<std::string> ids;
  for (const auto& j : listed["payload"]["jobs"]) ids.push_back(j["id"]);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"m1", "w1"}));
  const auto in_file = job_ids(home.path());
  EXPECT_EQ(std::count(in_file.begin(), in_file.end(), "o1"), 0) << listed.dump();
}

}  // namespace
}  // namespace agent_delete_cron_test
}  // namespace pincer::test
