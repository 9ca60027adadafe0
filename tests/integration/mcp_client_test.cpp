// The MCP client (IX-2, docs/interop.md "MCP client") in a real gateway against the official
// reference servers from npm (@modelcontextprotocol/server-everything over stdio and streamable
// HTTP, @modelcontextprotocol/server-filesystem; pinned, installed by tests/mcp_client/setup.sh)
// and deliberately broken ones (tests/mcp_client/broken_server.mjs). The mock LLM calls the tools;
// the tool results must reach the next model request.
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>

#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace mcp_client_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "mcp-client-test-token-0123456789abcdef";

fs::path mcp_dir() { return fs::path(PINCER_SOURCE_DIR) / "tests" / "mcp_client"; }
std::string bin(const std::string& name) { return (mcp_dir() / ".cache" / "node_modules" / ".bin" / name).string(); }

/// A port nothing listens on right now (bound to 0, then released).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

class McpClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string setup = (mcp_dir() / "setup.sh").string() + " >&2";
    ASSERT_EQ(std::system(setup.c_str()), 0) << "tests/mcp_client/setup.sh failed (npm registry unreachable?)";
  }

  /// Starts the gateway with `mcp` (JSON) as the config's `mcp` section.
  void start(const json& mcp, const json& extra = json::object()) {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{});
    const json config = {
        {"gateway", {{"auth", {{"token", kToken}}}}},
        {"models", {{"providers", {{"mock", {{"baseUrl", mock_->base_url()}, {"apiKey", "k"}, {"api", "openai-completions"},
                                             {"models", json::array({{{"id", "mock-model"}}})}}}}}}},
        {"agents", {{"defaults", {{"model", {{"primary", "mock/mock-model"}}}}}}},
        {"mcp", mcp}};
    json merged = config;
    merged.update(extra);
    home_.write("pincer.json", merged.dump(2));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  /// Scripts the mock's next replies (tests/mock_llm/README.md "script").
  void script(const json& entries) {
    auto r = http_request(mock_->port(), "POST", "/__mock/script", {{"Content-Type", "application/json"}}, entries.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }

  json requests() { return json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body); }

  /// The generation requests the mock received (chat completions bodies), in order.
  std::vector<json> generations() {
    std::vector<json> out;
    for (const auto& r : requests()) {
      if (r["body"].is_object() && r["body"].contains("messages")) out.push_back(r["body"]);
    }
    return out;
  }

  static std::vector<std::string> tool_names(const json& body) {
    std::vector<std::string> out;
    for (const auto& t : body.value("tools", json::array())) out.push_back(t["function"]["name"].get<std::string>());
    return out;
  }

  /// Every tool message's text in a request body.
  static std::string tool_results(const json& body) {
    std::string all;
    for (const auto& m : body["messages"]) {
      if (m["role"] != "tool") continue;
      all += m["content"].is_string() ? m["content"].get<std::string>() : m["content"].dump();
      all += "\n";
    }
    return all;
  }

  json status() {
    auto r = client_->request("mcp.status", json::object());
    EXPECT_EQ(r["ok"], true) << r.dump();
    return r["payload"];
  }

  static json server(const json& status, const std::string& name) {
    for (const auto& s : status["servers"]) {
      if (s["name"] == name) return s;
    }
    return json();
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

json stdio_server(const std::string& command, const json& args = json::array()) {
  return {{"command", command}, {"args", args}};
}

TEST_F(McpClientTest, ToolsOfTheReferenceServersAreCalledAndTheirResultsReachTheModel) {
  const fs::path shared = home_.path() / "shared";
  fs::create_directories(shared);
  home_.write("shared/note.txt", "the filesystem server read this file\n");
  start({{"servers",
          {{"everything", stdio_server(bin("mcp-server-everything"))},
           {"files", stdio_server(bin("mcp-server-filesystem"), json::array({shared.string()}))}}}});
  EXPECT_EQ(server(status(), "everything")["state"], "idle") << "servers start with the first run, not before";

  script(json::array({json{{"toolCalls", json::array({{{"name", "everything__echo"}, {"arguments", {{"message", "hello over mcp"}}}}})}},
                      "echo done",
                      json{{"toolCalls", json::array({{{"name", "files__read_text_file"},
                                                       {"arguments", {{"path", (shared / "note.txt").string()}}}}})}},
                      "read done"}));
  auto frames = chat_turn(*client_, "main", "echo something", "run-echo", std::chrono::seconds(60));
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  frames = chat_turn(*client_, "main", "read the note", "run-read", std::chrono::seconds(60));
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();

  const auto gens = generations();
  ASSERT_EQ(gens.size(), 4u);
  const auto offered = tool_names(gens[0]);
  EXPECT_NE(std::find(offered.begin(), offered.end(), "everything__echo"), offered.end());
  EXPECT_NE(std::find(offered.begin(), offered.end(), "files__read_text_file"), offered.end());
  EXPECT_NE(std::find(offered.begin(), offered.end(), "read"), offered.end()) << "the built-in tools stay";
  // The server's inputSchema is passed through as it is.
  for (const auto& t : gens[0]["tools"]) {
    if (t["function"]["name"] == "everything__echo") {
      EXPECT_EQ(t["function"]["parameters"]["properties"]["message"]["type"], "string") << t.dump();
      EXPECT_EQ(t["function"]["parameters"]["required"], json::array({"message"}));
    }
  }
  EXPECT_NE(tool_results(gens[1]).find("Echo: hello over mcp"), std::string::npos) << tool_results(gens[1]);
  EXPECT_NE(tool_results(gens[3]).find("the filesystem server read this file"), std::string::npos) << tool_results(gens[3]);

  const json st = status();
  EXPECT_EQ(server(st, "everything")["state"], "ready") << st.dump();
  EXPECT_GT(server(st, "everything")["toolCount"].get<int>(), 3) << st.dump();
  EXPECT_EQ(server(st, "files")["state"], "ready") << st.dump();
}

TEST_F(McpClientTest, ThePolicyRemovesMcpToolsLikeOthers) {
  // The profile does not remove them (the default "coding" lists no MCP tool); tools.deny does.
  start({{"servers", {{"everything", stdio_server(bin("mcp-server-everything"))}}}},
        {{"tools", {{"deny", json::array({"everything__echo"})}}}});
  // Before any run the server is configured but not started: tools.effective says so (OpenClaw's
  // notice "mcp-not-yet-connected") instead of silently listing no MCP tools.
  ASSERT_EQ(client_->request("sessions.create", {{"key", "main"}})["ok"], true);
  auto before = client_->request("tools.effective", {{"sessionKey", "main"}});
  ASSERT_EQ(before["ok"], true) << before.dump();
  ASSERT_EQ(before["payload"]["notices"].size(), 1u) << before.dump();
  EXPECT_EQ(before["payload"]["notices"][0]["id"], "mcp-not-yet-connected");
  EXPECT_EQ(before["payload"]["notices"][0]["severity"], "info");
  EXPECT_EQ(before["payload"]["notices"][0]["servers"], json::array({"everything"}));
  EXPECT_NE(before["payload"]["notices"][0]["message"].get<std::string>().find("\"everything\""), std::string::npos);
  script(json::array({"plain"}));
  chat_turn(*client_, "main", "hi", "run-1", std::chrono::seconds(60));
  auto gens = generations();
  ASSERT_EQ(gens.size(), 1u);
  auto offered = tool_names(gens[0]);
  EXPECT_EQ(std::find(offered.begin(), offered.end(), "everything__echo"), offered.end()) << "denied by tools.deny";
  EXPECT_TRUE(std::any_of(offered.begin(), offered.end(), [](const std::string& n) { return n.rfind("everything__", 0) == 0; }))
      << "the server's other tools stay";

  // tools.effective lists the ready server's tools the policy leaves, as the run got them.
  auto effective = client_->request("tools.effective", {{"sessionKey", "main"}});
  ASSERT_EQ(effective["ok"], true) << effective.dump();
  std::vector<std::string> listed;
  for (const auto& g : effective["payload"]["groups"]) {
    if (g["id"] != "mcp") continue;
    EXPECT_EQ(g["label"], "MCP server tools");
    for (const auto& t : g["tools"]) listed.push_back(t["id"]);
  }
  std::vector<std::string> mcp_offered;
  std::copy_if(offered.begin(), offered.end(), std::back_inserter(mcp_offered),
               [](const std::string& n) { return n.rfind("everything__", 0) == 0; });
  std::sort(listed.begin(), listed.end());
  std::sort(mcp_offered.begin(), mcp_offered.end());
  EXPECT_EQ(listed, mcp_offered) << effective.dump();
  EXPECT_FALSE(effective["payload"].contains("notices")) << "the one server is ready: " << effective.dump();
}

// tools.effective decides with the session's model (its /model override), not only the agent's
// primary: tools.byProvider keyed "<provider>/<model>" applies to the session that uses it.
TEST_F(McpClientTest, EffectiveToolsFollowTheSessionsModel) {
  const json models = {{"providers", {{"mock", {{"baseUrl", "http://127.0.0.1:9"}, {"apiKey", "k"}, {"api", "openai-completions"},
                                                {"models", json::array({{{"id", "mock-model"}}, {{"id", "other-model"}}})}}}}}};
  start({{"servers", json::object()}},
        {{"models", models},
         {"tools", {{"byProvider", {{"mock/other-model", {{"deny", json::array({"read"})}}}}}}}});
  auto ids = [&](const std::string& key) {
    std::set<std::string> out;
    auto r = client_->request("tools.effective", {{"sessionKey", key}});
    EXPECT_EQ(r["ok"], true) << r.dump();
    for (const auto& g : r["payload"]["groups"]) {
      for (const auto& t : g["tools"]) out.insert(t["id"].get<std::string>());
    }
    return out;
  };
  ASSERT_EQ(client_->request("sessions.create", {{"key", "plain"}})["ok"], true);
  auto other = client_->request("sessions.create", {{"key", "other"}, {"model", "mock/other-model"}});
  ASSERT_EQ(other["ok"], true) << other.dump();
  EXPECT_TRUE(ids("plain").count("read"));
  const auto with_override = ids("other");
  EXPECT_FALSE(with_override.count("read")) << "tools.byProvider[\"mock/other-model\"] denies it";
  EXPECT_TRUE(with_override.count("write"));
}

// tools/list pages (nextCursor) and notifications/tools/list_changed while a run works: a tool of
// the second page is called, and a tool the server adds during the run is offered in its next call.
TEST_F(McpClientTest, ToolPagesAndListChangedDuringARun) {
  start({{"servers", {{"paged", stdio_server("node", json::array({(mcp_dir() / "paged_server.mjs").string()}))}}}});
  script(json::array({json{{"toolCalls", json::array({{{"name", "paged__second"}, {"arguments", {{"word", "hi"}}}}})}},
                      json{{"toolCalls", json::array({{{"name", "paged__first"}, {"arguments", json::object()}}})}},
                      json{{"toolCalls", json::array({{{"name", "paged__third"}, {"arguments", json::object()}}})}},
                      "done"}));
  auto frames = chat_turn(*client_, "main", "use the paged tools", "run-paged", std::chrono::seconds(60));
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  const auto gens = generations();
  ASSERT_EQ(gens.size(), 4u);
  const auto first = tool_names(gens[0]);
  EXPECT_NE(std::find(first.begin(), first.end(), "paged__second"), first.end()) << "page 2 was listed";
  EXPECT_EQ(std::find(first.begin(), first.end(), "paged__third"), first.end());
  EXPECT_NE(tool_results(gens[1]).find("second called with {\"word\":\"hi\"}"), std::string::npos) << tool_results(gens[1]);
  const auto third = tool_names(gens[2]);
  EXPECT_NE(std::find(third.begin(), third.end(), "paged__third"), third.end()) << "list_changed was followed";
  EXPECT_NE(tool_results(gens[3]).find("third called"), std::string::npos) << tool_results(gens[3]);
}

// MCP servers run on the host: a sandboxed run (TL-5) gets none of their tools, and does not start them.
TEST_F(McpClientTest, SandboxedRunsGetNoMcpTools) {
  start({{"servers", {{"everything", stdio_server(bin("mcp-server-everything"))}}}},
        {{"agents", {{"defaults", {{"model", {{"primary", "mock/mock-model"}}}, {"sandbox", {{"mode", "all"}}}}}}}});
  script(json::array({"plain"}));
  chat_turn(*client_, "main", "hi", "run-sandboxed", std::chrono::seconds(60));
  auto gens = generations();
  ASSERT_EQ(gens.size(), 1u);
  auto offered = tool_names(gens[0]);
  EXPECT_NE(std::find(offered.begin(), offered.end(), "read"), offered.end());
  EXPECT_FALSE(std::any_of(offered.begin(), offered.end(), [](const std::string& n) { return n.find("__") != std::string::npos; }));
  EXPECT_EQ(server(status(), "everything")["state"], "idle");
}

// /stop while an MCP tool works: the run ends aborted without waiting for the server's answer
// (the operation below would take 100 s).
TEST_F(McpClientTest, AnAbortedRunDoesNotWaitForTheMcpServer) {
  start({{"servers", {{"everything", stdio_server(bin("mcp-server-everything"))}}}});
  // A second connection that asks for tool events (the `tool-events` capability).
  WsClient watcher(gateway_->port());
  ASSERT_TRUE(watcher.recv());
  json params = connect_params(kToken);
  params["caps"] = json::array({"tool-events"});
  watcher.send_json({{"type", "req"}, {"id", "w1"}, {"method", "connect"}, {"params", params}});
  auto connected = watcher.recv_response("w1");
  ASSERT_TRUE(connected && (*connected)["ok"] == true) << (connected ? connected->dump() : "");
  script(json::array({json{{"toolCalls", json::array({{{"name", "everything__trigger-long-running-operation"},
                                                       {"arguments", {{"duration", 100}, {"steps", 2}}}}})}},
                      "never reached"}));
  auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "run it"}, {"idempotencyKey", "run-long"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  bool tool_started = false;
  for (int i = 0; i < 2000 && !tool_started; ++i) {
    auto f = watcher.recv(std::chrono::seconds(30));
    ASSERT_TRUE(f) << "no tool start";
    tool_started = (*f)["event"] == "agent" && (*f)["payload"]["stream"] == "tool" && (*f)["payload"]["data"]["phase"] == "start";
  }
  auto abort = client_->request("chat.abort", {{"sessionKey", "main"}, {"runId", "run-long"}});
  EXPECT_EQ(abort["ok"], true) << abort.dump();
  std::string state;
  for (int i = 0; i < 2000 && state.empty(); ++i) {
    auto f = client_->recv(std::chrono::seconds(30));  // well within the operation's 100 s
    ASSERT_TRUE(f) << "the run did not end";
    if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == "run-long" && (*f)["payload"]["state"] != "delta") {
      state = (*f)["payload"]["state"];
    }
  }
  EXPECT_EQ(state, "aborted");
}

// A stdio server is on the process guard like exec's children: kill -9 of the gateway takes it along.
TEST_F(McpClientTest, StdioServersDieWithTheGatewayEvenOnKillNine) {
  start({{"servers", {{"everything", stdio_server(bin("mcp-server-everything"))}}}});
  const json started = client_->request("mcp.status", {{"start", true}});  // starts it before any run
  EXPECT_NE(server(started["payload"], "everything")["state"], "idle") << started.dump();
  script(json::array({"plain"}));
  chat_turn(*client_, "main", "hi", "run-1", std::chrono::seconds(60));  // the run waits until it is ready
  const int pid = server(status(), "everything").value("pid", 0);
  ASSERT_GT(pid, 0) << status().dump();
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  ASSERT_GE(pidfd, 0) << "the server is running";
  EXPECT_NE(::getpgid(pid), gateway_->process().pid()) << "its own process group";
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(std::chrono::seconds(10)));
  pollfd p{pidfd, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 10'000), 1) << "the MCP server outlived the gateway (pid " << pid << ")";
  ::close(pidfd);
  gateway_.reset();
  client_.reset();
}

TEST_F(McpClientTest, BrokenServersAreUnavailableWithTheirReasonAndTheTurnStillCompletes) {
  const std::string script_path = (mcp_dir() / "broken_server.mjs").string();
  json servers = {{"everything", stdio_server(bin("mcp-server-everything"))},
                  {"garbage", stdio_server("node", json::array({script_path, "garbage"}))},
                  {"quits", stdio_server("node", json::array({script_path, "exit"}))},
                  {"hangs", stdio_server("node", json::array({script_path, "hang"}))},
                  {"missing", stdio_server("pincer-no-such-mcp-server")}};
  servers["hangs"]["connectionTimeoutMs"] = 1500;
  start({{"servers", servers}});
  script(json::array({json{{"toolCalls", json::array({{{"name", "everything__echo"}, {"arguments", {{"message", "still here"}}}}})}},
                      "done"}));
  auto frames = chat_turn(*client_, "main", "go", "run-broken", std::chrono::seconds(60));
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  const auto gens = generations();
  ASSERT_EQ(gens.size(), 2u);
  EXPECT_NE(tool_results(gens[1]).find("Echo: still here"), std::string::npos);

  // Each failed at least once with its reason (it may be restarting again by now: backoff).
  const json st = status();
  auto check = [&](const std::string& name, const std::string& reason) {
    const json s = server(st, name);
    EXPECT_NE(s.value("state", ""), "ready") << s.dump();
    EXPECT_GE(s.value("failures", 0), 1) << s.dump();
    EXPECT_NE(s.value("reason", "").find(reason), std::string::npos) << s.dump();
    EXPECT_EQ(s["tools"], json::array()) << s.dump();
  };
  check("garbage", "not JSON-RPC");
  check("quits", "exited with code 3");
  check("quits", "exiting on purpose");  // its stderr's last line
  check("hangs", "initialize timed out after 1500 ms");
  check("missing", "not found on PATH");
  EXPECT_EQ(server(st, "everything")["state"], "ready");
  // tools.effective warns of them (the ready one's tools are listed, the others are not).
  auto effective = client_->request("tools.effective", {{"sessionKey", "main"}});
  ASSERT_EQ(effective["ok"], true) << effective.dump();
  const json& notices = effective["payload"]["notices"];
  ASSERT_EQ(notices.size(), 1u) << effective.dump();
  EXPECT_EQ(notices[0]["id"], "mcp-unavailable");
  EXPECT_EQ(notices[0]["severity"], "warning");
  EXPECT_EQ(notices[0]["servers"], json::array({"garbage", "hangs", "missing", "quits"})) << effective.dump();
  EXPECT_NE(notices[0]["message"].get<std::string>().find("not found on PATH"), std::string::npos) << effective.dump();

  // The gateway is still fine: another turn works.
  script(json::array({"again"}));
  frames = chat_turn(*client_, "main", "again", "run-again", std::chrono::seconds(60));
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  // `pincer mcp status` shows the same and exits 1 while a server is unavailable.
  auto cli = run_pincer({"mcp", "status", "--url", "ws://127.0.0.1:" + std::to_string(gateway_->port()), "--token", kToken},
                        {{"PINCER_HOME", home_.path().string()}}, std::chrono::seconds(20));
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("everything  stdio  ready"), std::string::npos) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("not found on PATH"), std::string::npos) << cli.out << cli.err;
  // `pincer doctor` lists them too, from the running gateway.
  auto doctor = run_pincer({"doctor", "--json"},
                           {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())}},
                           std::chrono::seconds(30));
  EXPECT_NE(doctor.out.find("MCP server everything: ready"), std::string::npos) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find("MCP server quits: "), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("exited with code 3"), std::string::npos) << doctor.out;
}

TEST_F(McpClientTest, ToolSearchLoadsSchemasOnDemandAboveTheEagerLimit) {
  start({{"eagerToolLimit", 2}, {"servers", {{"everything", stdio_server(bin("mcp-server-everything"))}}}});
  script(json::array({json{{"toolCalls", json::array({{{"name", "tool_search"}, {"arguments", {{"query", "everything__echo"}}}}})}},
                      json{{"toolCalls", json::array({{{"name", "everything__echo"}, {"arguments", {{"message", "found it"}}}}})}},
                      "done"}));
  auto frames = chat_turn(*client_, "main", "find the echo tool", "run-search", std::chrono::seconds(60));
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  const auto gens = generations();
  ASSERT_EQ(gens.size(), 3u);
  auto first = tool_names(gens[0]);
  EXPECT_NE(std::find(first.begin(), first.end(), "tool_search"), first.end());
  EXPECT_EQ(std::find(first.begin(), first.end(), "everything__echo"), first.end()) << "not loaded yet";
  std::string catalogue;
  for (const auto& t : gens[0]["tools"]) {
    if (t["function"]["name"] == "tool_search") catalogue = t["function"]["description"];
  }
  EXPECT_NE(catalogue.find("- everything__echo: Echoes back the input string"), std::string::npos) << catalogue;
  auto second = tool_names(gens[1]);
  EXPECT_NE(std::find(second.begin(), second.end(), "everything__echo"), second.end()) << "loaded by tool_search";
  EXPECT_NE(tool_results(gens[1]).find("\"message\""), std::string::npos) << "the schema came back: " << tool_results(gens[1]);
  EXPECT_NE(tool_results(gens[2]).find("Echo: found it"), std::string::npos) << tool_results(gens[2]);
}

/// Characters of the tool definitions of a request that are not built in (MCP tools and
/// tool_search): name + description + parameters.
int64_t mcp_tool_chars(const json& body, std::size_t* count) {
  std::size_t chars = 0;
  *count = 0;
  for (const auto& t : body.value("tools", json::array())) {
    const std::string name = t["function"]["name"];
    if (name.find("__") == std::string::npos && name != "tool_search") continue;
    ++*count;
    chars += name.size() + t["function"].value("description", "").size() + t["function"]["parameters"].dump().size();
  }
  return static_cast<int64_t>(chars);
}

/// CX-5's estimate (context/budget.h: chars / 4 × 1.2, rounded up).
int64_t estimate_tokens(int64_t chars) { return static_cast<int64_t>(std::ceil(static_cast<double>(chars) / 4.0 * 1.2)); }

// The fixed prompt overhead of MCP tools with 0, 1 and 3 reference servers, every schema offered
// (eagerToolLimit 1000) and through tool_search (eagerToolLimit 0): docs/interop.md quotes these
// figures. The built-in tools' own tool_search (tools.toolSearch) is there without servers too:
// the overhead is what the servers add to it. What must hold: tool_search costs less than the
// schemas it stands for.
TEST_F(McpClientTest, FixedPromptOverheadWithAndWithoutToolSearch) {
  const fs::path shared = home_.path() / "shared";
  fs::create_directories(shared);
  const json all = {{"everything", stdio_server(bin("mcp-server-everything"))},
                    {"files", stdio_server(bin("mcp-server-filesystem"), json::array({shared.string()}))},
                    {"memory", {{"command", bin("mcp-server-memory")}, {"env", {{"MEMORY_FILE_PATH", (shared / "memory.jsonl").string()}}}}}};
  std::vector<std::string> rows;
  int64_t eager3 = 0, search3 = 0;
  std::map<int, int64_t> base_chars;  // per limit: the request without servers
  for (int n : {0, 1, 3}) {
    for (int limit : {1000, 0}) {
      json servers = json::object();
      int i = 0;
      for (const auto& [name, cfg] : all.items()) {
        if (i++ < n) servers[name] = cfg;
      }
      gateway_.reset();
      client_.reset();
      start({{"eagerToolLimit", limit}, {"servers", servers}});
      script(json::array({"ok"}));
      chat_turn(*client_, "main", "hi", "run-" + std::to_string(n) + "-" + std::to_string(limit), std::chrono::seconds(60));
      const auto gens = generations();
      ASSERT_EQ(gens.size(), 1u);
      std::size_t count = 0;
      const int64_t chars = mcp_tool_chars(gens[0], &count);
      if (n == 0) {
        EXPECT_EQ(count, 1u) << "the built-ins' tool_search only";
        base_chars[limit] = chars;
      }
      const int64_t tokens = estimate_tokens(chars - base_chars[limit]);
      rows.push_back(std::to_string(n) + " servers, eagerToolLimit " + std::to_string(limit) + ": " +
                     std::to_string(limit == 0 ? 0 : static_cast<int>(count) - 1) + " MCP tool definitions, ~" +
                     std::to_string(tokens) + " tokens");
      if (n == 3) {
        (limit == 0 ? search3 : eager3) = tokens;
      }
      if (n == 0) {
        EXPECT_EQ(tokens, 0);
      }
    }
  }
  for (const auto& r : rows) std::cout << "[overhead] " << r << "\n";
  EXPECT_GT(eager3, 0);
  EXPECT_LT(search3, eager3) << "the catalogue costs less than the schemas";
}

TEST_F(McpClientTest, StreamableHttpServer) {
  const int port = free_port();
  Process http_server({"/bin/sh", "-c", "exec " + bin("mcp-server-everything") + " streamableHttp 2>&1"},
                      {{"PORT", std::to_string(port)}});
  ASSERT_TRUE(http_server.wait_for_stdout("listening on port", std::chrono::seconds(30))) << http_server.out();
  // The server says it listens; a connection must also be accepted before the gateway tries one
  // (a sanitizer run once had the gateway's first connection refused right after that line).
  bool accepting = false;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       !accepting && std::chrono::steady_clock::now() < until;) {
    try {
      http_request(port, "GET", "/health");
      accepting = true;
    } catch (const std::exception&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_TRUE(accepting) << "the MCP server on port " << port << " accepts no connection:\n" << http_server.out();
  start({{"servers", {{"remote", {{"url", "http://127.0.0.1:" + std::to_string(port) + "/mcp"},
                                  {"headers", {{"X-Test-Header", "mcp-header-secret-value"}}}}}}}});
  script(json::array({json{{"toolCalls", json::array({{{"name", "remote__echo"}, {"arguments", {{"message", "over http"}}}}})}},
                      "done"}));
  auto frames = chat_turn(*client_, "main", "call over http", "run-http", std::chrono::seconds(60));
  EXPECT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  const auto gens = generations();
  ASSERT_EQ(gens.size(), 2u);
  EXPECT_NE(tool_results(gens[1]).find("Echo: over http"), std::string::npos) << tool_results(gens[1]);
  EXPECT_EQ(server(status(), "remote")["transport"], "streamable-http");
  // Header values are secrets: config.get shows them redacted.
  auto cfg = client_->request("config.get", json::object());
  EXPECT_EQ(cfg.dump().find("mcp-header-secret-value"), std::string::npos) << "redacted";
}

}  // namespace
}  // namespace mcp_client_test
}  // namespace pincer::test
