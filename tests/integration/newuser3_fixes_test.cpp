// Defects a third new-user pass found in the CLI's wording, with the real binary (and, where a user
// has one, the real gateway):
//   * `pincer memory search --corpus sessions` with the sessions corpus off says it to the user
//     (the text written for the model said "the user can enable it"), and `--max-results abc`
//     says what the flag takes (not CLI11's "not in range");
//   * `pincer channels status` after a rejected reload says the running config is not the file's
//     (it said "No channels configured" while pincer.json had channels.webhook);
//   * `pincer gateway run --bind custom` without --host refuses before it writes pincer.json.
// Every wait is for an observable condition with a generous deadline.
#include <filesystem>

#include <gtest/gtest.h>

#include "gateway_process.h"

namespace pincer::test {
namespace newuser3_fixes_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;

constexpr const char* kNewUser3Token = "newuser3-fixes-token-0123456789";

class NewUser3Fixes : public ::testing::Test {
 protected:
  /// The CLI's environment: this home, and a gateway port nobody listens on (the CLI then works
  /// on the files), unless `port` names one.
  std::map<std::string, std::string> env(int port = 1) const {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(port)},
            {"PINCER_GATEWAY_TOKEN", kNewUser3Token}};
  }
  TempDir home_;
};

TEST_F(NewUser3Fixes, MemorySearchSpeaksToTheUser) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kNewUser3Token + "' } } }\n");
  auto r = run_pincer({"memory", "search", "tea", "--corpus", "sessions"}, env(), 30s);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the sessions corpus is off: set memory.search.sources to include \"sessions\""), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("the user can enable"), std::string::npos) << "words for the model, not the user: " << r.err;

  r = run_pincer({"memory", "search", "tea", "--max-results", "abc"}, env(), 30s);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-results: expected a whole number from 1 to 100 (got 'abc')"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
}

TEST_F(NewUser3Fixes, ChannelsStatusSaysTheRunningConfigIsNotTheFile) {
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kNewUser3Token + "' } } }\n");
  Gateway gateway(home_.path());
  // A webhook whose secret comes from a variable the gateway's environment lacks: the reload is
  // rejected and the gateway keeps its config without channels.
  home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kNewUser3Token +
                                 "' } }, channels: { webhook: { secret: '${PINCER_NU3_WEBHOOK_SECRET}' } } }\n");
  ASSERT_TRUE(gateway.wait_for_stderr("the running config is kept")) << gateway.process().err();
  auto r = run_pincer({"channels", "status"}, env(gateway.port()), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("No channels configured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No channels in the config the gateway runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the gateway runs an older config: its reload of"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PINCER_NU3_WEBHOOK_SECRET"), std::string::npos) << r.out;
}

TEST_F(NewUser3Fixes, GatewayRunRefusesBindCustomWithoutHostBeforeWritingAnything) {
  auto r = run_pincer({"gateway", "run", "--bind", "custom", "--port", "0"}, env(), 30s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("gateway.customBindHost is not set (or pass --host)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(home_.path() / "pincer.json")) << "nothing written for a start that was refused";
  EXPECT_EQ(r.out.find("created"), std::string::npos) << r.out;
  r = run_pincer({"gateway", "run", "--host", "not-an-address", "--port", "0"}, env(), 30s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--host: expected an IPv4 or IPv6 address"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(home_.path() / "pincer.json"));
}

}  // namespace
}  // namespace newuser3_fixes_test
}  // namespace pincer::test
