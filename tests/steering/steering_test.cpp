// Steering (SPEC AG-4, QL-3 `steer` / `steer-backlog`): a message for a busy session enters the
// running loop at the next tool-call boundary, or, when the run ends before one, runs as a turn
// of its own — never lost, never answered twice. The agent runtime, the inbound pipeline, the
// reply delivery, the tools and the files are real; the model is the mock LLM (a Node process
// speaking the OpenAI Chat Completions stream over real HTTP, tests/mock_llm/), driven by a
// script; the chat platform is a recording stand-in.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "agent/attachments.h"
#include "channels/channel.h"
#include "channels/inbound_pipeline.h"
#include "channels/outbox.h"
#include "channels/pairing_store.h"
#include "channels/reply_delivery.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "gateway_process.h"

namespace pincer {
namespace {

using agent::RunEvent;
using nlohmann::json;
using K = RunEvent::Kind;

constexpr const char* kSkipped = "Skipped: the user sent a new message";

/// A temp state dir, the mock LLM started with `script`, and the config pointing at it.
struct Fixture {
  test::TempDir home;
  std::filesystem::path log = home.path() / "mock-requests.jsonl";
  std::unique_ptr<test::MockLlm> mock;
  json config;

  explicit Fixture(const json& script, const json& extra_config = json::object()) {
    home.write("script.json", script.dump());
    mock = std::make_unique<test::MockLlm>(
        std::vector<std::string>{"--script", (home.path() / "script.json").string(), "--log", log.string()});
    config = {{"models",
               {{"providers",
                 {{"mock",
                   {{"baseUrl", mock->base_url()},
                    {"apiKey", "k"},
                    {"api", "openai-completions"},
                    {"models", json::array({{{"id", "mock-model"}, {"contextWindow", 128000}}})}}}}}}},
              {"agents", {{"defaults", {{"model", {{"primary", "mock/mock-model"}}}}}}},
              // The chat senders here are the owner: their exec calls run without approvals (TL-3).
              {"commands", {{"ownerAllowFrom", json::array({"*"})}}}};
    config.merge_patch(extra_config);
  }

  /// The generation requests the mock received, oldest first: their `messages` arrays.
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      json entry = json::parse(line);
      json body = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
      if (body.is_object() && body.contains("messages")) out.push_back(body["messages"]);
    }
    return out;
  }
};

/// Runs `loop` until stop() or `ms` (a test that hangs fails instead).
void run_for(EventLoop& loop, int64_t ms) {
  loop.after(ms, [&loop] { loop.stop(); });
  loop.run();
}

std::string text_of(const json& message) {
  if (message["content"].is_string()) return message["content"].get<std::string>();
  std::string out;
  if (message["content"].is_array()) {
    for (const auto& block : message["content"]) {
      // (the time block each user message carries in a request: RunInputs::turn_context)
      if (block.value("text", "").rfind("[Turn context]", 0) == 0) continue;
      out += block.value("text", "");
    }
  }
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// ---- AgentRun / AgentService ------------------------------------------------------------------

TEST(AgentSteering, SteeringSkipsTheRemainingToolCallsAndTheModelSeesTheMessage) {
  Fixture f(json::array({{{"toolCalls",
                           json::array({{{"name", "exec"}, {"arguments", {{"command", "echo first-tool-ran"}}}},
                                        {{"name", "exec"}, {"arguments", {{"command", "touch second-tool-ran"}}}}})}},
                         {{"text", "STEERED REPLY"}}}));
  EventLoop loop;
  agent::AgentService agents(loop, SystemClock::instance(), f.config, f.home.path());
  std::vector<RunEvent> events;
  std::optional<bool> steered;
  json history;
  loop.post([&] {
    auto accepted = agents.send({"main", "", "run two tools", "run-steer", "", agent::RunLane::Main}, [&](const RunEvent& e) {
      events.push_back(e);
      // While the first tool runs (it starts on a worker right after this event).
      if (e.kind == K::ToolStart && !steered) steered = agents.steer("main", "run-steer", "STEER: look at this instead");
      if (e.kind == K::End || e.kind == K::Error || e.kind == K::Aborted) {
        loop.post([&] {  // the transcript, as chat.history shows it
          if (auto h = agents.history("main", 0)) history = *h;
          loop.stop();
        });
      }
    });
    ASSERT_TRUE(accepted) << accepted.error().message;
  });
  run_for(loop, 20000);

  ASSERT_TRUE(steered.has_value());
  EXPECT_TRUE(*steered);
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(events.back().kind, K::End) << events.back().error;
  EXPECT_EQ(events.back().text, "STEERED REPLY");
  // One tool ran; the Steered event came after its result and before the reply.
  std::vector<K> kinds;
  for (const auto& e : events) {
    if (e.kind != K::AssistantDelta) kinds.push_back(e.kind);
  }
  EXPECT_EQ(kinds, (std::vector<K>{K::Start, K::ToolStart, K::ToolResult, K::Steered, K::End}));
  for (const auto& e : events) {
    if (e.kind == K::Steered) {
      EXPECT_EQ(e.text, "STEER: look at this instead");
    }
    if (e.kind == K::ToolResult) {
      EXPECT_TRUE(contains(e.tool_result, "first-tool-ran")) << e.tool_result;
    }
  }

  // The second model call: both calls answered (the second one skipped), then the steering message.
  auto requests = f.requests();
  ASSERT_EQ(requests.size(), 2u);
  const json& second = requests[1];
  ASSERT_GE(second.size(), 4u) << second.dump(1);
  const json& last = second[second.size() - 1];
  EXPECT_EQ(last["role"], "user") << second.dump(1);
  EXPECT_EQ(text_of(last), "STEER: look at this instead");
  const json& skipped = second[second.size() - 2];
  const json& ran = second[second.size() - 3];
  EXPECT_EQ(skipped["role"], "tool");
  EXPECT_TRUE(contains(text_of(skipped), kSkipped)) << skipped.dump();
  EXPECT_EQ(ran["role"], "tool");
  EXPECT_TRUE(contains(text_of(ran), "first-tool-ran")) << ran.dump();
  EXPECT_FALSE(std::filesystem::exists(f.home.path() / "workspace" / "second-tool-ran")) << "the skipped tool ran";

  // The transcript shows it: …, toolResult (ran), toolResult (skipped), user (steering), assistant.
  const json& messages = history["messages"];
  ASSERT_GE(messages.size(), 6u) << messages.dump(1);
  const size_t n = messages.size();
  EXPECT_EQ(messages[n - 1]["role"], "assistant");
  EXPECT_EQ(text_of(messages[n - 1]), "STEERED REPLY");
  EXPECT_EQ(messages[n - 2]["role"], "user");
  EXPECT_EQ(text_of(messages[n - 2]), "STEER: look at this instead");
  EXPECT_EQ(messages[n - 3]["role"], "toolResult");
  EXPECT_EQ(messages[n - 3]["isError"], true);
  EXPECT_TRUE(contains(text_of(messages[n - 3]), kSkipped));
  EXPECT_EQ(messages[n - 4]["role"], "toolResult");
  EXPECT_TRUE(contains(text_of(messages[n - 4]), "first-tool-ran"));
}

TEST(AgentSteering, AMessageSteeredDuringTheFinalReplyIsNotInjected) {
  Fixture f(json::array({{{"text", "FINAL ANSWER"}, {"delayMs", 60}}}));
  EventLoop loop;
  agent::AgentService agents(loop, SystemClock::instance(), f.config, f.home.path());
  std::vector<RunEvent> events;
  std::optional<bool> during, after_end, wrong_run, idle_before;
  json history;
  loop.post([&] {
    idle_before = agents.steer("main", "", "nobody is running");
    auto accepted = agents.send({"main", "", "just answer", "run-final", "", agent::RunLane::Main}, [&](const RunEvent& e) {
      events.push_back(e);
      if (e.kind == K::AssistantDelta && !during) {
        wrong_run = agents.steer("main", "some-other-run", "not this run");
        during = agents.steer("main", "run-final", "too late for a boundary");
      }
      if (e.kind == K::End || e.kind == K::Error || e.kind == K::Aborted) {
        after_end = agents.steer("main", "run-final", "after the end");
        loop.post([&] {
          if (auto h = agents.history("main", 0)) history = *h;
          loop.stop();
        });
      }
    });
    ASSERT_TRUE(accepted) << accepted.error().message;
  });
  run_for(loop, 20000);

  EXPECT_EQ(idle_before, std::optional<bool>(false)) << "an idle session has no run to steer";
  EXPECT_EQ(wrong_run, std::optional<bool>(false));
  EXPECT_EQ(during, std::optional<bool>(true)) << "a running run queues the message";
  EXPECT_EQ(after_end, std::optional<bool>(false)) << "a finished run takes nothing";
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, K::End);
  EXPECT_EQ(events.back().text, "FINAL ANSWER");
  for (const auto& e : events) EXPECT_NE(e.kind, K::Steered) << "no tool-call boundary: nothing may be injected";
  EXPECT_EQ(f.requests().size(), 1u);
  // Nothing of it reached the transcript (the caller runs it as its own turn).
  ASSERT_TRUE(history.contains("messages"));
  EXPECT_FALSE(contains(history.dump(), "too late for a boundary")) << history.dump(1);
}

// ---- InboundPipeline (messages.queue.mode) ----------------------------------------------------

/// A chat platform stand-in: records what the pipeline sends.
class RecordingChannel final : public channels::Channel {
 public:
  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return account_; }
  channels::ChannelCapabilities capabilities() const override {
    channels::ChannelCapabilities c;
    c.verified_senders = true;  // no pairing: every sender is let in
    return c;
  }
  void start(channels::ChannelHost&, std::function<void(const std::string&)>) override {}
  void stop() override {}
  void send_text(const channels::OutboundMessage& m, std::function<void(Result<std::string>)> done) override {
    sent.push_back(m.text);
    chats.push_back(m.chat_id);
    done(std::to_string(sent.size()));
  }
  nlohmann::json status() const override { return nlohmann::json::object(); }

  std::vector<std::string> sent;
  std::vector<std::string> chats;  ///< where each message went

 private:
  std::string id_ = "test", account_ = "default";
};

/// The gateway's inbound path, in process: pipeline → agent service → delivery → channel.
struct Pipeline {
  Fixture& f;
  EventLoop loop;
  agent::AgentService agents;
  channels::Outbox outbox;
  RecordingChannel channel;
  channels::ReplyDelivery delivery;
  channels::PairingStore pairing;
  channels::InboundPipeline pipeline;
  int next_id = 1;

  Pipeline(Fixture& fx, const std::string& mode)
      : f(fx),
        agents(loop, SystemClock::instance(), with_mode(fx.config, mode), fx.home.path()),
        outbox(fx.home.path() / "outbox.jsonl"),
        delivery(loop, outbox, [this](const std::string&, const std::string&) -> channels::Channel* { return &channel; }),
        pairing(fx.home.path() / "pairing.json"),
        pipeline(loop, SystemClock::instance(), agents, delivery, pairing, with_mode(fx.config, mode)) {}

  static json with_mode(json config, const std::string& mode) {
    config["messages"] = {{"queue", {{"mode", mode}}}};
    return config;
  }
  /// A direct message from one user, `after_ms` from now; `model_calls_then`, when given, gets the
  /// number of model calls made by then.
  void say(const std::string& text, int64_t after_ms, size_t* model_calls_then = nullptr, const std::string& chat = "42") {
    channels::InboundMessage m;
    m.channel = "test";
    m.account_id = "default";
    m.chat_id = chat;
    m.sender_id = chat;
    m.sender_name = "Ann";
    m.message_id = std::to_string(next_id++);
    m.text = text;
    loop.after(after_ms, [this, m, model_calls_then] {
      if (model_calls_then) *model_calls_then = f.requests().size();
      pipeline.handle(channel, m);
    });
  }
  /// Runs until `replies` were sent (plus a quiet moment for anything that must not follow).
  void run_until(size_t replies, int64_t quiet_ms = 1500) {
    const int64_t deadline = SystemClock::instance().steady_ms() + 30000;
    std::function<void()> check = [&] {
      if (channel.sent.size() >= replies || SystemClock::instance().steady_ms() > deadline) {
        loop.after(quiet_ms, [this] { loop.stop(); });
        return;
      }
      loop.after(20, check);
    };
    loop.post(check);
    loop.run();
  }
};

/// The user messages of a request, in order.
std::vector<std::string> user_texts(const json& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) {
    if (m["role"] == "user") out.push_back(text_of(m));
  }
  return out;
}

// The first tool sleeps: the second message arrives while it runs.
json slow_tools_reply() {
  return {{"toolCalls", json::array({{{"name", "exec"}, {"arguments", {{"command", "sleep 2; echo slow-tool-done"}}}},
                                     {{"name", "exec"}, {"arguments", {{"command", "touch must-not-run"}}}}})}};
}

TEST(PipelineSteering, SteerInjectsIntoTheBusyRunWhichAnswersOnce) {
  Fixture f(json::array({slow_tools_reply(), {{"text", "ONE REPLY FOR BOTH"}}}));
  Pipeline p(f, "steer");
  p.say("first: run the tools", 0);
  size_t calls_then = 0;
  p.say("second: and mind this", 700, &calls_then);
  p.run_until(1);

  EXPECT_EQ(calls_then, 1u) << "the second message must arrive while the first tool runs";
  EXPECT_EQ(p.channel.sent, (std::vector<std::string>{"ONE REPLY FOR BOTH"}));
  auto requests = f.requests();
  ASSERT_EQ(requests.size(), 2u) << "no followup run may answer the steered message again";
  EXPECT_EQ(user_texts(requests[1]), (std::vector<std::string>{"first: run the tools", "second: and mind this"}));
  EXPECT_TRUE(contains(requests[1].dump(), kSkipped));
  EXPECT_FALSE(std::filesystem::exists(f.home.path() / "workspace" / "must-not-run")) << "the skipped call ran";
}

TEST(PipelineSteering, SteerFallsBackToAFollowupWhenTheRunEndsWithoutABoundary) {
  // The first reply streams slowly and calls no tool: the second message cannot enter it.
  // 7 words, 300 ms before each: the reply takes about 2 s.
  Fixture f(json::array({{{"text", "THE FIRST REPLY IS SLOW TO WRITE"}, {"delayMs", 300}}, {{"text", "SECOND REPLY"}}}));
  Pipeline p(f, "steer");
  size_t calls_then = 0;
  p.say("first question", 0);
  p.say("second question", 700, &calls_then);
  p.run_until(2);

  EXPECT_EQ(calls_then, 1u) << "the second message must arrive while the first reply streams";
  EXPECT_EQ(p.pipeline.stats()["queued"], 1) << "the second message must arrive while the session is busy";
  EXPECT_EQ(p.channel.sent, (std::vector<std::string>{"THE FIRST REPLY IS SLOW TO WRITE", "SECOND REPLY"}));
  auto requests = f.requests();
  ASSERT_EQ(requests.size(), 2u) << "answered exactly once";
  EXPECT_EQ(user_texts(requests[0]), (std::vector<std::string>{"first question"}));
  EXPECT_EQ(user_texts(requests[1]), (std::vector<std::string>{"first question", "second question"}));
}

TEST(PipelineSteering, SteerBacklogInjectsAndAlsoRunsAFollowup) {
  Fixture f(json::array({slow_tools_reply(), {{"text", "REPLY WITH STEER"}}, {{"text", "FOLLOWUP REPLY"}}}));
  Pipeline p(f, "steer-backlog");
  p.say("first: run the tools", 0);
  p.say("second: and mind this", 700);
  p.run_until(2);

  EXPECT_EQ(p.channel.sent, (std::vector<std::string>{"REPLY WITH STEER", "FOLLOWUP REPLY"}));
  auto requests = f.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(user_texts(requests[1]), (std::vector<std::string>{"first: run the tools", "second: and mind this"}));
  const auto third = user_texts(requests[2]);
  ASSERT_FALSE(third.empty());
  EXPECT_EQ(third.back(), "second: and mind this");
}


// ---- media of a message for a busy session (every queue mode keeps it) -----------------------

// A 1x1 PNG.
constexpr const char* kDotPngB64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// Whether the last user message of a request carries the PNG as an image part.
bool last_user_has_dot(const json& messages) {
  const std::string url = std::string("data:image/png;base64,") + kDotPngB64;
  for (auto m = messages.rbegin(); m != messages.rend(); ++m) {
    if ((*m)["role"] != "user") continue;
    if (!(*m)["content"].is_array()) return false;
    for (const auto& part : (*m)["content"]) {
      if (part.value("type", "") == "image_url" && part["image_url"].value("url", "") == url) return true;
    }
    return false;
  }
  return false;
}

struct QueueMediaCase {
  const char* mode;
  size_t replies;   ///< replies the chat gets
  size_t requests;  ///< model calls made
};

class PipelineQueueMedia : public ::testing::TestWithParam<QueueMediaCase> {};

TEST_P(PipelineQueueMedia, AnImageSentWhileTheSessionIsBusyReachesTheModel) {
  const QueueMediaCase c = GetParam();
  // A model that takes images; the first run is busy in a slow tool when the image arrives.
  Fixture f(json::array({slow_tools_reply(), {{"text", "REPLY A"}}, {{"text", "REPLY B"}}}));
  f.config["models"]["providers"]["mock"]["models"] =
      json::array({{{"id", "mock-model"}, {"contextWindow", 128000}, {"input", {"text", "image"}}}});
  Pipeline p(f, c.mode);
  p.say("first: run the tools", 0);
  channels::InboundMessage m;
  m.channel = "test";
  m.account_id = "default";
  m.chat_id = m.sender_id = "42";
  m.sender_name = "Ann";
  m.message_id = "photo-1";
  m.text = "second: see this picture";
  {
    auto decoded = agent::parse_chat_attachments(json::array({{{"type", "image"}, {"content", kDotPngB64}}}));
    ASSERT_TRUE(decoded);
    m.media = *decoded;
  }
  p.loop.after(700, [&p, m] { p.pipeline.handle(p.channel, m); });
  p.run_until(c.replies);

  auto requests = f.requests();
  ASSERT_EQ(requests.size(), c.requests) << c.mode;
  EXPECT_TRUE(last_user_has_dot(requests.back())) << c.mode << ": " << requests.back().dump();
  if (std::string(c.mode).rfind("steer", 0) == 0) {
    // Steered: the image enters the busy run with the text, at its tool-call boundary.
    EXPECT_TRUE(last_user_has_dot(requests[1])) << c.mode << ": " << requests[1].dump();
    EXPECT_TRUE(contains(requests[1].dump(), kSkipped)) << c.mode;
  }
  // The transcript keeps a reference, and the file is beside it.
  bool stored = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(f.home.path() / "agents")) {
    if (e.path().parent_path().filename() == "media" && e.path().extension() == ".png") stored = true;
  }
  EXPECT_TRUE(stored) << c.mode;
}

INSTANTIATE_TEST_SUITE_P(EveryTextMode, PipelineQueueMedia,
                         ::testing::Values(QueueMediaCase{"steer", 1, 2}, QueueMediaCase{"steer-backlog", 2, 3},
                                           QueueMediaCase{"followup", 2, 3}, QueueMediaCase{"collect", 2, 3},
                                           QueueMediaCase{"interrupt", 1, 2}),
                         [](const ::testing::TestParamInfo<QueueMediaCase>& info) {
                           std::string name = info.param.mode;
                           for (char& ch : name) if (ch == '-') ch = '_';
                           return name;
                         });

TEST(PipelineQueue, CollectInASharedSessionAnswersEachChatFromItsOwnTurn) {
  // dmScope "main" (the default): two people's direct messages share one session. While the first
  // run is busy, chat 43 and then chat 42 write; each must get its own answer, in its own chat.
  Fixture f(json::array());  // keyword replies: ECHO:tag, MOCK_SLOW:ms
  Pipeline p(f, "collect");
  p.say("slow first MOCK_SLOW:200 ECHO:first", 0, nullptr, "42");
  p.say("from the other chat ECHO:other", 300, nullptr, "43");
  p.say("again from 42 ECHO:again", 400, nullptr, "42");
  p.run_until(3);

  ASSERT_EQ(p.channel.sent.size(), 3u);
  EXPECT_EQ(p.channel.chats, (std::vector<std::string>{"42", "43", "42"}));
  EXPECT_TRUE(contains(p.channel.sent[0], "[first]")) << p.channel.sent[0];
  EXPECT_TRUE(contains(p.channel.sent[1], "[other]")) << p.channel.sent[1];
  EXPECT_TRUE(contains(p.channel.sent[2], "[again]")) << p.channel.sent[2];
}

TEST(PipelineBytes, TextThatIsNotUtf8IsRepairedAndAnIdThatIsNotIsRefused) {
  // IRC delivers raw bytes: "caf\xe9" is Latin-1. Every store behind the pipeline writes JSON,
  // which throws on such bytes; the text is repaired, a reply target that is not UTF-8 refused.
  Fixture f(json::array());  // keyword replies: ECHO:tag
  Pipeline p(f, "followup");
  p.say("caf\xe9 ECHO:latin1", 0, nullptr, "42");
  p.loop.after(100, [&p] {
    channels::InboundMessage m;
    m.channel = "test";
    m.account_id = "default";
    m.chat_id = "#caf\xe9";
    m.sender_id = "ann";
    m.message_id = "bad-id-1";
    m.text = "hello ECHO:never";
    EXPECT_EQ(p.pipeline.handle(p.channel, m), channels::InboundOutcome::Dropped);
  });
  p.run_until(1);

  ASSERT_EQ(p.channel.sent.size(), 1u);
  EXPECT_TRUE(contains(p.channel.sent[0], "[latin1]")) << p.channel.sent[0];
  auto requests = f.requests();
  ASSERT_EQ(requests.size(), 1u) << "the message with a bad chat id must not run";
  EXPECT_EQ(user_texts(requests[0]), (std::vector<std::string>{"caf\xef\xbf\xbd ECHO:latin1"}));
}

// ---- global lanes (QL-2) --------------------------------------------------------------------

TEST(AgentLanes, CronRunsOneAtATimeWithoutHoldingUpTheMainLane) {
  Fixture f(json::array());  // keyword replies: MOCK_SLOW:ms paces the stream
  EventLoop loop;
  agent::AgentService agents(loop, SystemClock::instance(), f.config, f.home.path());
  std::map<std::string, int64_t> started, ended;  // by run id, steady ms
  int finished = 0;
  auto sink = [&](const RunEvent& e) {
    const int64_t now = SystemClock::instance().steady_ms();
    if (e.kind == K::Start) started[e.run_id] = now;
    if (e.kind == K::End || e.kind == K::Error || e.kind == K::Aborted) {
      ended[e.run_id] = now;
      EXPECT_EQ(e.kind, K::End) << e.run_id << ": " << e.error;
      if (++finished == 3) loop.stop();
    }
  };
  loop.post([&] {
    ASSERT_TRUE(agents.send({"cron-a", "", "job a MOCK_SLOW:150", "cron-a", "", agent::RunLane::Cron}, sink));
    ASSERT_TRUE(agents.send({"cron-b", "", "job b MOCK_SLOW:150", "cron-b", "", agent::RunLane::Cron}, sink));
    ASSERT_TRUE(agents.send({"chat", "", "hello", "main-c", "", agent::RunLane::Main}, sink));
  });
  run_for(loop, 20000);
  ASSERT_EQ(finished, 3);
  // The cron lane holds one run: b starts only after a ended.
  EXPECT_GE(started["cron-b"], ended["cron-a"]);
  // The main lane does not wait for cron work.
  EXPECT_LT(ended["main-c"], ended["cron-a"]);
}

}  // namespace
}  // namespace pincer
