// Bad bytes, a full disk and a kill -9 against the real binary (issue 11 items 1-3 and 10): the
// CLI refuses bytes that are not UTF-8 naming the argument, the gateway survives them; a turn
// whose transcript append fails is an error and leaves valid JSONL; a turn cut off by SIGKILL (twice:
// the run journal resumes it once) is marked interrupted and the next model call does not see the lost request as pending; sessions
// list/show read the local files when no gateway runs.
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace store_robustness_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "store-robustness-token-0123456789";

std::string config_for(const MockLlm& mock) {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}});
}

/// Every line of a JSONL file parsed; a line that does not parse fails the test.
std::vector<json> jsonl(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(!bytes.empty() && bytes.back() == '\n') << file << " does not end in a complete line";
  std::vector<json> out;
  std::istringstream lines(bytes);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    json value = json::parse(line, nullptr, false);
    EXPECT_FALSE(value.is_discarded()) << file << ":" << n << " is not JSON: " << line.substr(0, 120);
    out.push_back(std::move(value));
  }
  return out;
}

/// The one transcript (.jsonl) of the main agent.
fs::path the_transcript(const fs::path& home) {
  fs::path found;
  for (const auto& e : fs::directory_iterator(home / "agents/main/sessions")) {
    if (e.path().extension() == ".jsonl") found = e.path();
  }
  EXPECT_FALSE(found.empty()) << "no transcript under " << home;
  return found;
}

std::vector<json> messages_of(const std::vector<json>& lines) {
  std::vector<json> out;
  for (const auto& l : lines) {
    if (l.value("type", "") == "message") out.push_back(l["message"]);
  }
  return out;
}

class StoreRobustnessTest : public ::testing::Test {
 protected:
  void start_mock() {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", config_for(*mock_));
  }
  std::map<std::string, std::string> cli_env() const {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(port_)},
            {"PINCER_GATEWAY_URL", "\x01"}, {"PINCER_GATEWAY_TOKEN", "\x01"}, {"HTTP_PROXY", "\x01"},
            {"http_proxy", "\x01"}};
  }
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(port_);
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// The model requests the mock received, oldest first.
  std::vector<json> model_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<json> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e["body"]);
    }
    return out;
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  int port_ = 0;
};

// ---- item 1: bytes that are not UTF-8 --------------------------------------------------------

TEST_F(StoreRobustnessTest, CommandLineBytesThatAreNotUtf8AreRefusedNamingTheArgument) {
  const std::string bad = "caf\xE9";  // Latin-1 é
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  const std::vector<Case> cases = {
      {{"agent", "-m", bad}, "-m:"},
      {{"agent", "--message=" + bad}, "--message:"},
      {{"agent", "-m", "hi", "--session", bad}, "--session:"},
      {{"agent", "-m", "hi", "--agent", bad}, "--agent:"},
      {{"config", "set", "agents.defaults.model.primary", bad}, "argument 4:"},
      {{"gateway", "call", "health", "--params", "{\"x\":\"" + bad + "\"}"}, "--params:"},
      {{"sessions", "show", bad}, "argument 3:"},
      {{"pairing", "approve", "telegram", bad}, "argument 4:"},
      {{"devices", "approve", bad}, "argument 3:"},
      {{"onboard", "--model", bad}, "--model:"},
      {{"import", "openclaw", "--from", "/tmp/" + bad}, "--from:"},
  };
  for (const auto& c : cases) {
    auto r = run_pincer(c.args, cli_env());
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find("pincer: " + c.named + " invalid UTF-8 at byte "), std::string::npos)
        << c.args[0] << " " << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(" (0xe9) (arguments must be UTF-8 text)"), std::string::npos)
        << c.args[0] << " " << c.args[1] << ": " << r.err;
  }
}

TEST_F(StoreRobustnessTest, AMessageOnStandardInputThatIsNotUtf8IsRefused) {
  Process p({"/bin/sh", "-c", "printf 'hello \\377\\n' | \"$0\" agent -m -", pincer_binary()}, cli_env());
  ASSERT_EQ(p.wait(10s), 2) << p.err();
  EXPECT_NE(p.err().find("--message -: standard input is not UTF-8 text (invalid UTF-8 at byte 6 (0xff))"),
            std::string::npos)
      << p.err();
}

TEST_F(StoreRobustnessTest, TheGatewaySurvivesFramesAndTranscriptLinesThatAreNotUtf8) {
  start_mock();
  // A transcript with a line of raw Latin-1 bytes in the middle (written by hand, or another tool).
  const std::string id = "0f4d2c1e-1111-4222-8333-944445555666";
  home_.write("agents/main/sessions/sessions.json",
              "{\"agent:main:main\":{\"sessionId\":\"" + id + "\",\"updatedAt\":1700000000000}}\n");
  home_.write("agents/main/sessions/" + id + ".jsonl",
              "{\"type\":\"session\",\"version\":3,\"id\":\"" + id + "\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n"
              "{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\","
              "\"message\":{\"role\":\"user\",\"content\":\"caf\xE9\",\"timestamp\":1}}\n");
  gateway_ = std::make_unique<Gateway>(home_.path());
  port_ = gateway_->port();

  {
    auto raw = std::make_unique<WsClient>(port_);
    ASSERT_TRUE(raw->recv());
    raw->send_text("{\"type\":\"req\",\"id\":\"x\",\"method\":\"health\",\"params\":{\"a\":\"\xFF\"}}");
    raw->wait_closed(5s);  // refused one way or another; the process must go on
  }
  auto c = client();
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  EXPECT_EQ(history["ok"], true) << history.dump();
  auto r = run_pincer({"agent", "-m", "still alive ECHO:ok"}, cli_env(), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[ok]"), std::string::npos) << r.out;
  EXPECT_EQ(::kill(gateway_->process().pid(), 0), 0) << "the gateway died";
}

// ---- item 2: a full disk ---------------------------------------------------------------------

TEST_F(StoreRobustnessTest, ATurnThatCannotBeSavedFailsVisiblyAndTheTranscriptStaysValid) {
  start_mock();
  {
    // The gateway child gets a 4 KiB file-size limit with SIGXFSZ ignored: appends past it fail
    // with EFBIG after a partial write, as a full disk fails them with ENOSPC.
    rlimit old{};
    ::getrlimit(RLIMIT_FSIZE, &old);
    auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
    rlimit low{4096, old.rlim_max};
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &low), 0);
    gateway_ = std::make_unique<Gateway>(home_.path());
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, old_handler);
  }
  port_ = gateway_->port();

  // The reply (6000 characters) does not fit: the turn must not look saved.
  auto r = run_pincer({"agent", "-m", "a long one MOCK_LONG:6000"}, cli_env(), 60s);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("could not be saved"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;

  // A turn that fits still works, and the file is valid JSONL throughout.
  r = run_pincer({"agent", "-m", "short ECHO:fits"}, cli_env(), 60s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto messages = messages_of(jsonl(the_transcript(home_.path())));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[1]["role"], "assistant");  // the failed turn is closed, as an error
  EXPECT_EQ(messages[1]["stopReason"], "error");
  EXPECT_EQ(messages[2]["role"], "user");
  EXPECT_EQ(messages[3]["role"], "assistant");
  EXPECT_EQ(messages[3]["stopReason"], "stop");
}

/// Runs `pincer <args>` with writes past `limit` bytes per file failing (EFBIG, SIGXFSZ ignored),
/// which root cannot bypass as it bypasses permissions.
RunResult run_pincer_with_file_limit(rlim_t limit, const std::vector<std::string>& args,
                                     const std::map<std::string, std::string>& env) {
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit low{limit, old.rlim_max};
  ::setrlimit(RLIMIT_FSIZE, &low);
  std::vector<std::string> argv = {pincer_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, env);  // inherits the limit and the ignored signal
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  RunResult r;
  r.exit_code = p.wait(30s).value_or(-1);
  r.out = p.out();
  r.err = p.err();
  return r;
}

TEST_F(StoreRobustnessTest, DoctorSaysWhenTheStateDirCannotBeWritten) {
  start_mock();
  auto r = run_pincer_with_file_limit(1024, {"doctor"}, cli_env());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("cannot write in " + home_.path().string() + ": File too large"), std::string::npos) << r.out;
  r = run_pincer({"doctor", "--json"}, cli_env(), 30s);
  EXPECT_NE(r.out.find("\"state\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(home_.path().string() + " is writable"), std::string::npos) << r.out;
}

// ---- item 3: kill -9 during a streamed reply --------------------------------------------------

TEST_F(StoreRobustnessTest, AReplyCutOffByKill9IsMarkedInterruptedAndNotAnsweredAgain) {
  start_mock();
  gateway_ = std::make_unique<Gateway>(home_.path());
  port_ = gateway_->port();
  // The run journal (SS-6) resumes a cut-off turn once; cut off again while resumed, it is given
  // up and marked interrupted. MOCK_HOLD keeps each attempt half-streamed until the kill.
  auto held_requests = [&](std::size_t n) {
    for (int i = 0; i < 600; ++i) {
      json h = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
      const bool held = model_requests().size() >= n && h.is_object() && h.contains("lost") &&
                        h["lost"].value("waiting", 0) >= static_cast<int>(n);  // (a dead stream stays counted)
      // ... and what streamed is checkpointed (a timer writes it shortly after the first delta).
      if (held && fs::exists(the_transcript(home_.path()).string() + ".partial")) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  };
  {
    auto c = client();
    auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "the lost one MOCK_HOLD:lost"},
                                        {"idempotencyKey", "run-lost"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  for (std::size_t attempt = 1; attempt <= 2; ++attempt) {
    ASSERT_TRUE(held_requests(attempt)) << "attempt " << attempt << " never reached the mock";
    gateway_->process().signal(SIGKILL);
    ASSERT_TRUE(gateway_->process().wait(10s).has_value());
    gateway_ = std::make_unique<Gateway>(home_.path());
    port_ = gateway_->port();
  }
  EXPECT_EQ(model_requests().size(), 2u);  // the first attempt and its one resume
  http_request(mock_->port(), "POST", "/__mock/release?name=lost");

  // Clients see the turn as interrupted.
  auto c = client();
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const json& shown = history["payload"]["messages"];
  ASSERT_EQ(shown.size(), 2u) << shown.dump();
  EXPECT_EQ(shown[1]["role"], "assistant");
  EXPECT_EQ(shown[1]["stopReason"], "aborted");
  EXPECT_EQ(shown[1]["errorMessage"], "interrupted (the gateway stopped before this reply was finished)");
  // What had streamed before the kill is kept (checkpointed beside the transcript while streaming).
  ASSERT_TRUE(shown[1]["content"].is_array() && !shown[1]["content"].empty()) << shown[1].dump();
  const std::string partial = shown[1]["content"][0].value("text", "");
  EXPECT_FALSE(partial.empty());
  EXPECT_EQ(std::string("Hello from the mock LLM.").rfind(partial, 0), 0u) << partial;
  EXPECT_FALSE(fs::exists(the_transcript(home_.path()).string() + ".partial"));
  auto listed = run_pincer({"sessions", "show", "main"}, cli_env(), 30s);
  EXPECT_NE(listed.out.find("agent: " + partial + " [interrupted (the gateway stopped before this reply was finished)]"),
            std::string::npos) << listed.out << listed.err;

  // The next model call sees the lost request answered by the marker, not pending.
  auto r = run_pincer({"agent", "-m", "the next one ECHO:next"}, cli_env(), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = model_requests();
  ASSERT_FALSE(requests.empty());
  const json& sent = requests.back()["messages"];
  std::vector<std::string> roles;
  for (const auto& m : sent) roles.push_back(m.value("role", ""));
  for (std::size_t i = 1; i < roles.size(); ++i) {
    EXPECT_FALSE(roles[i] == "user" && roles[i - 1] == "user") << "two user messages in a row: " << sent.dump();
  }
  ASSERT_GE(sent.size(), 3u);
  const json& marker = sent[sent.size() - 2];
  EXPECT_EQ(marker["role"], "assistant");
  EXPECT_NE(marker.dump().find("this reply is incomplete"), std::string::npos) << marker.dump();

  // And the transcript on disk says so, once.
  const auto messages = messages_of(jsonl(the_transcript(home_.path())));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[1]["stopReason"], "aborted");
  EXPECT_EQ(messages[3]["stopReason"], "stop");
}

// ---- item 10: sessions without a gateway -----------------------------------------------------

TEST_F(StoreRobustnessTest, SessionsListAndShowReadTheLocalFilesWhenNoGatewayRuns) {
  start_mock();
  gateway_ = std::make_unique<Gateway>(home_.path());
  port_ = gateway_->port();
  auto r = run_pincer({"agent", "-m", "offline later ECHO:saved"}, cli_env(), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(10s).has_value());
  gateway_.reset();

  r = run_pincer({"sessions", "list"}, cli_env(), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("agent:main:main"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("(offline data)"), std::string::npos) << r.err;

  r = run_pincer({"sessions", "show", "main"}, cli_env(), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("you: offline later ECHO:saved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agent: Hello from the mock LLM. [saved]"), std::string::npos) << r.out;

  r = run_pincer({"sessions", "list", "--json"}, cli_env(), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto payload = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(payload.is_discarded()) << r.out;
  EXPECT_EQ(payload["count"], 1);
}

}  // namespace
}  // namespace store_robustness_test
}  // namespace pincer::test
