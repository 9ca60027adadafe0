// What a new user's first runs of `pincer gateway run` met (the new-user tester's report): a --bind
// that --host silently overrode, the "every device on the network" warning shown twice on the
// terminal, and a "no model configured yet" hint naming ./build/pincer whatever binary was run.
// The real binary with a temp PINCER_HOME; outputs compared exactly.
#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace newuser_cli_test {  // named: the unity build puts several test files in one unit
namespace {

constexpr const char* kNewUserToken = "newuser-token-0123456789abcdef0123456789";

std::string newuser_read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t newuser_count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

class NewUserCliTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() const { return isolated_cli_env(home_.path()); }
  void write_config() const {
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kNewUserToken + "' } } }\n");
  }
  TempDir home_;
};

TEST_F(NewUserCliTest, ABindThatContradictsHostIsRefusedNamingBoth) {
  write_config();
  for (const char* bind : {"loopback", "lan"}) {
    auto run = run_pincer({"gateway", "run", "--port", "0", "--bind", bind, "--host", "0.0.0.0"}, env(), 20s);
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_EQ(run.err, std::string("pincer: --bind ") + bind +
                           " contradicts --host 0.0.0.0 (--host binds that address: drop --bind, or pass --bind "
                           "custom)\n");
    EXPECT_EQ(run.out.find("listening"), std::string::npos) << run.out;
  }
}

TEST_F(NewUserCliTest, TheNetworkWarningIsShownOnceAndKeptInTheLogFile) {
  write_config();
  Gateway gw(home_.path(), {"--bind", "custom", "--host", "0.0.0.0"}, env());
  const std::string said = "the gateway listens on 0.0.0.0:" + std::to_string(gw.port()) +
                           " (every interface), not only on this machine: every device on the network can reach it "
                           "(it still requires the token)";
  // The start-up log line comes after the warnings: once it is on stderr, all of them are.
  ASSERT_TRUE(gw.wait_for_stderr("listening on 0.0.0.0:" + std::to_string(gw.port())));
  const std::string err = gw.process().err();
  EXPECT_EQ(newuser_count(err, "every device on the network"), 1u) << err;
  EXPECT_NE(err.find("pincer: warning: " + said + "; bind loopback"), std::string::npos) << err;
  // The file logger writes each line before the next one is logged: the warning is in the file.
  const std::string log = newuser_read(home_.path() / "logs" / "gateway.log");
  EXPECT_EQ(newuser_count(log, said), 1u) << log;
}

TEST_F(NewUserCliTest, TheNoModelHintNamesTheBinaryAsItWasRun) {
  write_config();
  {  // By its path: the hint gives that path.
    Gateway gw(home_.path(), {}, env());
    ASSERT_TRUE(gw.process().wait_for_stdout("no model configured yet", 60s)) << gw.process().out();
    EXPECT_NE(gw.process().out().find("pincer: no model configured yet: run `" + pincer_binary() +
                                      " onboard` to choose a provider\n"),
              std::string::npos)
        << gw.process().out();
  }
  // Found on PATH (argv[0] is "pincer"): the hint says `pincer onboard`.
  const auto bin = home_.path() / "bin";
  std::filesystem::create_directories(bin);
  std::filesystem::create_symlink(pincer_binary(), bin / "pincer");
  auto e = env();
  e["PATH"] = bin.string() + ":/usr/bin:/bin";
  Process by_name({"/usr/bin/env", "pincer", "gateway", "run", "--port", "0"}, e);
  auto line = by_name.wait_for_stdout("no model configured yet", 60s);
  ASSERT_TRUE(line) << by_name.out() << by_name.err();
  EXPECT_EQ(*line, "pincer: no model configured yet: run `pincer onboard` to choose a provider");
  EXPECT_EQ(by_name.out().find("./build/pincer"), std::string::npos) << by_name.out();
}

// `pincer agent` waiting on a run when the gateway is killed: exit 1 with "connection closed" and
// where the reply will be, and the run (journaled) is answered after the restart (docs/cli.md).
TEST_F(NewUserCliTest, AnAgentRunCutByKill9SaysWhereItsReplyWillBeAndIsResumed) {
  MockLlm mock;
  home_.write("pincer.json", mock_config({.token = kNewUserToken, .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  auto gw = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{}, env());
  auto e = env();
  e["PINCER_GATEWAY_URL"] = "ws://127.0.0.1:" + std::to_string(gw->port());
  e["PINCER_GATEWAY_TOKEN"] = kNewUserToken;
  Process agent({pincer_binary(), "agent", "-m", "hello MOCK_HOLD:nu ECHO:resumed-reply"}, e);
  ASSERT_TRUE(wait_for_held(mock, "nu")) << agent.err();  // the mock is half-way through streaming the reply
  gw->process().signal(SIGKILL);
  ASSERT_EQ(agent.wait(60s), std::optional<int>(1)) << agent.out() << agent.err();
  EXPECT_NE(agent.err().find("pincer: agent: connection closed ("), std::string::npos) << agent.err();
  EXPECT_NE(agent.err().find("the gateway went away during the run; a message it had accepted is resumed when it "
                             "starts again (see the reply with: " + pincer_binary() + " sessions show main)\n"),
            std::string::npos)
      << agent.err();
  gw.reset();

  // The restart resumes the run (released: it goes through) and its reply is saved in the session.
  (void)http_request(mock.port(), "POST", "/__mock/release?name=nu");
  gw = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{}, env());
  ASSERT_TRUE(gw->wait_for_stderr("run journal: resuming"));
  WsClient c(gw->port());
  ASSERT_TRUE(handshake(c, connect_params(kNewUserToken)));
  std::string history;
  for (int i = 0; i < 600 && history.find("[resumed-reply]") == std::string::npos; ++i) {
    if (i > 0) std::this_thread::sleep_for(50ms);  // polled until the resumed turn is saved (a deadline, not a timing)
    history = c.request("chat.history", {{"sessionKey", "main"}})["payload"]["messages"].dump();
  }
  EXPECT_NE(history.find("[resumed-reply]"), std::string::npos) << history << gw->process().err();
}

}  // namespace
}  // namespace newuser_cli_test
}  // namespace pincer::test
