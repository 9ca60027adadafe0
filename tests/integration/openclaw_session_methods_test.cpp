// OpenClaw's commands.list, sessions.create|send|abort and chat.message.get against the real
// gateway binary, the mock LLM and a real WebSocket client: the shapes OpenClaw's Control UI and
// CLI read, the scopes they need, and params errors that name the field.
#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace openclaw_session_methods_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "oc-session-methods-token-0123456789";

class OpenClawSessionMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{});
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model', contextWindow: 64000 }"},
                                            .agents = ",\n            list: [ { id: 'main' }, { id: 'ops' } ]"}));
    home_.write("workspace/skills/deploy-check/SKILL.md",
                "---\nname: deploy-check\ndescription: Check a deployment before announcing it.\n---\nBody.\n");
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes = {"operator.admin"}) {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  }
  /// The terminal `chat` event of `run_id` (null when none came).
  static json terminal(WsClient& c, const std::string& run_id) {
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f = c.next_frame(20s);
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] != "delta") return p;
    }
    return nullptr;
  }
  /// Waits for the first `delta` chat event of `run_id` (other frames stay queued).
  static void first_delta(WsClient& c, const std::string& run_id) {
    std::deque<json> kept;
    for (int i = 0; i < 400; ++i) {
      auto f = c.recv(10s);
      ASSERT_TRUE(f) << "no delta";
      if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == run_id && (*f)["payload"]["state"] == "delta") break;
      kept.push_back(*f);
    }
    for (auto& f : kept) c.events().push_back(std::move(f));
  }
  static const json* find_command(const json& commands, const std::string& name) {
    for (const auto& c : commands) {
      if (c["name"] == name) return &c;
    }
    return nullptr;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(OpenClawSessionMethodsTest, CommandsListIsTheBuiltInAndSkillCommandCatalog) {
  auto reader = client({"operator.read"});
  auto res = reader->request("commands.list", json::object());
  ASSERT_EQ(res["ok"], true) << res.dump();
  const json& commands = res["payload"]["commands"];
  const json* status = find_command(commands, "status");
  ASSERT_NE(status, nullptr) << commands.dump();
  EXPECT_EQ((*status)["source"], "native");
  EXPECT_EQ((*status)["scope"], "both");
  EXPECT_EQ((*status)["category"], "status");
  EXPECT_EQ((*status)["textAliases"], json::array({"/status"}));
  EXPECT_EQ((*status)["acceptsArgs"], false);
  EXPECT_FALSE(status->contains("args"));
  const json* model = find_command(commands, "model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ((*model)["textAliases"], json::array({"/model", "/models"}));
  EXPECT_EQ((*model)["category"], "options");
  ASSERT_EQ((*model)["args"].size(), 1u);
  EXPECT_EQ((*model)["args"][0]["name"], "name");
  EXPECT_FALSE((*model)["args"][0].contains("required"));  // "[NAME[@PROFILE]]": optional
  const json* think = find_command(commands, "think");
  ASSERT_NE(think, nullptr);
  EXPECT_EQ((*think)["args"][0]["required"], true);
  const json* dreaming = find_command(commands, "dreaming");
  ASSERT_NE(dreaming, nullptr);
  EXPECT_EQ((*dreaming)["args"][0]["choices"],
            json::parse(R"([{"value":"status","label":"status"},{"value":"on","label":"on"},{"value":"off","label":"off"}])"));
  EXPECT_EQ(find_command(commands, "quit"), nullptr);  // the terminal chat's own
  const json* skill = find_command(commands, "deploy_check");
  ASSERT_NE(skill, nullptr) << commands.dump();
  EXPECT_EQ((*skill)["source"], "skill");
  EXPECT_EQ((*skill)["skillDisplayName"], "deploy-check");
  EXPECT_EQ((*skill)["description"], "Check a deployment before announcing it.");
  EXPECT_EQ((*skill)["textAliases"], json::array({"/deploy_check"}));
  EXPECT_EQ((*skill)["acceptsArgs"], true);
  ASSERT_NE(find_command(commands, "skill"), nullptr);
  EXPECT_EQ((*find_command(commands, "skill"))["scope"], "text");

  // The Control UI's call; includeArgs false leaves the args out; scope native drops /skill.
  auto ui = reader->request("commands.list", {{"agentId", "main"}, {"includeArgs", true}, {"scope", "text"}});
  EXPECT_EQ(ui["payload"]["commands"].size(), commands.size()) << ui.dump();
  auto bare = reader->request("commands.list", {{"includeArgs", false}, {"scope", "native"}});
  EXPECT_FALSE(find_command(bare["payload"]["commands"], "model")->contains("args"));
  EXPECT_EQ(find_command(bare["payload"]["commands"], "skill"), nullptr);
  // Another agent has no workspace skill.
  auto ops = reader->request("commands.list", {{"agentId", "ops"}});
  EXPECT_EQ(find_command(ops["payload"]["commands"], "deploy_check"), nullptr) << ops.dump();

  EXPECT_EQ(reader->request("commands.list", {{"scope", "all"}})["error"]["message"],
            "invalid commands.list params: /scope must be one of text, native, both");
  EXPECT_EQ(reader->request("commands.list", {{"agentId", "nobody"}})["error"]["message"], "unknown agent id \"nobody\"");
  EXPECT_EQ(reader->request("commands.list", {{"sessionKey", "never-used"}})["error"]["message"], "Session not found.");
  EXPECT_EQ(reader->request("commands.list", {{"verbose", true}})["error"]["message"],
            "invalid commands.list params: must NOT have additional properties (\"verbose\")");
}

TEST_F(OpenClawSessionMethodsTest, SessionsCreateSendAndChatMessageGet) {
  auto c = client();
  auto created = c->request("sessions.create", {{"label", "Work"}});
  ASSERT_EQ(created["ok"], true) << created.dump();
  const json& p = created["payload"];
  EXPECT_EQ(p["ok"], true);
  const std::string key = p["key"];
  EXPECT_EQ(key.rfind("agent:main:dashboard:", 0), 0u) << key;
  EXPECT_FALSE(p["sessionId"].get<std::string>().empty());
  EXPECT_EQ(p["entry"]["label"], "Work");
  EXPECT_EQ(p["runStarted"], false);
  EXPECT_EQ(p["resolved"]["model"], "mock-model");
  auto described = c->request("sessions.describe", {{"key", key}});
  EXPECT_EQ(described["payload"]["session"]["label"], "Work") << described.dump();

  // A named key in another agent; an existing key is adopted (same session id).
  auto named = c->request("sessions.create", {{"key", "project"}, {"agentId", "ops"}, {"thinkingLevel", "low"}});
  ASSERT_EQ(named["ok"], true) << named.dump();
  EXPECT_EQ(named["payload"]["key"], "agent:ops:project");
  auto again = c->request("sessions.create", {{"key", "agent:ops:project"}});
  EXPECT_EQ(again["payload"]["sessionId"], named["payload"]["sessionId"]);
  EXPECT_EQ(c->request("sessions.create", {{"worktree", true}})["error"]["message"],
            "invalid sessions.create params: must NOT have additional properties (\"worktree\")");
  EXPECT_EQ(c->request("sessions.create", {{"agentId", "nobody"}})["error"]["message"],
            "invalid sessions.create params: /agentId: unknown agent id \"nobody\"");
  EXPECT_EQ(c->request("sessions.create", {{"key", "agent:ghost:x"}})["error"]["message"],
            "invalid sessions.create params: /key: unknown agent id \"ghost\"");
  EXPECT_EQ(c->request("sessions.create", {{"key", "agent:main:x"}, {"agentId", "ops"}})["error"]["message"],
            "invalid sessions.create params: /key belongs to agent \"main\", not /agentId \"ops\"");
  auto bad_model = c->request("sessions.create", {{"model", "no/such-model"}});
  EXPECT_EQ(bad_model["error"]["code"], "INVALID_REQUEST");
  EXPECT_EQ(bad_model["error"]["message"].get<std::string>().rfind("invalid sessions.create params: model:", 0), 0u)
      << bad_model.dump();

  // With a first message the turn starts as chat.send's does.
  auto with_turn = c->request("sessions.create", {{"message", "hello ECHO:first"}, {"idempotencyKey", "create-1"}});
  ASSERT_EQ(with_turn["ok"], true) << with_turn.dump();
  EXPECT_EQ(with_turn["payload"]["runStarted"], true);
  EXPECT_EQ(with_turn["payload"]["runId"], "create-1");
  json final_event = terminal(*c, "create-1");
  ASSERT_EQ(final_event["state"], "final") << final_event.dump();
  EXPECT_EQ(final_event["sessionKey"], with_turn["payload"]["key"]);

  // sessions.send: chat.send's ack and events.
  auto sent = c->request("sessions.send", {{"key", key}, {"message", "next ECHO:second"}, {"idempotencyKey", "send-1"}});
  ASSERT_EQ(sent["ok"], true) << sent.dump();
  EXPECT_EQ(sent["payload"], json({{"runId", "send-1"}, {"status", "started"}}));
  final_event = terminal(*c, "send-1");
  ASSERT_EQ(final_event["state"], "final") << final_event.dump();
  EXPECT_EQ(final_event["sessionKey"], key);
  // Without idempotencyKey the run id is made up; the agent's main session needs no create.
  auto main_send = c->request("sessions.send", {{"key", "main"}, {"message", "hi ECHO:m"}});
  ASSERT_EQ(main_send["ok"], true) << main_send.dump();
  EXPECT_EQ(main_send["payload"]["runId"].get<std::string>().size(), 36u);
  ASSERT_EQ(terminal(*c, main_send["payload"]["runId"])["state"], "final");
  EXPECT_EQ(c->request("sessions.send", {{"key", "nowhere"}, {"message", "x"}})["error"]["message"], "session not found: nowhere");
  EXPECT_EQ(c->request("sessions.send", {{"key", key}})["error"]["message"],
            "invalid sessions.send params: must have required property 'message'");

  // chat.history's messages carry their transcript ids; chat.message.get reads one of them.
  auto history = c->request("chat.history", {{"sessionKey", key}});
  const json& messages = history["payload"]["messages"];
  ASSERT_EQ(messages.size(), 2u) << history.dump();
  EXPECT_EQ(messages[0]["__openclaw"]["seq"], 1);
  const std::string reply_id = messages[1]["__openclaw"]["id"];
  EXPECT_FALSE(reply_id.empty());
  auto one = c->request("chat.message.get", {{"sessionKey", key}, {"messageId", reply_id}});
  ASSERT_EQ(one["ok"], true) << one.dump();
  EXPECT_EQ(one["payload"]["ok"], true);
  EXPECT_EQ(one["payload"]["message"], messages[1]);
  auto cut = c->request("chat.message.get", {{"sessionKey", key}, {"messageId", reply_id}, {"maxChars", 5}});
  EXPECT_EQ(cut["payload"]["message"]["content"][0]["text"].get<std::string>().size(), 5u) << cut.dump();
  EXPECT_EQ(cut["payload"]["message"]["__openclaw"]["truncated"], true);
  EXPECT_EQ(c->request("chat.message.get", {{"sessionKey", key}, {"messageId", "nope"}})["payload"],
            json({{"ok", false}, {"unavailableReason", "not_found"}}));
  EXPECT_EQ(c->request("chat.message.get", {{"sessionKey", key}})["error"]["message"],
            "invalid chat.message.get params: must have required property 'messageId'");
  EXPECT_EQ(c->request("chat.message.get", {{"sessionKey", key}, {"messageId", reply_id}, {"maxChars", 0}})["error"]["message"],
            "invalid chat.message.get params: /maxChars must be an integer in 1..2000000");

  // Scopes: a read-only client reads the message but may not create or send.
  auto reader = client({"operator.read"});
  EXPECT_EQ(reader->request("chat.message.get", {{"sessionKey", key}, {"messageId", reply_id}})["payload"]["ok"], true);
  EXPECT_EQ(reader->request("sessions.create", json::object())["error"]["message"], "missing scope: operator.write");
  EXPECT_EQ(reader->request("sessions.send", {{"key", key}, {"message", "x"}})["error"]["message"],
            "missing scope: operator.write");
  EXPECT_EQ(reader->request("sessions.abort", {{"key", key}})["error"]["message"], "missing scope: operator.write");
}

// sessions.create's idempotencyKey (OpenClaw: a repeat answers the first create; other params
// are refused), bad keys and labels refused naming the field, a blank message starts no turn.
TEST_F(OpenClawSessionMethodsTest, SessionsCreateIdempotencyBadKeysAndBlankMessage) {
  auto c = client();
  const json params = {{"label", "Once"}, {"idempotencyKey", "create-once"}};
  auto first = c->request("sessions.create", params);
  ASSERT_EQ(first["ok"], true) << first.dump();
  auto again = c->request("sessions.create", params);
  ASSERT_EQ(again["ok"], true) << again.dump();
  EXPECT_EQ(again["payload"]["key"], first["payload"]["key"]);
  EXPECT_EQ(again["payload"]["sessionId"], first["payload"]["sessionId"]);
  auto other = c->request("sessions.create", {{"label", "Twice"}, {"idempotencyKey", "create-once"}});
  EXPECT_EQ(other["error"]["code"], "INVALID_REQUEST") << other.dump();
  EXPECT_NE(other["error"]["message"].get<std::string>().find("/idempotencyKey \"create-once\" was reused"), std::string::npos);
  // With a first turn: one run only, the repeat answers the same run.
  const json turn = {{"message", "hi ECHO:once"}, {"idempotencyKey", "create-turn"}};
  auto started = c->request("sessions.create", turn);
  ASSERT_EQ(started["payload"]["runStarted"], true) << started.dump();
  ASSERT_EQ(terminal(*c, "create-turn")["state"], "final");
  auto repeated = c->request("sessions.create", turn);
  EXPECT_EQ(repeated["payload"], started["payload"]);
  auto history = c->request("chat.history", {{"sessionKey", started["payload"]["key"]}});
  EXPECT_EQ(history["payload"]["messages"].size(), 2u) << history.dump();

  // Keys and labels with control characters are refused, naming the field.
  auto nul_key = c->request("sessions.create", {{"key", std::string("a\0b", 3)}});
  EXPECT_EQ(nul_key["error"]["message"], "invalid sessions.create params: /key session key contains a control character (0x00)")
      << nul_key.dump();
  auto newline_key = c->request("sessions.create", {{"key", "x\ny"}});
  EXPECT_EQ(newline_key["error"]["code"], "INVALID_REQUEST");
  auto nul_label = c->request("sessions.create", {{"label", std::string("a\0b", 3)}});
  EXPECT_EQ(nul_label["error"]["message"], "invalid sessions.create params: label contains a control character (0x00)")
      << nul_label.dump();
  EXPECT_EQ(c->request("sessions.patch", {{"key", first["payload"]["key"]}, {"label", "two\nlines"}})["error"]["code"],
            "INVALID_REQUEST");

  // A blank message starts no turn, as in OpenClaw.
  auto blank = c->request("sessions.create", {{"message", "  \n\t "}});
  ASSERT_EQ(blank["ok"], true) << blank.dump();
  EXPECT_EQ(blank["payload"]["runStarted"], false);
  EXPECT_FALSE(blank["payload"].contains("runId")) << blank.dump();
  EXPECT_FALSE(blank["payload"].contains("runError")) << blank.dump();
}

TEST_F(OpenClawSessionMethodsTest, SessionsAbortStopsTheSessionsRun) {
  auto c = client();
  auto sent = c->request("sessions.send", {{"key", "main"}, {"message", "MOCK_SLOW:100 MOCK_LONG:3000"}, {"idempotencyKey", "slow-1"}});
  ASSERT_EQ(sent["ok"], true) << sent.dump();
  first_delta(*c, "slow-1");
  auto aborted = c->request("sessions.abort", {{"key", "main"}});
  ASSERT_EQ(aborted["ok"], true) << aborted.dump();
  EXPECT_EQ(aborted["payload"], json({{"ok", true}, {"abortedRunId", "slow-1"}, {"status", "aborted"}}));
  EXPECT_EQ(terminal(*c, "slow-1")["state"], "aborted");
  EXPECT_EQ(c->request("sessions.abort", {{"key", "main"}})["payload"],
            json({{"ok", true}, {"abortedRunId", nullptr}, {"status", "no-active-run"}}));

  // By run id alone: that run's session.
  sent = c->request("sessions.send", {{"key", "main"}, {"message", "MOCK_SLOW:100 MOCK_LONG:3000"}, {"idempotencyKey", "slow-2"}});
  ASSERT_EQ(sent["ok"], true) << sent.dump();
  first_delta(*c, "slow-2");
  aborted = c->request("sessions.abort", {{"runId", "slow-2"}, {"clearQueued", true}});
  EXPECT_EQ(aborted["payload"]["abortedRunId"], "slow-2") << aborted.dump();
  EXPECT_EQ(terminal(*c, "slow-2")["state"], "aborted");
  EXPECT_EQ(c->request("sessions.abort", {{"runId", "slow-2"}})["payload"]["status"], "no-active-run");
  EXPECT_EQ(c->request("sessions.abort", json::object())["error"]["message"],
            "invalid sessions.abort params: must have property 'key' or 'runId'");
  EXPECT_EQ(c->request("sessions.abort", {{"key", "agent:main:main"}, {"agentId", "ops"}})["error"]["message"],
            "session key agent does not match agentId");
  // As OpenClaw: no session of a configured agent is "no-active-run" (sessions.send: "session not
  // found"); an agent that is not configured is an error.
  EXPECT_EQ(c->request("sessions.abort", {{"key", "nowhere"}})["payload"],
            json({{"ok", true}, {"abortedRunId", nullptr}, {"status", "no-active-run"}}));
  auto ghost = c->request("sessions.abort", {{"key", "agent:ghost:x"}});
  EXPECT_EQ(ghost["error"]["code"], "INVALID_REQUEST") << ghost.dump();
  EXPECT_EQ(ghost["error"]["message"], "agent \"ghost\" not found");
}

}  // namespace
}  // namespace openclaw_session_methods_test
}  // namespace pincer::test
