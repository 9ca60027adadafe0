// `pincer agents list|add|delete` on a commented config file, and the gateway methods
// agents.create|update|delete with a real gateway and the mock LLM (SPEC MA-1; docs/agents.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <iterator>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace agents_cli_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kToken = "agents-cli-token-0123456789";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// `shared`: a read-only shared folder of every agent, mounted at /team (MA-4), or "".
std::string config(const std::string& base_url, const std::string& shared = "") {
  return std::string("// my pincer config\n{\n  gateway: { auth: { token: '") + kToken + "' } },\n" +
         "  models: { providers: { mock: { baseUrl: '" + base_url +
         "', apiKey: 'k', api: 'openai-completions', models: [ { id: 'mock-model', contextWindow: 64000 } ] } } },\n" +
         "  // the agents, by hand\n" +
         "  agents: {\n    defaults: { model: { primary: 'mock/mock-model' }" +
         (shared.empty() ? std::string() : ", binds: ['" + shared + ":/team']") + " },  // every agent's model\n" +
         "    list: [ { id: 'main', name: 'Claw' } ],\n  },\n}\n";
}

TEST(AgentsCli, AddListDeleteKeepCommentsAndRefuseWhatTheyMust) {
  TempDir home;
  home.write("pincer.json", config("http://127.0.0.1:9/v1"));
  const fs::path file = home.path() / "pincer.json";
  const std::map<std::string, std::string> env{{"PINCER_HOME", home.path().string()}};
  auto pincer = [&](std::vector<std::string> args) { return run_pincer(args, env); };

  auto added = pincer({"agents", "add", "work", "--name", "Work Bot", "--model", "mock/mock-model", "--bind", "telegram:ops",
                       "--bind", "irc", "--non-interactive", "--json"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const json a = json::parse(added.out);
  EXPECT_EQ(a["agentId"], "work");
  EXPECT_EQ(a["workspace"], (home.path() / "workspace-work").string());
  EXPECT_EQ(a["bindings"].size(), 2u);
  EXPECT_TRUE(fs::exists(home.path() / "workspace-work" / "AGENTS.md"));  // bootstrap files as a new agent gets them
  EXPECT_TRUE(fs::exists(home.path() / "workspace-work" / "BOOTSTRAP.md"));
  std::string text = read(file);
  for (const char* comment : {"// my pincer config", "// the agents, by hand", "// every agent's model"}) {
    EXPECT_NE(text.find(comment), std::string::npos) << comment << "\n" << text;
  }
  EXPECT_TRUE(text.find("id: 'work'") != std::string::npos || text.find("id: \"work\"") != std::string::npos) << text;

  auto listed = pincer({"agents", "list", "--json", "--bindings"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json rows = json::parse(listed.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["id"], "main");
  EXPECT_EQ(rows[0]["isDefault"], true);
  EXPECT_EQ(rows[1]["name"], "Work Bot");
  EXPECT_EQ(rows[1]["bindings"], 2);
  EXPECT_EQ(rows[1]["routes"][0]["match"], (json{{"channel", "telegram"}, {"accountId", "ops"}}));
  auto bare = pincer({"agents"});  // lists (text), as `openclaw agents` does
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_NE(bare.out.find("- work (Work Bot)"), std::string::npos) << bare.out;

  auto typo = pincer({"agents", "add", "typo", "--model", "mock/nope"});  // written, with the gateway's warning
  EXPECT_EQ(typo.exit_code, 0) << typo.err;
  EXPECT_NE(typo.err.find("warning: agent \"typo\""), std::string::npos) << typo.err;
  ASSERT_EQ(pincer({"agents", "delete", "typo", "--force"}).exit_code, 0);

  // Refusals (each rule is unit-tested in workspace_roster_test.cpp): nothing is written.
  const std::string before = read(file);
  auto again = pincer({"agents", "add", "work"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  auto bad = pincer({"agents", "add", "Bad Id"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("\"bad-id\""), std::string::npos) << bad.err;
  auto main = pincer({"agents", "delete", "main", "--force"});
  EXPECT_EQ(main.exit_code, 2);
  EXPECT_NE(main.err.find("default agent"), std::string::npos) << main.err;
  auto unconfirmed = pincer({"agents", "delete", "work"});  // stdin is not a terminal
  EXPECT_EQ(unconfirmed.exit_code, 2);
  EXPECT_NE(unconfirmed.err.find("--force"), std::string::npos) << unconfirmed.err;
  // Pincer's own folders are never a workspace (deleting that agent would move them away), and a
  // workspace that cannot be made writes nothing.
  auto own = pincer({"agents", "add", "own", "--workspace", (home.path() / "agents").string()});
  EXPECT_EQ(own.exit_code, 2);
  EXPECT_NE(own.err.find("workspace " + (home.path() / "agents").string() + " is inside Pincer's state directory " +
                         home.path().string()),
            std::string::npos)
      << own.err;
  home.write("afile", "not a folder");
  auto unmade = pincer({"agents", "add", "unmade", "--workspace", (home.path() / "afile").string()});
  EXPECT_NE(unmade.exit_code, 0);
  EXPECT_NE(unmade.err.find("afile"), std::string::npos) << unmade.err;
  EXPECT_EQ(read(file), before);

  fs::create_directories(home.path() / "agents" / "work" / "sessions");
  auto deleted = pincer({"agents", "delete", "work", "--force", "--json"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  const json d = json::parse(deleted.out);
  EXPECT_EQ(d["removedBindings"], 2);
  ASSERT_EQ(d["removed"].size(), 2u);
  EXPECT_EQ(d["removed"][0]["method"], "trash");
  EXPECT_FALSE(fs::exists(home.path() / "workspace-work"));
  EXPECT_TRUE(fs::exists(fs::path(d["removed"][0]["movedTo"].get<std::string>()) / "AGENTS.md"));
  EXPECT_FALSE(fs::exists(home.path() / "agents" / "work"));
  text = read(file);
  EXPECT_EQ(text.find("work"), std::string::npos) << text;
  EXPECT_NE(text.find("// every agent's model"), std::string::npos) << text;
  auto after = pincer({"agents", "list", "--json"});
  EXPECT_EQ(json::parse(after.out).size(), 1u);
  auto gone = pincer({"agents", "delete", "work", "--force"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("not in agents.list"), std::string::npos) << gone.err;
}

TEST(AgentsCli, BadBindsJsonErrorsMissingFileDirAndRelativeWorkspace) {
  TempDir home;
  home.write("pincer.json", config("http://127.0.0.1:9/v1"));
  const fs::path file = home.path() / "pincer.json";
  const std::string before = read(file);
  const std::map<std::string, std::string> env{{"PINCER_HOME", home.path().string()}};
  auto pincer = [&](std::vector<std::string> args) { return run_pincer(args, env); };

  // An unknown channel is named, with the known ones; nothing is written.
  auto unknown = pincer({"agents", "add", "w1", "--bind", "signal:ops"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown channel \"signal\""), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("telegram, discord, slack, matrix, email, irc, webhook"), std::string::npos) << unknown.err;
  // One route twice ("telegram" is "telegram:default").
  auto twice = pincer({"agents", "add", "w1", "--bind", "telegram", "--bind", "telegram:default"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("the same route as --bind telegram"), std::string::npos) << twice.err;
  EXPECT_EQ(read(file), before);
  EXPECT_FALSE(fs::exists(home.path() / "workspace-w1"));

  // With --json every error is one JSON object on stdout, and the exit code is still non-zero.
  auto as_json = pincer({"agents", "add", "w1", "--bind", "signal", "--json"});
  EXPECT_EQ(as_json.exit_code, 2);
  const json e = json::parse(as_json.out);
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["code"], "INVALID_BIND");
  EXPECT_NE(e["error"]["message"].get<std::string>().find("signal"), std::string::npos);
  ASSERT_EQ(pincer({"agents", "add", "w2", "--bind", "irc"}).exit_code, 0);
  auto in_use = pincer({"agents", "add", "w3", "--bind", "irc", "--json"});
  EXPECT_EQ(in_use.exit_code, 2);
  EXPECT_EQ(json::parse(in_use.out)["error"]["code"], "BINDING_IN_USE");
  auto no_such = pincer({"agents", "delete", "nobody", "--force", "--json"});
  EXPECT_NE(no_such.exit_code, 0);
  EXPECT_EQ(json::parse(no_such.out)["ok"], false);

  // --file in a directory that does not exist: refused, no directory or workspace made.
  const fs::path missing = home.path() / "typo" / "pincer.json";
  auto bad_file = pincer({"agents", "add", "w4", "--file", missing.string(), "--json"});
  EXPECT_EQ(bad_file.exit_code, 2);
  EXPECT_EQ(json::parse(bad_file.out)["error"]["code"], "FILE_DIR_MISSING");
  EXPECT_FALSE(fs::exists(home.path() / "typo"));
  EXPECT_FALSE(fs::exists(home.path() / "workspace-w4"));

  // A relative --workspace is resolved against the current directory and written absolute.
  TempDir cwd;
  const fs::path old_cwd = fs::current_path();
  fs::current_path(cwd.path());
  auto rel = pincer({"agents", "add", "w5", "--workspace", "sub/ws", "--json"});
  fs::current_path(old_cwd);
  ASSERT_EQ(rel.exit_code, 0) << rel.err;
  const fs::path expected = (fs::canonical(cwd.path()) / "sub" / "ws").lexically_normal();
  EXPECT_EQ(fs::path(json::parse(rel.out)["workspace"].get<std::string>()), expected);
  EXPECT_TRUE(fs::is_directory(expected));
  EXPECT_NE(read(file).find(expected.string()), std::string::npos);
}

TEST(AgentsGatewayMethods, CreateChatUpdateDelete) {
  MockLlm mock;
  TempDir home;
  TempDir shared;
  shared.write("notes.md", "team notes for every agent\n");
  home.write("pincer.json", config(mock.base_url(), shared.path().string()));
  Gateway gateway(home.path());
  auto connect = [&](const std::vector<std::string>& scopes) {
    auto c = std::make_unique<WsClient>(gateway.port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  };
  auto c = connect({"operator.admin"});
  auto agent_ids = [&] {
    std::vector<std::string> ids;
    auto listed = c->request("agents.list", json::object());
    for (const auto& a : listed["payload"]["agents"]) ids.push_back(a["id"]);
    return ids;
  };
  auto wait_for = [&](bool present) {
    for (int i = 0; i < 200; ++i) {
      auto ids = agent_ids();
      if ((std::find(ids.begin(), ids.end(), "helper-bot") != ids.end()) == present) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  };

  // Scope: operator.write is not enough.
  auto writer = connect({"operator.write"});
  auto denied = writer->request("agents.create", {{"name", "x"}});
  EXPECT_EQ(denied["ok"], false) << denied.dump();

  auto created = c->request("agents.create", {{"name", "Helper Bot"}, {"emoji", "🦀"}});
  ASSERT_EQ(created["ok"], true) << created.dump();
  EXPECT_EQ(created["payload"]["agentId"], "helper-bot");
  EXPECT_EQ(created["payload"]["name"], "Helper Bot");
  const fs::path ws = home.path() / "workspace-helper-bot";
  EXPECT_EQ(created["payload"]["workspace"], ws.string());
  EXPECT_NE(read(ws / "IDENTITY.md").find("- Emoji: 🦀"), std::string::npos);
  EXPECT_NE(read(home.path() / "pincer.json").find("// the agents, by hand"), std::string::npos);
  auto dup = c->request("agents.create", {{"name", "helper-bot"}});
  EXPECT_EQ(dup["ok"], false);
  EXPECT_NE(dup["error"]["message"].get<std::string>().find("already exists"), std::string::npos) << dup.dump();

  // The file watcher applies it; then a turn runs as the new agent, in its workspace.
  ASSERT_TRUE(wait_for(true));
  // Its file tools read the shared folder (MA-4) and cannot write there.
  const std::string message = R"(MOCK_TOOL:read:{"path":"/team/notes.md"} MOCK_TOOL:write:{"path":"/team/new.md","content":"x"})";
  auto ack = c->request("chat.send", {{"sessionKey", "agent:helper-bot:main"}, {"message", message}, {"idempotencyKey", "hb1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  bool final_seen = false;
  for (int i = 0; i < 2000 && !final_seen; ++i) {
    auto f = c->recv(20s);
    ASSERT_TRUE(f) << "no final chat event";
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] == "final") {
      EXPECT_EQ((*f)["payload"]["sessionKey"], "agent:helper-bot:main");
      const std::string text = (*f)["payload"].dump();
      EXPECT_NE(text.find("team notes for every agent"), std::string::npos) << text;
      EXPECT_NE(text.find("read-only shared folder"), std::string::npos) << text;
      final_seen = true;
    }
  }
  EXPECT_TRUE(fs::exists(home.path() / "agents" / "helper-bot"));
  EXPECT_FALSE(fs::exists(shared.path() / "new.md"));

  auto updated = c->request("agents.update", {{"agentId", "helper-bot"}, {"name", "Helper"}});
  ASSERT_EQ(updated["ok"], true) << updated.dump();
  const std::string renamed = read(home.path() / "pincer.json");
  EXPECT_TRUE(renamed.find("name: 'Helper'") != std::string::npos || renamed.find("name: \"Helper\"") != std::string::npos) << renamed;
  auto missing = c->request("agents.update", {{"agentId", "nobody"}, {"name", "x"}});
  EXPECT_EQ(missing["ok"], false);

  auto main = c->request("agents.delete", {{"agentId", "main"}});
  EXPECT_EQ(main["ok"], false);
  EXPECT_NE(main["error"]["message"].get<std::string>().find("default agent"), std::string::npos) << main.dump();
  auto deleted = c->request("agents.delete", {{"agentId", "helper-bot"}});
  ASSERT_EQ(deleted["ok"], true) << deleted.dump();
  EXPECT_EQ(deleted["payload"]["removedBindings"], 0);
  EXPECT_EQ(deleted["payload"]["removed"].size(), 2u);
  EXPECT_FALSE(fs::exists(ws));
  EXPECT_TRUE(wait_for(false));
  EXPECT_EQ(read(home.path() / "pincer.json").find("helper"), std::string::npos);
}

}  // namespace
}  // namespace agents_cli_test
}  // namespace pincer::test
