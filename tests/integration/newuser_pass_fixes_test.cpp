// A new user's pass over the CLI (second round): one error code per failed gateway call, the
// zone printed with cron times, what an offline `cron add|rm` did, `doctor` on a state directory
// that does not exist yet, `onboard` without a terminal, and a model whose context window the
// system prompt and tools alone fill. The real binary with a temp
// PINCER_HOME; the gateway's port comes from PINCER_GATEWAY_PORT (a closed one when no gateway
// is meant to answer), never the default 18789.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"
#include "loopback_listener.h"
#include "ws_client.h"

namespace pincer::test {
namespace newuser_pass_fixes_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kPassToken = "newuser-pass-token-0123456789abcdef";

class NewUserPassFixes : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(int port, const std::filesystem::path& home) const {
    return {{"PINCER_HOME", home.string()},
            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
            {"PINCER_GATEWAY_TOKEN", "\x01"},
            {"PINCER_GATEWAY_URL", "\x01"},
            {"PINCER_GATEWAY_PORT", std::to_string(port)},
            {"TZ", "Asia/Tokyo"}};  // no daylight saving time: always JST
  }
  RunResult pincer(const std::vector<std::string>& args, int port) const {
    return run_pincer(args, env(port, home_.path()), 60s);
  }

  TempDir home_;
};

TEST_F(NewUserPassFixes, AFailedGatewayCallNamesOneCodeTheSpecificOne) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kPassToken + "' } } }\n");
  Gateway gateway(home_.path());
  auto e = env(gateway.port(), home_.path());
  e["PINCER_GATEWAY_TOKEN"] = kPassToken;
  // cron.remove answers INVALID_REQUEST with details.code CRON_JOB_NOT_FOUND: the line used to
  // carry both, "(CRON_JOB_NOT_FOUND) [INVALID_REQUEST]".
  auto rm = run_pincer({"cron", "rm", "no-such-job"}, e, 60s);
  EXPECT_EQ(rm.exit_code, 1) << rm.err;
  EXPECT_NE(rm.err.find("[CRON_JOB_NOT_FOUND]"), std::string::npos) << rm.err;
  EXPECT_EQ(rm.err.find("INVALID_REQUEST"), std::string::npos) << rm.err;
  EXPECT_EQ(rm.err.find("(CRON_JOB_NOT_FOUND)"), std::string::npos) << rm.err;
  // Bad input is still exit 2, by the specific code.
  // (An unknown agent: the gateway refuses it; a bad --cron is refused by the CLI before any call.)
  auto bad = run_pincer({"cron", "add", "--every", "1h", "--agent", "nobody", "--message", "x", "--no-deliver"}, e, 60s);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '['), 1) << bad.err;
  EXPECT_EQ(bad.err.find("INVALID_REQUEST"), std::string::npos) << bad.err;
}

TEST_F(NewUserPassFixes, CronTimesCarryTheirZone) {
  const int port = closed_loopback_port();
  const std::regex local_time(R"(next run \d{4}-\d\d-\d\d \d\d:\d\d JST\n)");
  auto every = pincer({"cron", "add", "--every", "1h", "--message", "x", "--no-deliver"}, port);
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_TRUE(std::regex_search(every.out, local_time)) << every.out;
  auto zoned = pincer({"cron", "add", "--cron", "0 8 * * *", "--tz", "America/New_York", "--message", "y", "--no-deliver"},
                      port);
  ASSERT_EQ(zoned.exit_code, 0) << zoned.err;
  EXPECT_TRUE(std::regex_search(zoned.out, std::regex(R"(next run \d{4}-\d\d-\d\d 08:00 America/New_York\n)")))
      << zoned.out;
  auto list = pincer({"cron", "list"}, port);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex(R"(every 1h  next \d{4}-\d\d-\d\d \d\d:\d\d JST  last -)")))
      << list.out;
  EXPECT_TRUE(std::regex_search(list.out, std::regex(R"(next \d{4}-\d\d-\d\d 08:00 America/New_York  last -)")))
      << list.out;
}

TEST_F(NewUserPassFixes, AnOfflineCronWriteSaysWhatItWroteAndWhenItApplies) {
  const int port = closed_loopback_port();
  const std::string file = (home_.path() / "cron" / "jobs.json").string();
  auto add = pincer({"cron", "add", "--name", "plants", "--every", "1h", "--message", "x", "--no-deliver"}, port);
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(add.err.find("showing the local files"), std::string::npos) << add.err;
  EXPECT_NE(add.err.find("pincer: no gateway answers at ws://127.0.0.1:" + std::to_string(port) +
                         ": the job was written to " + file + "; the gateway schedules it when it starts ("),
            std::string::npos)
      << add.err;
  EXPECT_NE(add.err.find(" gateway run)"), std::string::npos) << add.err;
  ASSERT_TRUE(std::filesystem::exists(file));
  const std::string id = add.out.substr(6, add.out.find(' ', 6) - 6);  // "Added <id> (plants): …"

  auto edit = pincer({"cron", "disable", id}, port);
  ASSERT_EQ(edit.exit_code, 0) << edit.err;
  EXPECT_NE(edit.err.find("the change was written to " + file + "; the gateway applies it when it starts"),
            std::string::npos)
      << edit.err;
  // A read still says it shows the local files.
  auto list = pincer({"cron", "list", "--all"}, port);
  EXPECT_NE(list.err.find("showing the local files of " + home_.path().string()), std::string::npos) << list.err;
  EXPECT_EQ(list.err.find("written"), std::string::npos) << list.err;
  auto rm = pincer({"cron", "rm", id}, port);
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  EXPECT_NE(rm.err.find("the job was removed from " + file), std::string::npos) << rm.err;
  // A refused write says that nothing was written, and why.
  auto missing = pincer({"cron", "rm", id}, port);
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("pincer: no gateway answers at ws://127.0.0.1:" + std::to_string(port) +
                             "; nothing was written to " + file + ": "),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find("removed from"), std::string::npos) << missing.err;
  // Run needs the gateway: one line saying so, not "showing the local files".
  auto run = pincer({"cron", "run", id}, port);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.find("showing the local files"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("no gateway answers at ws://127.0.0.1:" + std::to_string(port) +
                         "; cron run: a job runs only in the gateway"),
            std::string::npos)
      << run.err;
}

TEST_F(NewUserPassFixes, DoctorSaysAMissingStateDirDoesNotExistYetRatherThanPrivate) {
  const auto state = home_.path() / "not-made-yet";
  auto r = run_pincer({"doctor", "--json"}, env(closed_loopback_port(), state), 60s);
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out << r.err;
  json perms;
  for (const auto& f : report["findings"]) {
    if (f["check"] == "permissions") perms = f;
  }
  ASSERT_TRUE(perms.is_object()) << report.dump(2);
  EXPECT_EQ(perms["status"], "info") << perms.dump();
  const std::string message = perms["message"];
  EXPECT_EQ(message.find("is private"), std::string::npos) << message;
  EXPECT_NE(message.find(state.string() + " does not exist yet"), std::string::npos) << message;
  EXPECT_NE(message.find(" onboard or the first "), std::string::npos) << message;
  EXPECT_NE(message.find("mode 700"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(state));  // the doctor only looks
}

TEST_F(NewUserPassFixes, OnboardWithoutATerminalSaysSoAndHowToRunItNonInteractively) {
  // Standard input from /dev/null, no --non-interactive, no --provider; no Ollama answers.
  const std::string ollama = "http://127.0.0.1:" + std::to_string(closed_loopback_port());
  Process p({"/bin/sh", "-c", "exec \"$0\" onboard --ollama-url \"$1\" </dev/null", pincer_binary(), ollama},
            env(closed_loopback_port(), home_.path()));
  ASSERT_EQ(p.wait(60s), 2) << p.err();
  const std::string err = p.err();
  EXPECT_EQ(err.find("is required with --non-interactive"), std::string::npos) << err;
  EXPECT_NE(err.find("standard input is not a terminal"), std::string::npos) << err;
  EXPECT_NE(err.find("no Ollama answered at " + ollama), std::string::npos) << err;
  EXPECT_NE(err.find(" onboard --non-interactive --provider openai|anthropic|ollama|custom"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "pincer.json"));
}

TEST_F(NewUserPassFixes, AWindowTheSystemPromptAndToolsFillIsNamedBeforeAnyModelCall) {
  MockLlm mock;
  auto configure = [&](int window) {
    home_.write("pincer.json", "{ " +
                                   mock_models_block({.base_url = mock.base_url(),
                                                      .models = "{ id: 'tiny-model', contextWindow: " + std::to_string(window) +
                                                                ", maxTokens: 100 }"}) +
                                   ",\n  agents: { defaults: { model: { primary: 'mock/tiny-model' } } } }\n");
  };
  configure(1000);
  auto r = pincer({"agent", "--local", "-m", "hi"}, closed_loopback_port());
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("mock/tiny-model works with a context window of 1000 tokens"), std::string::npos) << all;
  const auto at = all.find("the system prompt and tool definitions alone take ~");
  ASSERT_NE(at, std::string::npos) << all;
  const long frame = std::stol(all.substr(at + 51));
  EXPECT_GE(frame, 1000) << all;
  EXPECT_EQ(all.find("This message is"), std::string::npos) << all;  // not the message's fault
  // Refused before any model call: the provider's opaque overflow never happens.
  auto requests = json::parse(http_request(mock.port(), "GET", "/__mock/requests").body, nullptr, false);
  ASSERT_TRUE(requests.is_array()) << requests.dump();
  for (const auto& e : requests) EXPECT_EQ(e.value("path", "").find("chat/completions"), std::string::npos) << e.dump();

  // With a window that holds them, the same turn goes to the model.
  configure(128000);
  auto ok = pincer({"agent", "--local", "-m", "hi ECHO:window-ok"}, closed_loopback_port());
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("window-ok"), std::string::npos) << ok.out << ok.err;
}

}  // namespace
}  // namespace newuser_pass_fixes_test
}  // namespace pincer::test
