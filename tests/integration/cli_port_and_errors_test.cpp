// A new-user tester's findings: `gateway run --port N` on a fresh home wrote port 18789 into the
// pincer.json it created (every later command then missed the gateway, and doctor advised starting
// one); a client that misses this home's running gateway now says where it listens (its lock
// file). Also: `gateway call --params` with JSON nested 200 000 deep crashed the CLI; doctor
// stopped after a config schema error; `sessions show <unknown> --json` printed an empty history
// with exit code 0. The real binary with a temp PINCER_HOME.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace cli_port_and_errors_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

/// A loopback port nothing listens on right now.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CliPortAndErrorsTest : public ::testing::Test {
 protected:
  RunResult pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& extra = {}) const {
    return run_pincer(args, isolated_cli_env(home_.path(), extra), 60s);
  }
  TempDir home_;
};

TEST_F(CliPortAndErrorsTest, FirstStartWritesItsPortAndClientsThatMissItSayWhereItListens) {
  const int port = free_port();
  Gateway gateway(home_.path(), {"--port", std::to_string(port)}, isolated_cli_env(home_.path()));
  ASSERT_EQ(gateway.port(), port);
  const std::string config = read_text(home_.path() / "pincer.json");
  EXPECT_NE(config.find("port: " + std::to_string(port) + ","), std::string::npos) << config;
  EXPECT_EQ(config.find("18789"), std::string::npos) << config;

  // The CLI reads the created file and finds the gateway.
  auto health = pincer({"health"});
  EXPECT_EQ(health.exit_code, 0) << health.out << health.err;

  // Pointed elsewhere, it says where this home's gateway listens instead of "start one".
  const int other = free_port();
  const std::map<std::string, std::string> elsewhere = {{"PINCER_GATEWAY_PORT", std::to_string(other)}};
  auto missed = pincer({"health"}, elsewhere);
  EXPECT_EQ(missed.exit_code, 1) << missed.err;
  const std::string where = "listens on 127.0.0.1:" + std::to_string(port);
  EXPECT_NE(missed.err.find(where), std::string::npos) << missed.err;
  EXPECT_NE(missed.err.find("pid " + std::to_string(gateway.process().pid())), std::string::npos) << missed.err;
  EXPECT_EQ(missed.err.find("Start it with"), std::string::npos) << missed.err;

  auto doctor = pincer({"doctor"}, elsewhere);
  EXPECT_NE(doctor.out.find(where), std::string::npos) << doctor.out;
  EXPECT_EQ(doctor.out.find("start it with"), std::string::npos) << doctor.out;

  // An unknown session: the same error with --json, as JSON, and the same exit code.
  auto text = pincer({"sessions", "show", "nosuch"});
  EXPECT_EQ(text.exit_code, 1) << text.out;
  EXPECT_NE(text.err.find("no session \"nosuch\""), std::string::npos) << text.err;
  auto as_json = pincer({"sessions", "show", "nosuch", "--json"});
  EXPECT_EQ(as_json.exit_code, 1) << as_json.out;
  const json e = json::parse(as_json.out, nullptr, false);
  ASSERT_TRUE(e.is_object()) << as_json.out;
  EXPECT_EQ(e["ok"], false) << e.dump();
  EXPECT_EQ(e["error"]["code"], "NOT_FOUND") << e.dump();
  EXPECT_NE(e["error"].value("message", "").find("no session \"nosuch\""), std::string::npos) << e.dump();
}

TEST_F(CliPortAndErrorsTest, DeeplyNestedParamsAreRefusedNotACrash) {
  constexpr int kDepth = 200'000;
  std::string deep;
  for (int i = 0; i < kDepth; ++i) deep += "{\"a\":";
  deep += "1";
  deep.append(kDepth, '}');
  home_.write("deep.json", deep);
  home_.write("pincer.json", "{ gateway: { auth: { token: 'deep-params-token-0123456789abcdef' } } }\n");
  auto r = pincer({"gateway", "call", "health", "--params", "@" + (home_.path() / "deep.json").string(), "--url",
                   "ws://127.0.0.1:9", "--token", "t"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nesting too deep (more than 512 levels)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--params @"), std::string::npos) << r.err;
}

TEST_F(CliPortAndErrorsTest, DoctorChecksTheRunningGatewayAfterASchemaError) {
  const int port = free_port();
  const std::string gateway_section =
      "gateway: { port: " + std::to_string(port) + ", auth: { token: 'doctor-schema-token-0123456789abcdef' }";
  home_.write("pincer.json", "{ " + gateway_section + " } }\n");
  Gateway gateway(home_.path(), {"--port", std::to_string(port)}, isolated_cli_env(home_.path()));
  home_.write("pincer.json", "{ " + gateway_section + ", drainTimeoutMs: 'soon' } }\n");
  RunResult doctor;
  for (int i = 0; i < 60; ++i) {  // the reload follows the edit within a second or so
    doctor = pincer({"doctor"});
    if (doctor.out.find("reload was rejected") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out;
  EXPECT_NE(doctor.out.find("drainTimeoutMs"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("a gateway answers on 127.0.0.1:" + std::to_string(port)), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("reload was rejected"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("skipped: not checked while"), std::string::npos) << doctor.out;
}

}  // namespace
}  // namespace cli_port_and_errors_test
}  // namespace pincer::test
