// OpenClaw's agent-file, tool and device-label methods against the real gateway binary:
// agents.files.list|get|set and agents.workspace.get (gateway/methods/agent_files.cpp),
// tools.catalog and tools.effective (gateway/methods/tools.cpp, the rule of `pincer tools
// explain`), device.pair.rename (gateway/methods/devices.cpp, shown by `pincer devices list`),
// chat.metadata, doctor.memory.status and themes.list (gateway/methods/ui_reads.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gateway_process.h"
#include "test_device.h"
#include "ws_client.h"

namespace pincer::test {
namespace agent_files_tools_methods_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "agent-files-token-0123456789";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AgentFilesToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_main_ = home_.path() / "ws-main";
    ws_ops_ = home_.path() / "ws-ops";
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                                   "  tools: { deny: ['exec'] },\n" +
                                   "  agents: { list: [ { id: 'main', workspace: '" + ws_main_.string() + "' },\n" +
                                   "    { id: 'ops', workspace: '" + ws_ops_.string() +
                                   "', tools: { profile: 'full', deny: ['write'] } } ] } }\n");
    gw_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes = {"operator.admin"}) {
    auto c = std::make_unique<WsClient>(gw_->port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  }
  static std::string error(const json& r) { return r.value("error", json::object()).value("message", ""); }

  TempDir home_;
  fs::path ws_main_, ws_ops_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(AgentFilesToolsTest, AgentFilesAreListedReadAndWrittenAtomicallyInTheWorkspace) {
  fs::create_directories(ws_main_);
  { std::ofstream(ws_main_ / "SOUL.md") << "old soul\n"; }
  auto c = client();
  auto list = c->request("agents.files.list", {{"agentId", "main"}});
  ASSERT_EQ(list["ok"], true) << list.dump();
  EXPECT_EQ(list["payload"]["workspace"], ws_main_.string());
  std::vector<std::string> names;
  json soul;
  for (const auto& f : list["payload"]["files"]) {
    names.push_back(f["name"]);
    if (f["name"] == "SOUL.md") soul = f;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"AGENTS.md", "SOUL.md", "TOOLS.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md",
                                             "MEMORY.md"}));
  EXPECT_EQ(soul["missing"], false);
  EXPECT_EQ(soul["size"], 9);

  auto got = c->request("agents.files.get", {{"agentId", "main"}, {"name", "SOUL.md"}});
  ASSERT_EQ(got["ok"], true) << got.dump();
  EXPECT_EQ(got["payload"]["file"]["content"], "old soul\n");
  const std::string hash = got["payload"]["file"]["hash"];
  EXPECT_EQ(hash.size(), 64u);

  // Written: the file on disk, through a rename (a new inode), and the answer describes it.
  struct stat before {};
  ASSERT_EQ(::stat((ws_main_ / "SOUL.md").c_str(), &before), 0);
  auto set = c->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}, {"content", "new soul\n"}, {"expectedHash", hash}});
  ASSERT_EQ(set["ok"], true) << set.dump();
  EXPECT_EQ(set["payload"]["ok"], true);
  EXPECT_EQ(set["payload"]["file"]["size"], 9);
  EXPECT_EQ(slurp(ws_main_ / "SOUL.md"), "new soul\n");
  struct stat after {};
  ASSERT_EQ(::stat((ws_main_ / "SOUL.md").c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino) << "not replaced atomically";
  EXPECT_EQ(after.st_mode & 0777, before.st_mode & 0777);
  for (const auto& e : fs::directory_iterator(ws_main_)) EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();

  // The old hash is stale now: the write is refused and the file stays.
  auto stale = c->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}, {"content", "lost"}, {"expectedHash", hash}});
  EXPECT_EQ(error(stale), "agent file \"SOUL.md\" changed since it was read") << stale.dump();
  EXPECT_EQ(stale["error"]["details"]["type"], "agent_file_conflict");
  EXPECT_EQ(slurp(ws_main_ / "SOUL.md"), "new soul\n");

  // A file not there yet: listed missing, created by set.
  auto memory = c->request("agents.files.get", {{"agentId", "main"}, {"name", "MEMORY.md"}});
  EXPECT_EQ(memory["payload"]["file"]["missing"], true) << memory.dump();
  EXPECT_EQ(memory["payload"]["file"]["expectedAbsent"], true);
  ASSERT_EQ(c->request("agents.files.set", {{"agentId", "main"}, {"name", "MEMORY.md"}, {"content", "- likes tea\n"}})["ok"], true);
  EXPECT_EQ(slurp(ws_main_ / "MEMORY.md"), "- likes tea\n");

  // The other agent's workspace is its own.
  ASSERT_EQ(c->request("agents.files.set", {{"agentId", "ops"}, {"name", "USER.md"}, {"content", "ops user"}})["ok"], true);
  EXPECT_EQ(slurp(ws_ops_ / "USER.md"), "ops user");
}

TEST_F(AgentFilesToolsTest, NamesOutsideTheBootstrapFilesAndLinksAreRefused) {
  fs::create_directories(ws_main_);
  const fs::path outside = home_.path() / "secret.txt";
  { std::ofstream(outside) << "secret"; }
  fs::create_symlink(outside, ws_main_ / "USER.md");
  auto c = client();
  for (const char* name : {"../secret.txt", "/etc/passwd", "notes.md", "sub/AGENTS.md", "..", "pincer.json"}) {
    auto r = c->request("agents.files.set", {{"agentId", "main"}, {"name", name}, {"content", "x"}});
    EXPECT_EQ(r["error"]["code"], "INVALID_REQUEST") << r.dump();
    EXPECT_EQ(error(r).rfind(std::string("unsupported file \"") + name + "\"", 0), 0u) << r.dump();
    EXPECT_EQ(error(c->request("agents.files.get", {{"agentId", "main"}, {"name", name}})).rfind("unsupported file", 0), 0u);
  }
  EXPECT_FALSE(fs::exists(home_.path() / "x"));
  // A bootstrap name that is a link to elsewhere is neither read nor written through.
  EXPECT_EQ(error(c->request("agents.files.get", {{"agentId", "main"}, {"name", "USER.md"}})), "unsafe workspace file \"USER.md\"");
  EXPECT_EQ(error(c->request("agents.files.set", {{"agentId", "main"}, {"name", "USER.md"}, {"content", "pwned"}})),
            "unsafe workspace file \"USER.md\"");
  EXPECT_EQ(slurp(outside), "secret");
  // Bad params name the field; an unknown agent is named.
  EXPECT_EQ(error(c->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}})),
            "invalid agents.files.set params: must have required property 'content'");
  EXPECT_EQ(error(c->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}, {"content", 3}})),
            "invalid agents.files.set params: /content must be string");
  EXPECT_EQ(error(c->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}, {"content", ""}, {"expectedHash", "abc"}})),
            "invalid agents.files.set params: /expectedHash must be a sha256 hex digest (64 hex digits)");
  EXPECT_EQ(error(c->request("agents.files.list", {{"agentId", "main"}, {"path", "x"}})),
            "invalid agents.files.list params: must NOT have additional properties (\"path\")");
  EXPECT_EQ(error(c->request("agents.files.list", {{"agentId", "nobody"}})), "agent \"nobody\" not found");
  // Writing needs operator.admin (as in OpenClaw); reading needs operator.read.
  auto reader = client({"operator.read", "operator.write"});
  auto denied = reader->request("agents.files.set", {{"agentId", "main"}, {"name", "SOUL.md"}, {"content", "x"}});
  EXPECT_EQ(denied["error"]["code"], "FORBIDDEN") << denied.dump();
  EXPECT_EQ(error(denied), "missing scope: operator.admin");
  EXPECT_EQ(reader->request("agents.files.list", {{"agentId", "main"}})["ok"], true);
}

TEST_F(AgentFilesToolsTest, WorkspaceGetReadsFilesUnderTheWorkspaceOnly) {
  fs::create_directories(ws_main_ / "notes");
  { std::ofstream(ws_main_ / "notes" / "a.md") << "hello"; }
  { std::ofstream(ws_main_ / "pic.png", std::ios::binary) << std::string("\x89PNG\r\n\x1a\n\0\0", 10); }
  { std::ofstream(ws_main_ / "bin.dat", std::ios::binary) << std::string("a\0b", 3); }
  { std::ofstream(home_.path() / "outside.md") << "outside"; }
  fs::create_symlink(home_.path(), ws_main_ / "up");
  auto c = client({"operator.read"});
  auto r = c->request("agents.workspace.get", {{"agentId", "main"}, {"path", "./notes//a.md"}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["payload"]["file"], (json{{"path", "notes/a.md"}, {"name", "a.md"}, {"size", 5}, {"updatedAtMs", r["payload"]["file"]["updatedAtMs"]},
                                         {"mimeType", "text/plain"}, {"encoding", "utf8"}, {"content", "hello"}}));
  auto png = c->request("agents.workspace.get", {{"agentId", "main"}, {"path", "pic.png"}});
  EXPECT_EQ(png["payload"]["file"]["mimeType"], "image/png") << png.dump();
  EXPECT_EQ(png["payload"]["file"]["encoding"], "base64");
  auto type = [&](const std::string& path) {
    return c->request("agents.workspace.get", {{"agentId", "main"}, {"path", path}})["error"]["details"].value("type", "");
  };
  EXPECT_EQ(type("../outside.md"), "workspace_path_invalid");
  EXPECT_EQ(type("notes/../../outside.md"), "workspace_path_invalid");
  EXPECT_EQ(type("/etc/passwd"), "workspace_path_invalid");
  EXPECT_EQ(type("up/outside.md"), "workspace_file_not_found");  // a link out of the workspace is not followed
  EXPECT_EQ(type("notes"), "workspace_file_not_found");
  EXPECT_EQ(type("bin.dat"), "workspace_file_unsupported");
  EXPECT_EQ(error(c->request("agents.workspace.get", {{"agentId", "main"}})),
            "invalid agents.workspace.get params: must have required property 'path'");
}

/// `pincer tools explain --json` for the same agent/session: {tool: allowed}.
std::map<std::string, bool> explained(const fs::path& home, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"tools", "explain", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_pincer(args, isolated_cli_env(home));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, bool> out;
  const json parsed = json::parse(r.out);
  for (const auto& t : parsed["tools"]) out[t["tool"]] = t["allowed"];
  return out;
}

std::set<std::string> effective_ids(const json& payload) {
  std::set<std::string> ids;
  for (const auto& g : payload["groups"]) {
    for (const auto& t : g["tools"]) ids.insert(t["id"]);
  }
  return ids;
}

TEST_F(AgentFilesToolsTest, EffectiveToolsFollowThePolicyAsToolsExplainDoes) {
  auto c = client({"operator.read"});
  // As OpenClaw: only a session that exists is answered.
  EXPECT_EQ(error(c->request("tools.effective", {{"sessionKey", "agent:main:main"}})), "unknown session key \"agent:main:main\"");
  auto admin = client({"operator.admin"});
  for (const char* key : {"agent:main:main", "agent:ops:main", "agent:main:telegram:group:-100"}) {
    ASSERT_EQ(admin->request("sessions.create", {{"key", key}})["ok"], true) << key;
  }
  auto main = c->request("tools.effective", {{"sessionKey", "agent:main:main"}});
  ASSERT_EQ(main["ok"], true) << main.dump();
  EXPECT_EQ(main["payload"]["agentId"], "main");
  EXPECT_EQ(main["payload"]["profile"], "coding");  // the default tools.profile
  auto ids = effective_ids(main["payload"]);
  EXPECT_TRUE(ids.count("read") && ids.count("write")) << main.dump();
  EXPECT_FALSE(ids.count("exec")) << "tools.deny exec";
  EXPECT_FALSE(ids.count("message")) << "not in the coding profile";
  // The ops agent: profile full, write denied for it, exec denied for all.
  auto ops = c->request("tools.effective", {{"agentId", "ops"}, {"sessionKey", "agent:ops:main"}});
  ASSERT_EQ(ops["ok"], true) << ops.dump();
  EXPECT_EQ(ops["payload"]["profile"], "full");
  auto ops_ids = effective_ids(ops["payload"]);
  EXPECT_TRUE(ops_ids.count("read") && ops_ids.count("message")) << ops.dump();
  EXPECT_FALSE(ops_ids.count("write") || ops_ids.count("exec")) << ops.dump();
  // Exactly what `pincer tools explain` says for the same sessions (one rule).
  for (const auto& [session, payload] : {std::pair{std::string("agent:main:main"), main["payload"]},
                                         {std::string("agent:ops:main"), ops["payload"]},
                                         {std::string("agent:main:telegram:group:-100"),
                                          c->request("tools.effective", {{"sessionKey", "agent:main:telegram:group:-100"}})["payload"]}}) {
    std::set<std::string> allowed;
    for (const auto& [tool, ok] : explained(home_.path(), {"--session", session})) {
      if (ok) allowed.insert(tool);
    }
    EXPECT_EQ(effective_ids(payload), allowed) << session;
  }
  EXPECT_EQ(error(c->request("tools.effective", {{"agentId", "main"}})),
            "invalid tools.effective params: must have required property 'sessionKey'");
  EXPECT_EQ(error(c->request("tools.effective", {{"agentId", "nobody"}, {"sessionKey", "main"}})), "unknown agent id \"nobody\"");
  EXPECT_EQ(error(c->request("tools.effective", {{"agentId", "ops"}, {"sessionKey", "agent:main:main"}})),
            "agent id \"ops\" does not match session agent \"main\"");

  auto catalog = c->request("tools.catalog", {{"agentId", "ops"}});
  ASSERT_EQ(catalog["ok"], true) << catalog.dump();
  EXPECT_EQ(catalog["payload"]["agentId"], "ops");
  EXPECT_EQ(catalog["payload"]["profiles"].size(), 4u);
  ASSERT_FALSE(catalog["payload"]["groups"].empty());
  json fs_group = catalog["payload"]["groups"][0];
  EXPECT_EQ(fs_group["id"], "fs");
  EXPECT_EQ(fs_group["label"], "Files");
  EXPECT_EQ(fs_group["tools"][0]["id"], "read");
  EXPECT_EQ(fs_group["tools"][0]["defaultProfiles"], json::array({"coding"}));
  std::set<std::string> all;  // the catalog has every tool, the policy's removals too
  for (const auto& g : catalog["payload"]["groups"]) {
    for (const auto& t : g["tools"]) all.insert(t["id"]);
  }
  EXPECT_TRUE(all.count("exec") && all.count("write"));
  EXPECT_EQ(error(c->request("tools.catalog", {{"includePlugins", "yes"}})), "invalid tools.catalog params: /includePlugins must be boolean");

  // The Control UI's other reads of these agents and sessions (methods/ui_reads.cpp), checked here
  // to start no other gateway: chat.metadata is models.list's models + commands.list's text
  // commands of the session's agent, with no pinned account.
  auto meta = c->request("chat.metadata", {{"sessionKey", "agent:ops:main"}});
  ASSERT_EQ(meta["ok"], true) << meta.dump();
  EXPECT_EQ(meta["payload"]["models"], c->request("models.list", json::object())["payload"]["models"]);
  EXPECT_EQ(meta["payload"]["commands"],
            c->request("commands.list", {{"agentId", "ops"}, {"scope", "text"}})["payload"]["commands"]);
  EXPECT_FALSE(meta["payload"]["commands"].empty());
  EXPECT_EQ(meta["payload"]["accountSelection"]["kind"], "automatic");
  EXPECT_EQ(meta["payload"]["swarmEnabled"], false);
  EXPECT_EQ(meta["payload"]["runtimeSelectionLocked"], false);
  auto draft = c->request("chat.metadata", {{"agentId", "main"}});  // a new chat: no session yet
  ASSERT_EQ(draft["ok"], true) << draft.dump();
  EXPECT_FALSE(draft["payload"].contains("runtimeSelectionLocked"));
  EXPECT_EQ(error(c->request("chat.metadata", {{"agentId", "nobody"}})), "unknown agent id \"nobody\"");
  EXPECT_EQ(error(c->request("chat.metadata", {{"agentId", "ops"}, {"sessionKey", "agent:main:main"}})),
            "agent id \"ops\" does not match session agent \"main\"");
  EXPECT_EQ(error(c->request("chat.metadata", {{"sessionKey", "agent:main:main"}, {"authProfileId", "p"}})),
            "invalid chat.metadata params: must NOT have both sessionKey and authProfileId");
  // doctor.memory.status: memory on, no embedding provider configured → keyword search, not checked.
  auto memory = c->request("doctor.memory.status", {{"agentId", "ops"}});
  ASSERT_EQ(memory["ok"], true) << memory.dump();
  EXPECT_EQ(memory["payload"]["agentId"], "ops");
  EXPECT_EQ(memory["payload"]["provider"], "none");
  EXPECT_EQ(memory["payload"]["embedding"]["ok"], false);
  EXPECT_EQ(memory["payload"]["embedding"]["checked"], false);
  EXPECT_EQ(c->request("doctor.memory.status", json::object())["payload"]["agentId"], "main") << "the default agent";
  EXPECT_EQ(error(c->request("doctor.memory.status", {{"probe", "yes"}})),
            "invalid doctor.memory.status params: /probe must be boolean");
  // themes.list: no gateway themes, the UI's default selected.
  auto themes = c->request("themes.list", json::object());
  ASSERT_EQ(themes["ok"], true) << themes.dump();
  EXPECT_EQ(themes["payload"]["themes"], json::array());
  EXPECT_EQ(themes["payload"]["current"]["id"], themes["payload"]["theme"]["id"]);
  EXPECT_EQ(themes["payload"]["current"]["scope"], "gateway");
}

TEST_F(AgentFilesToolsTest, APairedDeviceGetsALabelShownByTheListAndTheCli) {
  TestDevice dev;
  auto hello = dev.connect(gw_->port(), connect_params(kToken, {"operator.read"}));  // paired silently (loopback)
  ASSERT_EQ(hello["ok"], true) << hello.dump();
  const std::string id = dev.id;

  auto admin = client({"operator.pairing"});
  auto r = admin->request("device.pair.rename", {{"deviceId", id}, {"label", "  Kitchen tablet "}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["payload"], (json{{"deviceId", id}, {"label", "Kitchen tablet"}}));
  auto list = admin->request("device.pair.list", json::object());
  ASSERT_EQ(list["payload"]["paired"].size(), 1u);
  EXPECT_EQ(list["payload"]["paired"][0]["operatorLabel"], "Kitchen tablet");
  EXPECT_NE(slurp(home_.path() / "devices" / "paired.json").find("\"operatorLabel\": \"Kitchen tablet\""), std::string::npos);
  const std::string url = "ws://127.0.0.1:" + std::to_string(gw_->port());
  auto cli = run_pincer({"devices", "list", "--url", url, "--token", kToken}, isolated_cli_env(home_.path()));
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find("\"Kitchen tablet\""), std::string::npos) << cli.out;

  EXPECT_EQ(error(admin->request("device.pair.rename", {{"deviceId", "nope"}, {"label", "x"}})), "unknown deviceId");
  EXPECT_EQ(error(admin->request("device.pair.rename", {{"deviceId", id}, {"label", "   "}})), "label required");
  EXPECT_EQ(error(admin->request("device.pair.rename", {{"deviceId", id}, {"label", std::string(65, 'a')}})),
            "invalid device.pair.rename params: /label must NOT have more than 64 characters");
  EXPECT_EQ(error(admin->request("device.pair.rename", {{"deviceId", id}})),
            "invalid device.pair.rename params: must have required property 'label'");
  auto reader = client({"operator.read"});
  EXPECT_EQ(error(reader->request("device.pair.rename", {{"deviceId", id}, {"label", "x"}})), "missing scope: operator.pairing");
}

}  // namespace
}  // namespace agent_files_tools_methods_test
}  // namespace pincer::test
