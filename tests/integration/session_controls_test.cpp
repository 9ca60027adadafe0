// Cache-friendly prompts and session controls (issue 12 items 6–7) end to end: the real gateway
// binary, the mock LLM recording every request it gets (--log), a real WebSocket client.
//   - the system prompt and the tool schemas are byte-identical from turn to turn; the volatile
//     facts (time, time zone, bootstrap truncation notice) travel in a turn-context block of the
//     current user message only (CX-3, CX-4);
//   - /think xhigh, a provider that rejects it in OpenAI's real error shape, the step-down (AG-7);
//   - /model and sessions.patch {model}: from the next turn, or live while the run is clean (AG-6);
//   - sessions.preview.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace session_controls_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "session-controls-token-0123456789";

class SessionControlsTest : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& mock_args = {}, const std::string& extra_defaults = "",
             const std::string& script = "", const std::string& extra_top = "") {
    std::vector<std::string> args = {"--log", (home_.path() / "requests.jsonl").string()};
    if (!script.empty()) {
      home_.write("script.json", script);
      args.push_back("--script");
      args.push_back((home_.path() / "script.json").string());
    }
    args.insert(args.end(), mock_args.begin(), mock_args.end());
    mock_ = std::make_unique<MockLlm>(args);
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url(),
                                          .models = "{ id: 'mock-model', contextWindow: 128000, reasoning: true }, "
                                                    "{ id: 'mock-two', contextWindow: 96000 }"},
                             .defaults = extra_defaults,
                             .top = extra_top}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  /// chat.send and wait for the run's terminal chat event (or, for a command, its answer).
  json send(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    if (ack["payload"].value("status", "") != "started") return ack["payload"];  // a command answers at once
    return wait_terminal(run_id);
  }
  json wait_terminal(const std::string& run_id) {
    auto done = [&](const json& f) {
      return f["event"] == "chat" && f["payload"]["runId"] == run_id &&
             (f["payload"]["state"] == "final" || f["payload"]["state"] == "error" || f["payload"]["state"] == "aborted");
    };
    while (!client_->events().empty()) {
      json f = std::move(client_->events().front());
      client_->events().pop_front();
      if (done(f)) return f["payload"];
    }
    for (int i = 0; i < 3000; ++i) {
      auto f = client_->recv(20s);
      if (!f) break;
      if (done(*f)) return (*f)["payload"];
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  /// The generation requests the mock received (bodies), oldest first.
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(home_.path() / "requests.jsonl");
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      json entry = json::parse(line, nullptr, false);
      if (!entry.is_object()) continue;
      json body = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>(), nullptr, false) : entry["body"];
      if (body.is_object() && body.contains("messages")) out.push_back(body);
    }
    return out;
  }
  static std::string text_of(const json& message) {
    if (message.contains("content") && message["content"].is_string()) return message["content"];
    std::string out;
    if (message.contains("content") && message["content"].is_array()) {
      for (const auto& b : message["content"]) out += b.value("text", "");
    }
    return out;
  }
  std::filesystem::path transcript() const {
    for (const auto& e : std::filesystem::directory_iterator(home_.path() / "agents" / "main" / "sessions")) {
      if (e.path().extension() == ".jsonl") return e.path();
    }
    return {};
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(SessionControlsTest, EachRequestRepeatsThePreviousOneByteForByteAndTheTurnContextTravelsLast) {
  start({}, ", userTimezone: 'Asia/Kolkata'");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send("turn " + std::to_string(i), "r" + std::to_string(i))["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const json& messages = reqs[i]["messages"];
    ASSERT_EQ(messages[0]["role"], "system");
    EXPECT_EQ(messages[0].dump(), reqs[0]["messages"][0].dump()) << "system prompt changed at request " << i;
    EXPECT_EQ(reqs[i]["tools"].dump(), reqs[0]["tools"].dump()) << "tool schemas changed at request " << i;
    EXPECT_EQ(messages[0]["content"].get<std::string>().find("Current time"), std::string::npos);
    EXPECT_EQ(messages[0]["content"].get<std::string>().find("thinking="), std::string::npos);
    // Each user message starts with the time it was sent, in the user's zone, after the prefix.
    const std::string current = text_of(messages.back());
    EXPECT_EQ(current.rfind("[Turn context]\nCurrent time: ", 0), 0u) << current;
    EXPECT_NE(current.find("(Asia/Kolkata, UTC+05:30)"), std::string::npos) << current;
    EXPECT_NE(current.find("turn " + std::to_string(i)), std::string::npos);
    // Everything the previous request sent repeats byte for byte: only new messages follow.
    if (i > 0) {
      const json& prev = reqs[i - 1]["messages"];
      ASSERT_GT(messages.size(), prev.size());
      for (std::size_t m = 0; m < prev.size(); ++m) EXPECT_EQ(messages[m].dump(), prev[m].dump()) << i << "/" << m;
    }
  }
  // The transcript keeps the user's words only.
  std::ifstream in(transcript());
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.find("Turn context"), std::string::npos);

  // A workspace file edit is what changes the prefix.
  home_.write("workspace/AGENTS.md", "# Rules\nBe brief.\n");
  ASSERT_EQ(send("after edit", "r3")["state"], "final");
  reqs = requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_NE(reqs[3]["messages"][0].dump(), reqs[2]["messages"][0].dump());
  EXPECT_EQ(reqs[3]["tools"].dump(), reqs[2]["tools"].dump());
}

TEST_F(SessionControlsTest, TheBootstrapTruncationWarningReachesTheModelOnce) {
  home_.write("workspace/AGENTS.md", "# Rules\n" + std::string(3000, 'x') + "\n");  // over bootstrapMaxChars
  start({}, ", bootstrapMaxChars: 1000");
  ASSERT_EQ(send("first", "w0")["state"], "final");
  ASSERT_EQ(send("second", "w1")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string first = text_of(reqs[0]["messages"].back());
  EXPECT_NE(first.find("AGENTS.md"), std::string::npos) << first;  // in the turn context, not the system prompt
  EXPECT_EQ(reqs[0]["messages"][0]["content"].get<std::string>().find("were shortened"), std::string::npos);
  EXPECT_EQ(reqs[1]["messages"].dump().find("were shortened"), std::string::npos);  // `once`
}

TEST_F(SessionControlsTest, ThinkXhighIsSteppedDownWhenTheProviderRejectsIt) {
  start({"--reject-thinking", "xhigh"});
  json answer = send("/think xhigh", "t0");
  ASSERT_NE(answer.dump().find("xhigh"), std::string::npos) << answer.dump();
  json final = send("think hard ECHO:done", "t1");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_NE(text_of(final["message"]).find("[done]"), std::string::npos);
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u) << (reqs.empty() ? "" : reqs[0].dump()).substr(0, 400);
  EXPECT_EQ(reqs[0].value("reasoning_effort", ""), "xhigh");
  EXPECT_EQ(reqs[1].value("reasoning_effort", ""), "high");  // the best level the error listed
  // The session remembers the level that works: the next turn asks for it at once.
  ASSERT_EQ(send("again", "t2")["state"], "final");
  reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[2].value("reasoning_effort", ""), "high");
  auto list = client_->request("sessions.list", json::object());
  EXPECT_EQ(list["payload"]["sessions"][0].value("thinkingLevel", ""), "high") << list.dump();
}

TEST_F(SessionControlsTest, ModelSwitchAppliesFromTheNextTurnAndIsRecorded) {
  start();
  ASSERT_EQ(send("first", "m0")["state"], "final");
  json answer = send("/model mock/mock-two", "m1");
  EXPECT_NE(answer.dump().find("mock/mock-two"), std::string::npos) << answer.dump();
  json bad = send("/model nope/none", "m2");
  EXPECT_NE(bad.dump().find("nope"), std::string::npos) << bad.dump();
  ASSERT_EQ(send("second", "m3")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["model"], "mock-model");
  EXPECT_EQ(reqs[1]["model"], "mock-two");
  // sessions.list gives the window of the model the session runs on, not the agent's primary.
  auto context_tokens = [&] {
    auto listed = client_->request("sessions.list", json::object());
    for (const auto& row : listed["payload"]["sessions"]) {
      if (row["key"].get<std::string>().ends_with(":main")) return row.value("contextTokens", json());
    }
    return json();
  };
  EXPECT_EQ(context_tokens(), 96000);
  // The transcript records the change (SS-2 model_change), and sessions.patch {model:null} undoes it.
  std::ifstream in(transcript());
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find(R"("type":"model_change")"), std::string::npos);
  auto patched = client_->request("sessions.patch", {{"key", "main"}, {"model", nullptr}, {"label", "Work"}});
  ASSERT_EQ(patched["ok"], true) << patched.dump();
  EXPECT_EQ(patched["payload"]["resolved"]["model"], "mock-model");
  EXPECT_EQ(patched["payload"]["entry"]["label"], "Work");
  EXPECT_FALSE(patched["payload"]["entry"].contains("modelOverride"));
  ASSERT_EQ(send("third", "m4")["state"], "final");
  EXPECT_EQ(requests().back()["model"], "mock-model");
  EXPECT_EQ(context_tokens(), 128000);
  // What Pincer does not have is refused, naming the field.
  auto refused = client_->request("sessions.patch", {{"key", "main"}, {"verboseLevel", "on"}});
  EXPECT_EQ(refused["ok"], false);
  EXPECT_NE(refused.dump().find("verboseLevel"), std::string::npos);
  auto bad_level = client_->request("sessions.patch", {{"key", "main"}, {"thinkingLevel", "max"}});
  EXPECT_EQ(bad_level["ok"], false);
}

TEST_F(SessionControlsTest, ModelSwitchIsLiveWhileTheAttemptIsClean) {
  // The first call waits 20 s before its first delta: nothing is shown while we switch.
  start({}, "", R"([{"delayMs": 20000, "text": "slow"}, {"text": "fast reply"}])");
  auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "hello"}, {"idempotencyKey", "live"}});
  ASSERT_EQ(ack["ok"], true);
  for (int i = 0; i < 400 && requests().empty(); ++i) std::this_thread::sleep_for(50ms);  // the call is out
  ASSERT_EQ(requests().size(), 1u);
  auto patched = client_->request("sessions.patch", {{"key", "main"}, {"model", "mock/mock-two"}});
  ASSERT_EQ(patched["ok"], true) << patched.dump();
  EXPECT_EQ(patched["payload"]["liveSwitch"], true);
  json final = wait_terminal("live");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(text_of(final["message"]), "fast reply");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["model"], "mock-model");
  EXPECT_EQ(reqs[1]["model"], "mock-two");
}

TEST_F(SessionControlsTest, ModelSwitchAfterTextWasShownWaitsForTheNextTurn) {
  start();
  auto ack = client_->request("chat.send",
                              {{"sessionKey", "main"}, {"message", "MOCK_SLOW:400 hello"}, {"idempotencyKey", "dirty"}});
  ASSERT_EQ(ack["ok"], true);
  bool delta = false;
  for (int i = 0; i < 500 && !delta; ++i) {
    auto f = client_->recv(20s);
    ASSERT_TRUE(f);
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] == "delta") delta = true;
    else client_->events().push_back(*f);
  }
  ASSERT_TRUE(delta);
  auto patched = client_->request("sessions.patch", {{"key", "main"}, {"model", "mock/mock-two"}});
  ASSERT_EQ(patched["ok"], true) << patched.dump();
  EXPECT_EQ(patched["payload"]["liveSwitch"], false);
  ASSERT_EQ(wait_terminal("dirty")["state"], "final");
  ASSERT_EQ(send("next", "after")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["model"], "mock-model");
  EXPECT_EQ(reqs[1]["model"], "mock-two");
}

TEST_F(SessionControlsTest, CacheTraceRecordsEachCallAndWhereItDiffers) {
  start({}, "", "", ", diagnostics: { cacheTrace: { enabled: true } }");
  ASSERT_EQ(send("one", "c0")["state"], "final");
  ASSERT_EQ(send("two", "c1")["state"], "final");
  std::filesystem::path dir = home_.path() / "cache-trace";
  ASSERT_TRUE(std::filesystem::is_directory(dir));
  std::vector<json> lines;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["firstChangedMessage"], -1);
  const int64_t count = lines[1]["stages"]["messages"]["count"];
  EXPECT_EQ(count, 3);  // one, its reply, two (the system prompt is traced apart)
  // Everything the first call sent repeats: the first new message is the first call's count.
  EXPECT_EQ(lines[1]["firstChangedMessage"], lines[0]["stages"]["messages"]["count"]);
  EXPECT_EQ(lines[1]["systemChanged"], false);
  EXPECT_EQ(lines[1]["toolsChanged"], false);
  EXPECT_EQ(lines[1]["stages"]["prompt"]["systemDigest"], lines[0]["stages"]["prompt"]["systemDigest"]);

  // A workspace file edited between turns changes the system prompt, and the trace says so.
  const auto agents_md = home_.path() / "workspace" / "AGENTS.md";
  ASSERT_TRUE(std::filesystem::exists(agents_md));
  std::ofstream(agents_md, std::ios::app) << "\nAlso: answer in haiku.\n";
  ASSERT_EQ(send("three", "c2")["state"], "final");
  lines.clear();
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  }
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["systemChanged"], true);
  EXPECT_EQ(lines[2]["toolsChanged"], false);
  EXPECT_EQ(lines[2]["firstChangedMessage"], lines[1]["stages"]["messages"]["count"]);

  // Each record describes the request the provider got: the system prompt's size, the number of
  // tools and of messages (requests() are the bodies the mock received, in order).
  const std::vector<json> bodies = requests();
  ASSERT_EQ(bodies.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const json& body = bodies[i];
    const json& stages = lines[i]["stages"];
    EXPECT_GT(stages["request"]["bytes"].get<int64_t>(), static_cast<int64_t>(text_of(body["messages"][0]).size())) << i;
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(stages["prompt"]["systemChars"], text_of(body["messages"][0]).size()) << i;
    EXPECT_EQ(stages["prompt"]["tools"], body["tools"].size()) << i;
    EXPECT_EQ(stages["messages"]["count"], body["messages"].size() - 1) << i;  // the system prompt apart
  }
}

TEST_F(SessionControlsTest, SessionsPreview) {
  start();
  ASSERT_EQ(send("hello there, this is a rather long first message for the preview", "p0")["state"], "final");
  auto r = client_->request("sessions.preview", {{"keys", {"main", "agent:main:nothing"}}, {"limit", 5}, {"maxChars", 20}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  const json& previews = r["payload"]["previews"];
  ASSERT_EQ(previews.size(), 2u);
  EXPECT_EQ(previews[0]["key"], "main");
  EXPECT_EQ(previews[0]["status"], "ok");
  ASSERT_EQ(previews[0]["items"].size(), 2u);
  EXPECT_EQ(previews[0]["items"][0]["role"], "user");
  EXPECT_EQ(previews[0]["items"][0]["text"], "hello there, this...");  // 20 chars with the ellipsis
  EXPECT_EQ(previews[0]["items"][1]["role"], "assistant");
  EXPECT_EQ(previews[1]["status"], "missing");
  EXPECT_EQ(client_->request("sessions.preview", json::object())["ok"], false);
}

}  // namespace
}  // namespace session_controls_test
}  // namespace pincer::test
