// CLI backends end to end (issue 17 item 5): the real gateway answers chat.send through a
// stand-in `claude` CLI (tests/fixtures/cli-backends/claude, first on PATH) that prints Claude
// Code's real `--output-format json` result and logs every call's argv and environment.
//   - `claude-cli/sonnet` works with no config beyond the model ref (OpenClaw's built-in backend);
//     the second turn (after a gateway restart) resumes the CLI session whose id sessions.json keeps,
//     and a session the CLI no longer knows is replaced by a new one;
//   - a CLI that prints nothing is stopped by the watchdog and the turn fails over to the
//     fallback model on the mock LLM; a CLI rate limit fails over too;
//   - clearEnv removes the named variables (and the built-in ANTHROPIC_API_KEY) from the child.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace cli_backend_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "cli-backend-test-token-0123456789";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliBackendTest : public ::testing::Test {
 protected:
  void start(const std::string& config) {
    home_.write("pincer.json", config);
    std::filesystem::create_directories(home_.path() / "cli-state");
    launch();
  }
  void launch() {
    client_.reset();
    gateway_.reset();
    const std::string fixtures = std::string(PINCER_SOURCE_DIR) + "/tests/fixtures/cli-backends";
    const char* path = std::getenv("PATH");
    gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{},
                                         std::map<std::string, std::string>{
                                             {"PATH", fixtures + ":" + (path ? path : "/usr/bin:/bin")},
                                             {"FAKE_CLI_LOG", (home_.path() / "cli-calls.jsonl").string()},
                                             {"FAKE_CLI_STATE", (home_.path() / "cli-state").string()},
                                             {"ANTHROPIC_API_KEY", "sk-ant-not-for-the-cli"},
                                             {"FAKE_SECRET", "secret-not-for-the-cli"},
                                             {"FAKE_KEEP", "kept"},
                                         });
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  /// Sends `message`; returns every frame up to the run's terminal chat event (included).
  std::vector<json> turn(const std::string& message, const std::string& run_id) {
    return chat_turn(*client_, "main", message, run_id);
  }
  static json terminal_of(const std::vector<json>& frames) { return frames.empty() ? json() : frames.back()["payload"]; }
  static std::string text_of(const json& message) {
    std::string out;
    if (message.contains("content") && message["content"].is_array()) {
      for (const auto& b : message["content"]) {
        if (b.value("type", "") == "text") out += b.value("text", "");
      }
    } else if (message.contains("content") && message["content"].is_string()) {
      out = message["content"];
    }
    return out;
  }
  /// The stand-in's log: one object per CLI call.
  std::vector<json> calls() {
    std::vector<json> out;
    std::istringstream in(read_text(home_.path() / "cli-calls.jsonl"));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(json::parse(line));
    }
    return out;
  }
  static bool has(const json& argv, const std::string& word) {
    for (const auto& a : argv) {
      if (a == word) return true;
    }
    return false;
  }
  static std::string after(const json& argv, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == flag) return argv[i + 1];
    }
    return "";
  }
  json sessions() { return json::parse(read_text(home_.path() / "agents/main/sessions/sessions.json")); }

  TempDir home_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(CliBackendTest, ClaudeCliAnswersAndTheNextTurnResumesItsSessionAfterARestart) {
  start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
        "  agents: { defaults: { model: { primary: 'claude-cli/sonnet' } } } }\n");

  json first = terminal_of(turn("hello cli", "run-1"));
  ASSERT_EQ(first["state"], "final") << first.dump();
  const std::string reply = text_of(first["message"]);
  EXPECT_EQ(reply.rfind("Claude stand-in (sonnet), turn 1 of ", 0), 0u) << reply;
  EXPECT_NE(reply.find(": hello cli"), std::string::npos) << reply;

  auto log = calls();
  ASSERT_EQ(log.size(), 1u);
  const json& argv = log[0]["argv"];
  const std::string session = after(argv, "--session-id");
  ASSERT_EQ(session.size(), 36u) << argv.dump();  // a fresh UUID
  EXPECT_NE(reply.find(session), std::string::npos);
  EXPECT_EQ(argv[0], "-p");
  EXPECT_EQ(after(argv, "--output-format"), "json");
  EXPECT_EQ(after(argv, "--model"), "sonnet");
  EXPECT_NE(after(argv, "--append-system-prompt").find("Pincer"), std::string::npos) << argv.dump();
  EXPECT_NE(argv.back().get<std::string>().find("hello cli"), std::string::npos);  // the prompt comes last
  // The built-in clearEnv: Claude Code uses its own login, not the gateway's API key.
  EXPECT_FALSE(log[0]["env"].contains("ANTHROPIC_API_KEY")) << log[0].dump();
  EXPECT_EQ(log[0]["env"]["FAKE_KEEP"], "kept");

  // The CLI session id is kept in sessions.json (saved within a second, batched): the turn after
  // a restart resumes it.
  for (int i = 0; i < 100 && !sessions()["agent:main:main"].contains("cliSessionIds"); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_EQ(sessions()["agent:main:main"]["cliSessionIds"]["claude-cli"], session) << sessions().dump();
  launch();
  json second = terminal_of(turn("and again", "run-2"));
  ASSERT_EQ(second["state"], "final") << second.dump();
  EXPECT_EQ(text_of(second["message"]).rfind("Claude stand-in (sonnet), turn 2 of " + session, 0), 0u) << second.dump();
  log = calls();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(after(log[1]["argv"], "--resume"), session) << log[1].dump();
  EXPECT_FALSE(has(log[1]["argv"], "--session-id"));
  EXPECT_FALSE(has(log[1]["argv"], "--append-system-prompt"));  // systemPromptWhen: first

  // The CLI lost the session (its files were deleted): the turn starts a new CLI session, once,
  // and sessions.json follows.
  std::filesystem::remove_all(home_.path() / "cli-state");
  std::filesystem::create_directories(home_.path() / "cli-state");
  json third = terminal_of(turn("after a wipe", "run-3"));
  ASSERT_EQ(third["state"], "final") << third.dump();
  EXPECT_EQ(text_of(third["message"]).rfind("Claude stand-in (sonnet), turn 1 of ", 0), 0u) << third.dump();
  log = calls();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(after(log[2]["argv"], "--resume"), session);
  const std::string fresh = after(log[3]["argv"], "--session-id");
  EXPECT_EQ(fresh.size(), 36u) << log[3].dump();
  EXPECT_NE(fresh, session);
  EXPECT_TRUE(has(log[3]["argv"], "--append-system-prompt"));  // a new CLI session gets the prompt again
  for (int i = 0; i < 100 && sessions()["agent:main:main"]["cliSessionIds"].value("claude-cli", "") != fresh; ++i) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(sessions()["agent:main:main"]["cliSessionIds"]["claude-cli"], fresh) << sessions().dump();

  // chat.history has the turns, answered by the CLI backend.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const json& messages = history["payload"]["messages"];
  ASSERT_GE(messages.size(), 6u) << history.dump();
  EXPECT_EQ(messages.back()["provider"], "claude-cli");
}

TEST_F(CliBackendTest, SilentCliHitsTheWatchdogAndFailsOverAndClearEnvApplies) {
  MockLlm mock;
  start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
        "  models: { providers: { mock: { baseUrl: '" + mock.base_url() + "', models: [ { id: 'fallback-model' } ] } } },\n" +
        "  agents: { defaults: {\n" +
        "    model: { primary: 'claude-cli/opus-4.5', fallbacks: ['mock/fallback-model'] },\n" +
        "    cliBackends: { 'claude-cli': { command: 'claude', clearEnv: ['FAKE_SECRET'],\n" +
        "      reliability: { watchdog: { fresh: { noOutputTimeoutMs: 1000 }, resume: { noOutputTimeoutMs: 1000 } } } } } } } }\n");

  auto frames = turn("please hang now", "run-hang");
  json hung = terminal_of(frames);
  ASSERT_EQ(hung["state"], "final") << hung.dump();
  EXPECT_EQ(text_of(hung["message"]), "Hello from the mock LLM.") << hung.dump();
  bool announced = false;
  for (const auto& f : frames) {
    if (f["event"] == "agent" && f["payload"]["stream"] == "lifecycle" && f["payload"]["data"]["phase"] == "fallback") {
      announced = true;
      EXPECT_EQ(f["payload"]["data"]["reason"], "timeout") << f.dump();
    }
  }
  EXPECT_TRUE(announced);
  auto log = calls();
  ASSERT_GE(log.size(), 1u);
  for (const auto& call : log) {
    EXPECT_EQ(after(call["argv"], "--model"), "opus");  // the built-in alias
    EXPECT_FALSE(call["env"].contains("FAKE_SECRET")) << call.dump();        // configured clearEnv
    EXPECT_FALSE(call["env"].contains("ANTHROPIC_API_KEY")) << call.dump();  // built-in clearEnv kept
    EXPECT_EQ(call["env"]["FAKE_KEEP"], "kept");
  }
  // A failed CLI call leaves no CLI session behind.
  EXPECT_FALSE(sessions()["agent:main:main"].contains("cliSessionIds")) << sessions().dump();

  // A rate limit reported by the CLI (Claude Code's is_error result, exit 1) fails over as well.
  frames = turn("ratelimit me", "run-429");
  json limited = terminal_of(frames);
  ASSERT_EQ(limited["state"], "final") << limited.dump();
  EXPECT_EQ(text_of(limited["message"]), "Hello from the mock LLM.") << limited.dump();
  std::string reason;
  for (const auto& f : frames) {
    if (f["event"] == "agent" && f["payload"]["stream"] == "lifecycle" && f["payload"]["data"]["phase"] == "fallback") {
      reason = f["payload"]["data"].value("reason", "");
    }
  }
  EXPECT_EQ(reason, "rate_limit");
}

TEST_F(CliBackendTest, CodexCliStreamsItsEventsAndResumesItsThread) {
  start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
        "  agents: { defaults: { model: { primary: 'codex-cli/gpt-5-codex' } } } }\n");
  auto frames = turn("first task", "run-c1");
  json first = terminal_of(frames);
  ASSERT_EQ(first["state"], "final") << first.dump();
  const std::string reply = text_of(first["message"]);
  EXPECT_EQ(reply.rfind("Codex stand-in (gpt-5-codex) started 0199a213-81c0-7800-8aa1-", 0), 0u) << reply;
  bool streamed = false;  // the agent_message reached the client as a delta before the final
  for (const auto& f : frames) {
    streamed |= f["event"] == "chat" && f["payload"]["state"] == "delta" &&
                text_of(f["payload"]["message"]).find("Codex stand-in") != std::string::npos;
  }
  EXPECT_TRUE(streamed);
  auto log = calls();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["argv"][0], "exec");
  EXPECT_TRUE(has(log[0]["argv"], "--json"));
  EXPECT_EQ(after(log[0]["argv"], "--model"), "gpt-5-codex");
  const std::string thread = reply.substr(reply.find("started ") + 8, reply.find(':', reply.find("started ")) - reply.find("started ") - 8);

  json second = terminal_of(turn("second task", "run-c2"));
  ASSERT_EQ(second["state"], "final") << second.dump();
  EXPECT_NE(text_of(second["message"]).find("resumed " + thread), std::string::npos) << second.dump();  // text output
  log = calls();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1]["argv"][1], "resume");
  EXPECT_EQ(log[1]["argv"][2], thread);
  EXPECT_FALSE(has(log[1]["argv"], "--json"));
}

// The session's thinking level (/think) reaches the CLI: codex-cli's built-in
// `-c model_reasoning_effort=<level>`; claude-cli's `--effort` plus a configured thinkingEnv (a
// level without an entry uses the nearest lower one); "off" passes nothing.
TEST_F(CliBackendTest, ThinkingLevelReachesCodexAsReasoningEffort) {
  start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
        "  agents: { defaults: { model: { primary: 'codex-cli/gpt-5-codex' } } } }\n");
  ASSERT_EQ(terminal_of(turn("no thinking", "run-t0"))["state"], "final");
  for (const char* level : {"low", "xhigh"}) {
    ASSERT_NE(terminal_of(turn(std::string("/think ") + level, std::string("run-set-") + level)).dump().find(level),
              std::string::npos);
    ASSERT_EQ(terminal_of(turn("think now", std::string("run-t-") + level))["state"], "final");
  }
  auto log = calls();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_FALSE(has(log[0]["argv"], "-c")) << log[0].dump();  // off: nothing
  EXPECT_EQ(after(log[1]["argv"], "-c"), "model_reasoning_effort=low") << log[1].dump();
  EXPECT_EQ(after(log[2]["argv"], "-c"), "model_reasoning_effort=xhigh") << log[2].dump();
  EXPECT_EQ(log[2]["argv"][1], "resume");  // resumed calls carry it too
}

TEST_F(CliBackendTest, ThinkingLevelReachesClaudeAsEffortAndConfiguredEnv) {
  start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
        "  agents: { defaults: { model: { primary: 'claude-cli/sonnet' }, thinkingDefault: 'medium',\n" +
        "    cliBackends: { 'claude-cli': { command: 'claude', thinkingEnv: { medium: { MAX_THINKING_TOKENS: '8192' },\n" +
        "                                                                    high: { MAX_THINKING_TOKENS: '16384' } },\n" +
        "                                   thinkingArgs: { minimal: [] } } } } } }\n");
  ASSERT_EQ(terminal_of(turn("default level", "run-k0"))["state"], "final");
  for (const char* level : {"xhigh", "minimal", "off"}) {
    ASSERT_NE(terminal_of(turn(std::string("/think ") + level, std::string("run-kset-") + level)).dump().find(level),
              std::string::npos);
    ASSERT_EQ(terminal_of(turn("think now", std::string("run-k-") + level))["state"], "final");
  }
  auto log = calls();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(after(log[0]["argv"], "--effort"), "medium") << log[0].dump();  // thinkingDefault
  EXPECT_EQ(log[0]["env"].value("MAX_THINKING_TOKENS", ""), "8192") << log[0].dump();
  EXPECT_EQ(after(log[1]["argv"], "--effort"), "xhigh") << log[1].dump();
  EXPECT_EQ(log[1]["env"].value("MAX_THINKING_TOKENS", ""), "16384") << log[1].dump();  // high's entry
  EXPECT_FALSE(has(log[2]["argv"], "--effort")) << log[2].dump();  // configured [] for minimal
  EXPECT_FALSE(log[2]["env"].contains("MAX_THINKING_TOKENS")) << log[2].dump();
  EXPECT_FALSE(has(log[3]["argv"], "--effort")) << log[3].dump();  // off: nothing
  EXPECT_FALSE(log[3]["env"].contains("MAX_THINKING_TOKENS")) << log[3].dump();
}

// ---- images as files (imageArg / imageMode) ----------------------------------------------------

// Two tiny images: a PNG and a GIF (their bytes, base64).
constexpr const char* kPngB64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
constexpr const char* kGifB64 = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

class CliImagesTest : public CliBackendTest {
 protected:
  /// Starts the gateway with backend img-cli (the stand-in `imagecli`) configured by `extra`.
  void start_with(const std::string& extra) {
    start(std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
          "  agents: { defaults: { model: { primary: 'img-cli/any' },\n" +
          "    cliBackends: { 'img-cli': { command: 'imagecli', output: 'text', sessionMode: 'none'" + extra +
          " } } } } }\n");
  }
  /// Sends a turn with the two images; returns the stand-in's log entry of its call.
  json send_images(const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "what are these?"},
                                              {"idempotencyKey", run_id},
                                              {"attachments", json::array({{{"type", "image"}, {"content", kPngB64}},
                                                                           {{"type", "image"}, {"content", kGifB64}}})}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 400; ++i) {
      auto f = client_->recv(30s);
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] != "delta") {
        EXPECT_EQ(p["state"], "final") << f->dump();
        reply_ = text_of(p["message"]);
        break;
      }
    }
    auto log = calls();
    return log.empty() ? json() : log.back();
  }
  std::string reply_;
};

/// The sha256 of an image's bytes, computed outside Pincer (base64 -d | sha256sum): the stand-in's
/// hash of what it read must equal it, so the bytes arrived intact.
std::string expected_sha(const std::filesystem::path& dir, const char* b64, const std::string& name) {
  // Decode with the system's base64 into a file, hash it with sha256sum: independent of Pincer.
  const auto file = dir / name;
  const std::string cmd = "printf '%s' '" + std::string(b64) + "' | base64 -d > '" + file.string() +
                          "' && sha256sum '" + file.string() + "' | cut -d' ' -f1";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST_F(CliImagesTest, RepeatPassesEachImageFileAfterItsFlagAndRemovesThemAfterTheCall) {
  start_with(", imageArg: '--image'");  // imageMode: repeat (the default)
  const json call = send_images("run-img-repeat");
  ASSERT_TRUE(call.is_object());
  const json& argv = call["argv"];
  // The prompt, then --image <png> --image <gif>.
  ASSERT_GE(argv.size(), 5u) << argv.dump();
  const std::size_t n = argv.size();
  EXPECT_EQ(argv[n - 4], "--image");
  EXPECT_EQ(argv[n - 2], "--image");
  EXPECT_NE(argv[n - 5].get<std::string>().find("what are these?"), std::string::npos) << argv.dump();
  ASSERT_EQ(call["images"].size(), 2u) << call.dump();
  const std::string png = expected_sha(home_.path(), kPngB64, "x.png"), gif = expected_sha(home_.path(), kGifB64, "x.gif");
  ASSERT_EQ(png.size(), 64u);
  EXPECT_EQ(call["images"][0]["sha256"], png) << call.dump();
  EXPECT_EQ(call["images"][1]["sha256"], gif) << call.dump();
  EXPECT_NE(reply_.find(png), std::string::npos) << reply_;
  for (const auto& image : call["images"]) {
    const std::string path = image["path"];
    EXPECT_NE(path.find("/pincer-cli-images-"), std::string::npos) << path;
    EXPECT_FALSE(std::filesystem::exists(path)) << path << " is still there after the run";
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(path).parent_path()));
  }
}

TEST_F(CliImagesTest, ListJoinsThePathsAndNoImageArgNamesThemInThePrompt) {
  start_with(", imageArg: '--image', imageMode: 'list'");
  json call = send_images("run-img-list");
  ASSERT_TRUE(call.is_object());
  json argv = call["argv"];
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[argv.size() - 2], "--image");
  const std::string joined = argv.back();
  ASSERT_EQ(call["images"].size(), 2u) << call.dump();
  EXPECT_EQ(joined, call["images"][0]["path"].get<std::string>() + "," + call["images"][1]["path"].get<std::string>());
  EXPECT_EQ(call["images"][0]["sha256"], expected_sha(home_.path(), kPngB64, "x.png"));
  for (const auto& image : call["images"]) EXPECT_TRUE(image["exists"]) << call.dump();
  for (const auto& image : call["images"]) EXPECT_FALSE(std::filesystem::exists(image["path"].get<std::string>()));

  // Without imageArg the CLI gets the paths in its prompt, one a line after the text.
  client_.reset();
  gateway_.reset();
  start_with("");
  call = send_images("run-img-prompt");
  ASSERT_TRUE(call.is_object());
  argv = call["argv"];
  EXPECT_FALSE(has(argv, "--image"));
  ASSERT_EQ(call["images"].size(), 2u) << call.dump();
  const std::string prompt = argv.back();
  EXPECT_NE(prompt.find("what are these?"), std::string::npos);
  EXPECT_NE(prompt.find("\n\n" + call["images"][0]["path"].get<std::string>() + "\n" +
                        call["images"][1]["path"].get<std::string>()),
            std::string::npos)
      << prompt;
  EXPECT_EQ(call["images"][1]["sha256"], expected_sha(home_.path(), kGifB64, "y.gif"));
  for (const auto& image : call["images"]) EXPECT_FALSE(std::filesystem::exists(image["path"].get<std::string>()));
}

}  // namespace
}  // namespace cli_backend_test
}  // namespace pincer::test
