// Defects a new-user tester found in cron, doctor, the service help and /status, with the real
// binary (and, where a user has them, the real gateway and the mock LLM):
//   * `pincer cron` says in its own words what a flag takes (not CLI11's "not in range" or a
//     backwards "arguments were not expected: x --since"), that an interval must be greater than
//     zero, and which field of a bad --cron expression is wrong — without a generated job id;
//   * `pincer cron list` shows an ISO --at like its other times and an interval in its largest
//     exact unit (every 3h, every 90m);
//   * `pincer doctor` warns of a default model the provider's /v1/models does not list;
//   * `pincer gateway install --help` names the unit's real path under $XDG_CONFIG_HOME;
//   * `/status` counts the conversation's messages, not the session's startup context.
// Every wait is for an observable condition with a generous deadline.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace newuser_defects_b_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kDefectsBToken = "newuser-defects-b-token-0123456789";

class NewUserDefectsB : public ::testing::Test {
 protected:
  /// The CLI's environment: this home, and a gateway port nobody listens on (the CLI then works
  /// on the files), unless `port` names one.
  std::map<std::string, std::string> env(int port = 1) const {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(port)},
            {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}, {"TZ", "Asia/Tokyo"}};
  }
  RunResult pincer(std::vector<std::string> args, std::map<std::string, std::string> extra = {}) {
    auto e = env();
    for (auto& [k, v] : extra) e[k] = v;
    return run_pincer(args, e, 30s);
  }
  TempDir home_;
};

TEST_F(NewUserDefectsB, CronSaysWhatAFlagTakesInItsOwnWords) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kDefectsBToken + "' } } }\n");
  // A --limit that is not a number: what it takes, not "not in range".
  auto r = pincer({"cron", "runs", "some-job", "--limit", "abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--limit: expected a whole number from 1 to 200 (got 'abc')"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
  // An option list does not take: named as typed, with the options it does take.
  for (const char* option : {"--since", "--limit"}) {
    r = pincer({"cron", "list", option, "x"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(std::string("unknown option \"") + option + "\" for pincer cron list (its options: --all, "),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("x " + std::string(option)), std::string::npos) << "backwards: " << r.err;
  }
  // A zero interval.
  r = pincer({"cron", "add", "--name", "z", "--every", "0s", "--message", "hi"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--every: the interval must be greater than zero (got '0s'"), std::string::npos) << r.err;
  // A bad expression: the expression and its wrong field, no job id nobody ever saw.
  const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  r = pincer({"cron", "add", "--name", "c", "--cron", "61 * * * *", "--message", "hi"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cron '61 * * * *': minute: 61 is out of range 0-59"), std::string::npos) << r.err;
  EXPECT_FALSE(std::regex_search(r.err, uuid)) << r.err;
  EXPECT_FALSE(fs::exists(home_.path() / "cron" / "jobs.json"));
}

TEST_F(NewUserDefectsB, ANewJobWithABadScheduleThroughTheGatewayNamesNoGeneratedId) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kDefectsBToken + "' } } }\n");
  Gateway gateway(home_.path());
  WsClient c(gateway.port());
  ASSERT_TRUE(c.recv());
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kDefectsBToken)}});
  auto res = c.recv_response("c1");
  ASSERT_TRUE(res && (*res)["ok"] == true);
  const json added = c.request("cron.add", {{"name", "bad"},
                                            {"schedule", {{"kind", "cron"}, {"expr", "0 25 * * *"}}},
                                            {"payload", {{"kind", "systemEvent"}, {"text", "hi"}}},
                                            {"sessionTarget", "main"}});
  ASSERT_EQ(added["ok"], false) << added.dump();
  const std::string message = added["error"].value("message", "");
  EXPECT_NE(message.find("new job: schedule.expr: hour: 25 is out of range 0-23"), std::string::npos) << message;
  EXPECT_EQ(message.find("job '"), std::string::npos) << message;
}

TEST_F(NewUserDefectsB, CronListShowsAnIsoAtLikeItsOtherTimesAndIntervalsInTheirLargestExactUnit) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kDefectsBToken + "' } } }\n");
  const std::vector<std::vector<std::string>> jobs = {
      {"--name", "three-hours", "--every", "3h"},   {"--name", "ninety-minutes", "--every", "90m"},
      {"--name", "one-day", "--every", "24h"},      {"--name", "odd", "--every", "1500ms"},
      {"--name", "utc-at", "--at", "2031-01-05T10:00:00Z"},
      {"--name", "berlin-at", "--at", "2031-01-05T10:00", "--tz", "Europe/Berlin"}};
  for (auto args : jobs) {
    args.insert(args.begin(), {"cron", "add"});
    args.insert(args.end(), {"--system-event", "hi"});
    auto r = pincer(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto list = pincer({"cron", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* shown : {"three-hours  every 3h  ", "ninety-minutes  every 90m  ", "one-day  every 1d  ",
                            "odd  every 1500ms  ", "utc-at  at 2031-01-05 19:00 JST  ",
                            "berlin-at  at 2031-01-05 10:00 Europe/Berlin  "}) {
    EXPECT_NE(list.out.find(shown), std::string::npos) << shown << " in\n" << list.out;
  }
  EXPECT_EQ(list.out.find("10800s"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("T10:00"), std::string::npos) << "raw ISO: " << list.out;
}

TEST_F(NewUserDefectsB, GatewayInstallHelpNamesTheUnitPathUnderXdgConfigHome) {
  const fs::path xdg = home_.path() / "xdg-config";
  auto r = pincer({"gateway", "install", "--help"}, {{"XDG_CONFIG_HOME", xdg.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find((xdg / "systemd" / "user" / "pincer-gateway.service").string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("~/.config"), std::string::npos) << r.out;
}

// The second new-user pass of 2026-12-06: flags that say what they take, one-line job names, a
// mistyped subcommand named, and `config set` saying when what it wrote is refused by validate.
TEST_F(NewUserDefectsB, TheSecondPassWordingAndChecks) {
  auto r = pincer({"cron", "add", "--every", "1h", "--no-deliver", "--message", "x", "--timeout-seconds", "abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--timeout-seconds: expected a number of seconds greater than zero (got 'abc')"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("179769"), std::string::npos) << r.err;  // not DBL_MAX as a range
  r = pincer({"cron", "add", "--name", "a\nb", "--every", "1h", "--no-deliver", "--message", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--name: a job name is one line of text"), std::string::npos) << r.err;
  r = pincer({"cron", "lst"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command \"lst\" for pincer cron (its commands: add, list"), std::string::npos) << r.err;
  r = pincer({"config", "set", "agents.defaults.model.primary", "nope/m"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: agents.defaults.model.primary: \"nope/m\" names the provider \"nope\""), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("`config validate` refuses the file until that is fixed (the gateway starts, but each turn fails with this)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(pincer({"config", "validate"}).exit_code, 2);
}

// `agents delete` says why it cannot delete before it asks for a confirmation (no terminal here:
// a confirmation would be "re-run with --force").
TEST_F(NewUserDefectsB, AgentsDeleteSaysWhyItCannotBeforeAskingForForce) {
  auto r = pincer({"agents", "delete", "ghost"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not exist: there is no agent \"ghost\" to delete"), std::string::npos) << r.err;
  ASSERT_EQ(pincer({"agents", "add", "w2"}).exit_code, 0);
  r = pincer({"agents", "delete", "ghost"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("agent \"ghost\" is not in agents.list"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--force"), std::string::npos) << r.err;
  r = pincer({"agents", "delete", "w2"});  // one that can be deleted: now the confirmation
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("confirmation needed: re-run with --force"), std::string::npos) << r.err;
}

// A mistyped --file is an error, not an empty configuration ("valid", or a folder created for it).
TEST_F(NewUserDefectsB, AnExplicitConfigFileThatDoesNotExistIsRefused) {
  const fs::path missing = home_.path() / "nope" / "x.json";
  auto r = pincer({"config", "validate", "--file", missing.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--file " + missing.string() + ": no such file"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("valid"), std::string::npos) << r.out;
  EXPECT_EQ(pincer({"config", "get", "gateway.port", "--file", missing.string()}).exit_code, 2);
  EXPECT_EQ(pincer({"config", "unset", "gateway.port", "--file", missing.string()}).exit_code, 2);
  r = pincer({"config", "set", "gateway.port", "19120", "--file", missing.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("folder " + (home_.path() / "nope").string() + " does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(home_.path() / "nope"));
  // In an existing folder, set creates the file, as before.
  r = pincer({"config", "set", "gateway.port", "19120", "--file", (home_.path() / "other.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(home_.path() / "other.json"));
}

// The XDG Base Directory spec: a relative XDG_CONFIG_HOME is ignored (systemd would never read a unit there).
TEST_F(NewUserDefectsB, ARelativeXdgConfigHomeIsIgnored) {
  auto r = pincer({"gateway", "install", "--help"}, {{"XDG_CONFIG_HOME", "relxdg"}, {"HOME", home_.path().string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find((home_.path() / ".config" / "systemd" / "user" / "pincer-gateway.service").string()), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("relxdg"), std::string::npos) << r.out;
}

TEST_F(NewUserDefectsB, DoctorWarnsOfAModelTheProvidersServerDoesNotList) {
  MockLlm mock({"--models", "llama-a,llama-b"});
  auto write_config = [&](const std::string& model) {
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kDefectsBToken + "' } },\n" +
                                   "  models: { providers: { custom: { baseUrl: '" + mock.base_url() +
                                   "', apiKey: 'k', api: 'openai-completions', models: [ { id: '" + model +
                                   "' } ] } } },\n  agents: { defaults: { model: { primary: 'custom/" + model + "' } } } }\n");
  };
  write_config("gpt-typo");
  auto r = pincer({"doctor"});
  EXPECT_NE((r.out + r.err).find("model \"gpt-typo\" is not among the 2 models the server lists: llama-a, llama-b"),
            std::string::npos)
      << r.out << r.err;
  write_config("llama-b");
  r = pincer({"doctor"});
  EXPECT_NE((r.out + r.err).find("is reachable and accepts the key; default model custom/llama-b"), std::string::npos) << r.out;
}

// Anthropic's model list comes in pages (20 by default, has_more): doctor asks for its largest page,
// so a model past the first 20 is found and a missing one is still named against the whole list.
TEST_F(NewUserDefectsB, DoctorChecksTheModelAgainstAnthropicsWholeList) {
  std::string ids;
  for (int i = 0; i < 25; ++i) ids += (i ? "," : "") + std::string("claude-") + std::to_string(i);
  MockLlm mock({"--models", ids});
  auto write_config = [&](const std::string& model) {
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kDefectsBToken + "' } },\n" +
                                   "  models: { providers: { anth: { baseUrl: '" + mock.base_url() +
                                   "', apiKey: 'k', api: 'anthropic-messages', models: [ { id: '" + model +
                                   "' } ] } } },\n  agents: { defaults: { model: { primary: 'anth/" + model + "' } } } }\n");
  };
  write_config("claude-24");
  auto r = pincer({"doctor"});
  EXPECT_NE((r.out + r.err).find("is reachable and accepts the key; default model anth/claude-24"), std::string::npos)
      << r.out << r.err;
  write_config("claude-typo");
  r = pincer({"doctor"});
  EXPECT_NE((r.out + r.err).find("model \"claude-typo\" is not among the 25 models the server lists"), std::string::npos)
      << r.out << r.err;
}

/// "YYYY-MM-DD" of today in UTC+14 (the agents' userTimezone below: the day of the daily note).
std::string defects_b_user_day() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + std::chrono::hours(14));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

TEST_F(NewUserDefectsB, StatusCountsTheConversationNotTheStartupContext) {
  MockLlm mock;
  home_.write("pincer.json", mock_config({.token = kDefectsBToken,
                                          .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"},
                                          .defaults = ", userTimezone: 'Etc/GMT-14'"}));
  // A note of today: a new session starts with it as its startup context (a transcript entry).
  const fs::path note = home_.path() / "workspace" / "memory" / (defects_b_user_day() + ".md");
  fs::create_directories(note.parent_path());
  std::ofstream(note, std::ios::binary) << "- 08:00 [fact] the venue is booked\n";
  Gateway gateway(home_.path());
  WsClient c(gateway.port());
  ASSERT_TRUE(c.recv());
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
               {"params", connect_params(kDefectsBToken, {"operator.admin", "operator.read", "operator.write"})}});
  auto res = c.recv_response("c1");
  ASSERT_TRUE(res && (*res)["ok"] == true);
  auto turn = [&](const std::string& message, const std::string& run_id) -> json {
    auto ack = c.request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f = c.next_frame(30s);
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && (p.value("runId", "") == run_id || p.value("stopReason", "") == "command") &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        return p;
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  };
  ASSERT_EQ(turn("hello there", "s1")["state"], "final");
  // The transcript holds the startup context too (it is what the count used to include).
  std::string transcript;
  for (const auto& e : fs::recursive_directory_iterator(home_.path() / "agents")) {
    if (e.path().extension() == ".jsonl") {
      std::ifstream in(e.path());
      transcript += std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  ASSERT_NE(transcript.find("the venue is booked"), std::string::npos) << transcript;
  const json status = turn("/status", "s2");
  EXPECT_NE(status.dump().find("(2 messages)"), std::string::npos) << status.dump();
}

}  // namespace
}  // namespace newuser_defects_b_test
}  // namespace pincer::test
