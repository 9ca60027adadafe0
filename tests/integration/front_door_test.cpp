// The front door against the real binary (issue 11 items 6-9; issue 22 item 13): slash commands on
// chat.send and `pincer agent -m`; a reload rejected for a missing env var is visible to the CLI
// (status, agent's error, doctor) with the fix; doctor tells another home's gateway apart, names a
// missing variable and its config path, warns about dmScope main; the one rule per input (token
// length, blank message, session key, provider URL); the true reason for --local and config set.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace front_door_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kToken = "front-door-token-0123456789abcdef";

std::string config_for(const MockLlm& mock, const std::string& extra = "", const std::string& api_key = "mock-key") {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }", .api_key = api_key, .api = ""},
                      .top = ",\n" + extra});
}

std::map<std::string, std::string> env_for(const TempDir& home, int port) {
  return {{"PINCER_HOME", home.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(port)}};
}

std::unique_ptr<WsClient> operator_client(int port) {
  auto c = std::make_unique<WsClient>(port);
  EXPECT_TRUE(c->recv());
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  auto res = c->recv_response("c1");
  EXPECT_TRUE(res && (*res)["ok"] == true) << (res ? res->dump() : "no answer");
  return c;
}

json wait_chat_final(WsClient& c, const std::string& run_id) {
  auto match = [&](const json& f) {
    const std::string state = f["payload"].value("state", "");
    return f["event"] == "chat" && f["payload"]["runId"] == run_id && (state == "final" || state == "error" || state == "aborted");
  };
  for (auto& f : c.events()) {
    if (match(f)) return f["payload"];
  }
  for (int i = 0; i < 200; ++i) {
    auto f = c.recv(10s);
    if (!f) break;
    if (match(*f)) return (*f)["payload"];
  }
  return json();
}

std::string text_of(const json& message) {
  std::string out;
  for (const auto& b : message.value("content", json::array())) out += b.value("text", "");
  return out;
}

json finding(const json& report, const std::string& check) {
  for (const auto& f : report["findings"]) {
    if (f["check"] == check) return f;
  }
  return json();
}

// ---- item 7: one command table for every surface ------------------------------------------------

TEST(FrontDoor, SlashCommandsWorkThroughChatSendAndAgentMessage) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_for(mock));
  Gateway gateway(home.path());
  auto c = operator_client(gateway.port());

  // A real turn first, so that /status has messages to count.
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "hi ECHO:first"}, {"idempotencyKey", "run-1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  EXPECT_NE(text_of(wait_chat_final(*c, "run-1")["message"]).find("[first]"), std::string::npos);

  // /status over chat.send (the web chat's and OpenClaw clients' path): answered by the gateway.
  ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "/status"}, {"idempotencyKey", "cmd-1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  EXPECT_EQ(ack["payload"]["status"], "started");
  json final = wait_chat_final(*c, "cmd-1");
  ASSERT_EQ(final.value("state", ""), "final") << final.dump();
  EXPECT_EQ(final["stopReason"], "command");
  const std::string status = text_of(final["message"]);
  for (const char* part : {"Agent `main`", "session `agent:main:main`", "2 messages", "model `mock/mock-model`", "thinking off"}) {
    EXPECT_NE(status.find(part), std::string::npos) << part << " in " << status;
  }

  // /think sets the session's level; /status shows it.
  c->request("chat.send", {{"sessionKey", "main"}, {"message", "/think high"}, {"idempotencyKey", "cmd-2"}});
  // The mock model is not marked `reasoning: true`: the reply says the level changes nothing for it.
  EXPECT_EQ(text_of(wait_chat_final(*c, "cmd-2")["message"]),
            "Thinking: high — but model `mock/mock-model` is not marked `reasoning: true` in models.providers, so "
            "nothing is sent to it; the level applies when the session uses a reasoning model");
  c->request("chat.send", {{"sessionKey", "main"}, {"message", "/status"}, {"idempotencyKey", "cmd-3"}});
  EXPECT_NE(text_of(wait_chat_final(*c, "cmd-3")["message"]).find("thinking high"), std::string::npos);

  // The model never saw a command: the transcript holds only the real turn.
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["payload"]["messages"].size(), 2u) << history.dump();

  // `pincer agent -m /new` (the `agent` method): the session starts over, no model call.
  auto env = env_for(home, gateway.port());
  auto r = run_pincer({"agent", "-m", "/new"}, env, 30s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "Started a fresh session.\n") << r.err;
  history = c->request("chat.history", {{"sessionKey", "main"}});
  EXPECT_TRUE(history["payload"]["messages"].empty()) << history.dump();
  r = run_pincer({"agent", "-m", "/help"}, env, 30s);
  EXPECT_NE(r.out.find("/think LEVEL"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("/quit"), std::string::npos) << "terminal-only commands are not offered here: " << r.out;

  // One rule for an empty message: the WebSocket refuses whitespace as `agent -m` does.
  auto blank = c->request("chat.send", {{"sessionKey", "main"}, {"message", " \n\t "}, {"idempotencyKey", "blank-1"}});
  EXPECT_EQ(blank["ok"], false) << blank.dump();
  EXPECT_EQ(blank["error"]["code"], "INVALID_REQUEST");
  auto blank_agent = c->request("agent", {{"message", "   "}, {"idempotencyKey", "blank-2"}});
  EXPECT_EQ(blank_agent["ok"], false) << blank_agent.dump();
  r = run_pincer({"agent", "-m", "  \n "}, env, 30s);
  EXPECT_EQ(r.exit_code, 2) << r.err;

  // One rule for session keys: a newline is refused by the gateway and by the CLI.
  auto nl = c->request("chat.send", {{"sessionKey", "a\nb"}, {"message", "hi"}, {"idempotencyKey", "nl-1"}});
  EXPECT_EQ(nl["ok"], false) << nl.dump();
  EXPECT_NE(nl["error"]["message"].get<std::string>().find("control character"), std::string::npos) << nl.dump();
  r = run_pincer({"agent", "--session", "a\nb", "-m", "hi"}, env, 30s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--session: session key contains a control character"), std::string::npos) << r.err;
}

// ---- item 6: the CLI learns that the running config is not the file ------------------------------

TEST(FrontDoor, ARejectedReloadIsVisibleToTheCliWithItsFix) {
  MockLlm mock;
  TempDir home;
  // Started before onboarding: no model.
  home.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } } }\n");
  ::chmod(home.path().c_str(), 0700);
  Gateway gateway(home.path());
  auto env = env_for(home, gateway.port());
  // Onboarding writes a provider whose key comes from a variable the gateway's shell lacks.
  home.write("pincer.json", config_for(mock, "", "${PINCER_FD_PROVIDER_KEY}"));
  json status;
  for (int i = 0; i < 100; ++i) {
    auto r = run_pincer({"status", "--json"}, env, 10s);
    status = json::parse(r.out, nullptr, false);
    if (status.is_object() && status["config"]["lastRejectedReload"].is_object()) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(status.is_object() && status["config"]["lastRejectedReload"].is_object()) << status.dump();
  EXPECT_EQ(status["config"]["matchesFile"], false);
  EXPECT_NE(status["config"]["lastRejectedReload"]["reason"].get<std::string>().find("PINCER_FD_PROVIDER_KEY"),
            std::string::npos);

  auto human = run_pincer({"status"}, env, 10s);
  EXPECT_NE(human.out.find("the gateway runs an older config"), std::string::npos) << human.out;

  // `pincer agent` (the user's shell has the key) is told why there is no model, and what to do.
  auto user_env = env;
  user_env["PINCER_FD_PROVIDER_KEY"] = "mock-key";
  auto r = run_pincer({"agent", "-m", "hi"}, user_env, 30s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("reload was rejected"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("restart the gateway from a shell where PINCER_FD_PROVIDER_KEY is set"), std::string::npos) << r.err;

  // doctor checks the running gateway's view, not only the file.
  auto d = run_pincer({"doctor", "--json"}, user_env, 30s);
  EXPECT_EQ(d.exit_code, 1) << d.out << d.err;
  auto report = json::parse(d.out);
  EXPECT_EQ(finding(report, "config")["status"], "ok") << report.dump(2);
  const json gw = finding(report, "gateway");
  EXPECT_EQ(gw["status"], "fail") << report.dump(2);
  EXPECT_NE(gw["message"].get<std::string>().find("reload was rejected"), std::string::npos) << gw.dump();
  EXPECT_NE(gw["fix"].get<std::string>().find("env section"), std::string::npos) << gw.dump();
}

// ---- items 6 and 8: doctor says what is actually wrong -------------------------------------------

TEST(FrontDoor, DoctorTellsAnotherHomesGatewayApart) {
  MockLlm mock;
  TempDir theirs, mine;
  theirs.write("pincer.json", config_for(mock));
  Gateway gateway(theirs.path());
  mine.write("pincer.json", config_for(mock));  // the same token, another home
  auto d = run_pincer({"doctor", "--json"}, env_for(mine, gateway.port()), 30s);
  EXPECT_EQ(d.exit_code, 1) << d.out << d.err;
  const json gw = finding(json::parse(d.out), "gateway");
  EXPECT_EQ(gw["status"], "fail") << d.out;
  EXPECT_NE(gw["message"].get<std::string>().find("belongs to another home"), std::string::npos) << gw.dump();
  EXPECT_NE(gw["message"].get<std::string>().find(theirs.path().string()), std::string::npos) << gw.dump();
  EXPECT_NE(gw["fix"].get<std::string>().find("PINCER_HOME=" + theirs.path().string()), std::string::npos) << gw.dump();

  // Its own home: ok.
  auto own = run_pincer({"doctor", "--json"}, env_for(theirs, gateway.port()), 30s);
  EXPECT_EQ(finding(json::parse(own.out), "gateway")["status"], "ok") << own.out;
}

TEST(FrontDoor, DoctorNamesAMissingVariableAndGoesOn) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_for(mock, "", "${PINCER_FD_UNSET_KEY}"));
  auto d = run_pincer({"doctor", "--json"}, env_for(home, 1), 30s);
  EXPECT_EQ(d.exit_code, 1) << d.err;
  auto report = json::parse(d.out);
  const json cfg = finding(report, "config");
  EXPECT_EQ(cfg["status"], "fail");
  EXPECT_NE(cfg["message"].get<std::string>().find("PINCER_FD_UNSET_KEY is not set"), std::string::npos) << cfg.dump();
  EXPECT_NE(cfg["message"].get<std::string>().find("models.providers.mock.apiKey"), std::string::npos) << cfg.dump();
  EXPECT_EQ(cfg["fix"].get<std::string>().find("fix the file"), std::string::npos) << cfg.dump();
  // The other checks still ran.
  for (const char* check : {"permissions", "port", "bind", "token", "provider"}) {
    EXPECT_FALSE(finding(report, check).is_null()) << check << ": " << report.dump(2);
  }
}

TEST(FrontDoor, DoctorWarnsWhenSeveralSendersShareTheMainSession) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json",
             config_for(mock, "channels: { telegram: { botToken: '1:x', dmPolicy: 'allowlist', allowFrom: ['111', '222'] } },\n"));
  auto d = run_pincer({"doctor", "--json"}, env_for(home, 1), 30s);
  const json dm = finding(json::parse(d.out), "dm-scope");
  EXPECT_EQ(dm["status"], "warn") << d.out;
  EXPECT_NE(dm["message"].get<std::string>().find("2 DM senders"), std::string::npos) << dm.dump();
}

TEST(FrontDoor, LocalAgentAndConfigSetSayWhatIsWrong) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_for(mock));
  // The lock cannot be taken for another reason than a running gateway.
  std::filesystem::create_directories(home.path() / "gateway.lock");
  auto r = run_pincer({"agent", "--local", "-m", "hi"}, {{"PINCER_HOME", home.path().string()}}, 30s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.find("gateway is running"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gateway.lock"), std::string::npos) << r.err;

  // A file that cannot be written is not "invalid" (sysfs refuses new files, even to root).
  r = run_pincer({"config", "set", "gateway.port", "18790", "--file", "/sys/pincer-front-door-test.json"},
                 {{"PINCER_HOME", home.path().string()}}, 30s);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.err.find("would be invalid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("could not be saved"), std::string::npos) << r.err;
}

// ---- item 9: validate once, the same way everywhere ----------------------------------------------

TEST(FrontDoor, OneRuleForTokensUrlsAndModelNames) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_for(mock));
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()}};
  auto r = run_pincer({"gateway", "run", "--port", "0", "--token", "abcde"}, env, 10s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--token: the gateway token is 5 characters; at least 16 are required"), std::string::npos) << r.err;

  TempDir bad_url;
  bad_url.write("pincer.json", "{ models: { providers: { p: { baseUrl: 'not a url', models: [{ id: 'm' }] } } } }");
  r = run_pincer({"config", "validate"}, {{"PINCER_HOME", bad_url.path().string()}}, 10s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("models.providers.p.baseUrl: expected http:// or https:// URL with a host"), std::string::npos) << r.err;

  TempDir typo;
  typo.write("pincer.json", mock_config({.token = kToken,
                                         .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }", .api_key = "", .api = ""},
                                         .primary = "mokc/mock-model"}));
  Gateway gateway(typo.path());
  auto warned = gateway.process().wait_for_stdout("pincer web chat", 10s);
  ASSERT_TRUE(warned);
  std::this_thread::sleep_for(300ms);
  const std::string err = gateway.process().err();
  EXPECT_NE(err.find("warning: agent \"main\": model \"mokc/mock-model\" (primary): unknown model"), std::string::npos) << err;
}

}  // namespace
}  // namespace front_door_test
}  // namespace pincer::test
