// `pincer doctor` and `pincer logs` (issue #4 §2): the real binary against real files, a real
// gateway and the mock LLM as the provider. Asserts findings, fixes, exit codes and that no
// secret is printed.
#include <signal.h>
#include <sys/stat.h>

#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"

namespace pincer::test {
namespace cli_doctor_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

std::string config_with(const MockLlm& mock, const std::string& api_key, const std::string& gateway = "auth: { token: 'doctor-token-0123456789abcdefghij' }") {
  return "{ gateway: { " + gateway + " },\n  " +
         mock_models_block({.base_url = mock.base_url(), .models = "{ id: 'mock-model' }", .api_key = api_key}) + ",\n" +
         "  agents: { defaults: { model: { primary: 'mock/mock-model' } } } }\n";
}

json finding(const json& report, const std::string& check) {
  for (const auto& f : report["findings"]) {
    if (f["check"] == check) return f;
  }
  return json();
}

TEST(CliDoctor, HealthyInstallIsAllOk) {
  MockLlm mock({"--api-key", "right-key"});
  TempDir home;
  home.write("pincer.json", config_with(mock, "right-key"));
  ::chmod(home.path().c_str(), 0700);
  ::chmod((home.path() / "pincer.json").c_str(), 0600);
  Gateway gateway(home.path());
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()},
                                            {"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}};
  auto r = run_pincer({"doctor", "--json"}, env, 30s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto report = json::parse(r.out);
  EXPECT_EQ(report["ok"], true);
  for (const char* check : {"config", "permissions", "port", "bind", "token", "provider"}) {
    EXPECT_EQ(finding(report, check)["status"], "ok") << check << ": " << report.dump(2);
  }
  auto human = run_pincer({"doctor"}, env, 30s);
  EXPECT_NE(human.out.find("✓ provider: provider \"mock\""), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("✓ port: a gateway answers"), std::string::npos) << human.out;
}

TEST(CliDoctor, FindsProblemsAndSaysHowToFixThem) {
  MockLlm mock({"--api-key", "right-key"});
  TempDir home;
  home.write("pincer.json", config_with(mock, "wrong-secret-key", "bind: 'lan', auth: { mode: 'none' }"));
  ::chmod(home.path().c_str(), 0755);
  ::chmod((home.path() / "pincer.json").c_str(), 0644);
  auto r = run_pincer({"doctor", "--json"}, {{"PINCER_HOME", home.path().string()}, {"PINCER_GATEWAY_PORT", "1"}}, 30s);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("wrong-secret-key"), std::string::npos) << "never print a secret: " << r.out;
  auto report = json::parse(r.out);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(finding(report, "bind")["status"], "fail");
  EXPECT_NE(finding(report, "bind")["fix"].get<std::string>().find("pincer config set gateway.bind loopback"), std::string::npos);
  EXPECT_EQ(finding(report, "provider")["status"], "fail");
  EXPECT_NE(finding(report, "provider")["message"].get<std::string>().find("rejected the API key"), std::string::npos);
  EXPECT_EQ(finding(report, "permissions")["status"], "warn");
  EXPECT_NE(finding(report, "permissions")["fix"].get<std::string>().find("chmod 700"), std::string::npos);
  EXPECT_EQ(finding(report, "port")["status"], "warn");  // nothing listens: not running
}

TEST(CliDoctor, ShortTokenAndBrokenConfig) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_with(mock, "k", "auth: { token: 'short' }"));
  auto r = run_pincer({"doctor", "--json"}, {{"PINCER_HOME", home.path().string()}, {"PINCER_GATEWAY_PORT", "1"}}, 30s);
  EXPECT_EQ(finding(json::parse(r.out), "token")["status"], "fail") << r.out;

  home.write("pincer.json", "{ gateway: { port: 'x' } }\n");
  auto bad = run_pincer({"doctor"}, {{"PINCER_HOME", home.path().string()}}, 30s);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("✗ config:"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("gateway.port"), std::string::npos) << bad.out;
}

TEST(CliDoctor, ChecksWhatTheGatewayWouldCheckWithTheSecretItWouldUse) {
  MockLlm mock;
  TempDir home;
  // A webhook without its secret: the gateway would refuse to start; doctor says so.
  std::string cfg = config_with(mock, "k");
  cfg.insert(cfg.rfind('}'), ", channels: { webhook: { path: '/hooks/in' } } ");
  home.write("pincer.json", cfg);
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()}, {"PINCER_GATEWAY_PORT", "1"},
                                                  {"PINCER_GATEWAY_TOKEN", "tiny"}};
  auto r = run_pincer({"doctor", "--json"}, env, 30s);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const json report = json::parse(r.out);
  bool channel = false;
  for (const auto& f : report["findings"]) {
    channel = channel || (f["check"] == "config" && f["status"] == "fail" &&
                          f["message"].get<std::string>().find("channels.webhook.secret: required") != std::string::npos);
  }
  EXPECT_TRUE(channel) << report.dump(2);
  // PINCER_GATEWAY_TOKEN wins over the file's token, as in `gateway run`: that is the one judged.
  const json token = finding(report, "token");
  EXPECT_EQ(token["status"], "fail") << token.dump();
  EXPECT_NE(token["message"].get<std::string>().find("PINCER_GATEWAY_TOKEN: the gateway token is 4 characters"),
            std::string::npos)
      << token.dump();
}

TEST(CliDoctor, WarnsWhenChannelsHaveNoOwnerAndItsFixWorks) {
  MockLlm mock;
  TempDir home;
  std::string cfg = config_with(mock, "k");
  home.write("pincer.json", cfg);
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()}, {"PINCER_GATEWAY_PORT", "1"}};
  EXPECT_TRUE(finding(json::parse(run_pincer({"doctor", "--json"}, env, 30s).out), "owner").is_null())
      << "no channel: nothing to say";

  cfg.insert(cfg.rfind('}'), ", channels: { telegram: { botToken: '123:abc', dmPolicy: 'allowlist', allowFrom: ['1001'] } } ");
  home.write("pincer.json", cfg);
  auto r = run_pincer({"doctor", "--json"}, env, 30s);
  const json owner = finding(json::parse(r.out), "owner");
  ASSERT_EQ(owner["status"], "warn") << r.out;
  EXPECT_NE(owner["message"].get<std::string>().find("commands.ownerAllowFrom is empty"), std::string::npos) << owner.dump();
  const std::string fix = owner["fix"];
  EXPECT_NE(fix.find("pincer config set commands.ownerAllowFrom '[\"telegram:1001\"]'"), std::string::npos) << fix;

  // The fix as printed makes it ok.
  auto set = run_pincer({"config", "set", "commands.ownerAllowFrom", "[\"telegram:1001\"]"}, env, 30s);
  ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  const json after = finding(json::parse(run_pincer({"doctor", "--json"}, env, 30s).out), "owner");
  EXPECT_EQ(after["status"], "ok") << after.dump();
}

TEST(CliLogs, PrintsTheLastLinesOfTheGatewayLog) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_with(mock, "k"));
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()}};
  auto none = run_pincer({"logs"}, env, 10s);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no gateway log"), std::string::npos) << none.err;

  home.write("logs/gateway.log", "line one\nline two\nline three\n");
  auto r = run_pincer({"logs", "-n", "2"}, env, 10s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "line two\nline three\n");
  EXPECT_EQ(run_pincer({"logs", "--lines", "10"}, env, 10s).out, "line one\nline two\nline three\n");

  // -f follows appended lines: once it has printed the current last line, append one.
  Process follow({pincer_binary(), "logs", "-f", "-n", "1"}, env);
  ASSERT_TRUE(follow.wait_for_stdout("line three", 30s)) << follow.out();
  home.write("logs/gateway.log", "line one\nline two\nline three\nline four\n");
  EXPECT_TRUE(follow.wait_for_stdout("line four", 30s)) << follow.out();
  follow.signal(SIGTERM);
}

}  // namespace
}  // namespace cli_doctor_test
}  // namespace pincer::test

namespace pincer::test {
namespace cli_doctor_test {
namespace {

TEST(CliDoctor, FreshHomeSaysTheFirstStartCreatesTheTokenAndAdvisesOnlyExistingFiles) {
  TempDir tmp;
  const auto home = tmp.path() / "fresh-home";
  std::filesystem::create_directories(home);
  ::chmod(home.c_str(), 0755);  // loose, while pincer.json does not exist
  auto r = run_pincer({"doctor", "--json"}, {{"PINCER_HOME", home.string()}, {"PINCER_GATEWAY_PORT", "1"}}, 30s);
  auto report = nlohmann::json::parse(r.out);
  const auto token = finding(report, "token");
  EXPECT_EQ(token["status"], "info") << r.out;
  EXPECT_NE(token["message"].get<std::string>().find("creates one"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("refuses to start"), std::string::npos) << r.out;
  const auto perms = finding(report, "permissions");
  EXPECT_EQ(perms["status"], "warn") << r.out;
  const std::string fix = perms["fix"];
  EXPECT_NE(fix.find("chmod 700 " + home.string()), std::string::npos) << fix;
  EXPECT_EQ(fix.find("chmod 600"), std::string::npos) << "pincer.json does not exist: " << fix;
  auto human = run_pincer({"doctor"}, {{"PINCER_HOME", home.string()}, {"PINCER_GATEWAY_PORT", "1"}}, 30s);
  EXPECT_NE(human.out.find("i token: no gateway token yet"), std::string::npos) << human.out;
}

TEST(CliDoctor, OnboardingLeavesAPrivateStateDir) {
  MockLlm mock;
  TempDir tmp;
  const auto home = tmp.path() / "fresh-home";
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.string()}, {"PINCER_GATEWAY_PORT", "1"}};
  auto onboard = run_pincer({"onboard", "--non-interactive", "--provider", "custom", "--base-url", mock.base_url(),
                             "--api-key", "k", "--model", "mock-model"},
                            env, 30s);
  ASSERT_EQ(onboard.exit_code, 0) << onboard.err;
  auto r = run_pincer({"doctor", "--json"}, env, 30s);
  auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(finding(report, "permissions")["status"], "ok") << r.out;
  EXPECT_EQ(finding(report, "provider")["status"], "ok") << r.out;
}

}  // namespace
}  // namespace cli_doctor_test
}  // namespace pincer::test
