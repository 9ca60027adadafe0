// A new-user tester's finding: under --json, the gateway client commands (status, health, sessions
// list/show/reset, channels status, models list, devices, mcp status) print their connection errors — no gateway on the
// --url port, a refused token — as the one JSON value {"ok": false, "error": {"code", "message"}}
// on stdout, as `agent --json` and `cron list --json` do, with the same exit code (1). The real
// binary with a temp PINCER_HOME; the refused token against a real gateway. Also `cron add --at`'s
// "1 minute ago" (was "1 minutes ago").
#include <ctime>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace cli_json_errors_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kJsonErrorsToken = "json-errors-token-0123456789abcdef";

class CliJsonErrorsTest : public ::testing::Test {
 protected:
  /// No gateway variables from the developer's shell; `extra` on top ("\x01" removes one).
  std::map<std::string, std::string> env(const std::map<std::string, std::string>& extra = {}) const {
    return isolated_cli_env(home_.path(), extra);
  }
  RunResult pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& extra = {}) const {
    return run_pincer(args, env(extra), 60s);
  }
  void write_config() const {
    home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kJsonErrorsToken) + "' } } }\n");
  }
  /// Runs `args` and checks its output is one JSON error of `code` on stdout, exit code 1, and
  /// no "pincer:" text beside it on stderr.
  void expect_json_error(const std::vector<std::string>& args, const std::map<std::string, std::string>& extra,
                         const std::string& code) const {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    const auto r = pincer(args, extra);
    EXPECT_EQ(r.exit_code, 1) << shown << r.out << r.err;
    const json e = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(e.is_object()) << shown << ": stdout: " << r.out << " stderr: " << r.err;
    EXPECT_EQ(e["ok"], false) << shown << e.dump();
    EXPECT_EQ(e["error"]["code"], code) << shown << e.dump();
    EXPECT_TRUE(e["error"]["message"].is_string() && !e["error"]["message"].get<std::string>().empty()) << shown << e.dump();
    EXPECT_EQ(r.err.find("pincer:"), std::string::npos) << shown << r.err;  // one JSON value, nothing beside it
  }
  TempDir home_;
};

const std::vector<std::vector<std::string>>& json_errors_commands() {
  static const std::vector<std::vector<std::string>> commands = {
      {"status"}, {"health"}, {"sessions", "list"}, {"sessions", "show", "main"}, {"sessions", "reset", "main"},
      {"channels", "status"}, {"models", "list"}, {"devices", "list"}, {"devices", "approve", "--latest"},
      {"devices", "remove", "dev-1"}, {"devices", "revoke", "dev-1"}, {"mcp", "status"}};
  return commands;
}

std::vector<std::string> json_errors_args(std::vector<std::string> command, const std::string& url) {
  command.insert(command.end(), {"--json", "--url", url});
  return command;
}

// Nothing listens on the --url port: UNREACHABLE, as JSON, for each command.
TEST_F(CliJsonErrorsTest, UnreachableGatewayIsAJsonError) {
  write_config();
  const std::map<std::string, std::string> token = {{"PINCER_GATEWAY_TOKEN", kJsonErrorsToken}};
  for (const auto& command : json_errors_commands()) {
    expect_json_error(json_errors_args(command, "ws://127.0.0.1:9"), token, "UNREACHABLE");
  }
  // The message is the text error's sentence.
  const auto r = pincer(json_errors_args({"status"}, "ws://127.0.0.1:9"), token);
  EXPECT_NE(json::parse(r.out, nullptr, false)["error"].value("message", "").find("cannot reach the gateway at ws://127.0.0.1:9"),
            std::string::npos)
      << r.out;
  // Without --json the same failure stays text on stderr.
  const auto text = pincer({"status", "--url", "ws://127.0.0.1:9"}, token);
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_TRUE(text.out.empty()) << text.out;
  EXPECT_NE(text.err.find("pincer: cannot reach the gateway"), std::string::npos) << text.err;
}

// A gateway that refuses the token: the refusal's code, as JSON, for each command.
TEST_F(CliJsonErrorsTest, RefusedTokenIsAJsonError) {
  write_config();
  Gateway gateway(home_.path());
  const std::string url = "ws://127.0.0.1:" + std::to_string(gateway.port());
  const std::map<std::string, std::string> wrong = {{"PINCER_GATEWAY_TOKEN", "not-the-token-0123456789abcdef"}};
  const auto probe = pincer(json_errors_args({"status"}, url), wrong);
  const std::string code = json::parse(probe.out, nullptr, false)["error"].value("code", "");
  EXPECT_FALSE(code.empty()) << probe.out << probe.err;
  EXPECT_NE(code, "UNREACHABLE") << probe.out;
  for (const auto& command : json_errors_commands()) expect_json_error(json_errors_args(command, url), wrong, code);
}

// `cron add --at` a minute and a half ago: "1 minute ago", not "1 minutes ago".
TEST_F(CliJsonErrorsTest, CronAddAtAMinuteAgoSaysOneMinute) {
  write_config();
  const std::time_t then = std::time(nullptr) - 90;
  std::tm utc{};
  gmtime_r(&then, &utc);
  char at[32];
  std::strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const auto r = pincer({"cron", "add", "--at", at, "--system-event", "hi"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(", 1 minute ago; now "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cli_json_errors_test
}  // namespace pincer::test
