// agent/workspace_roster.h: the config-text edits of `pincer agents add|delete` and agents.create|
// update|delete — comments survive, refusals name the reason — and the trash moves.
#include "agent/workspace_roster.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/json5.h"
#include "test_helpers.h"

namespace pincer::workspace_roster_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace admin = agent::admin;

struct Scratch {
  fs::path dir;
  Scratch() {
    char tmpl[] = "/tmp/pincer-agents-admin-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const char* kConfig = R"(// my config
{
  // the agents
  agents: {
    defaults: { workspace: "~/main-ws" },  // main's workspace
    list: [
      { id: "main" },
      // the work agent
      { id: "work", workspace: "/srv/work" },
    ],
  },
  bindings: [
    { agentId: "work", match: { channel: "telegram", accountId: "ops" } },
    { agentId: "main", match: { channel: "irc" } },
    /* work again */ { agentId: "work", match: { channel: "webhook" } },
  ],
}
)";

admin::ConfigSource source(std::string_view text, const fs::path& state) {
  return admin::ConfigSource{text, state, test_helpers::env_of({{"HOME", "/home/u"}})};
}

json parsed(const std::string& text) {
  auto doc = json5::parse(text);
  EXPECT_TRUE(static_cast<bool>(doc)) << text;
  return doc ? *doc : json();
}

TEST(AgentsAdmin, IdRuleIsTheSessionKeyRule) {
  EXPECT_FALSE(admin::agent_id_problem("work"));
  EXPECT_FALSE(admin::agent_id_problem("a_b-9"));
  ASSERT_TRUE(admin::agent_id_problem("Work Bot"));
  EXPECT_NE(admin::agent_id_problem("Work Bot")->find("\"work-bot\""), std::string::npos);
  EXPECT_TRUE(admin::agent_id_problem(""));
  EXPECT_TRUE(admin::agent_id_problem("-x"));
  EXPECT_TRUE(admin::agent_id_problem("a:b"));
  EXPECT_TRUE(admin::agent_id_problem(std::string(65, 'a')));
}

TEST(AgentsAdmin, IdSuggestionSpellsAccentedLettersInAscii) {
  // "émile" used to be suggested as "mile": the accented letter was dropped, not transliterated.
  ASSERT_TRUE(admin::agent_id_problem("émile"));
  EXPECT_NE(admin::agent_id_problem("émile")->find("e.g. \"emile\""), std::string::npos) << *admin::agent_id_problem("émile");
  EXPECT_NE(admin::agent_id_problem("Zoë Müller")->find("e.g. \"zoe-muller\""), std::string::npos);
  EXPECT_NE(admin::agent_id_problem("Straße")->find("e.g. \"strasse\""), std::string::npos);
  EXPECT_NE(admin::agent_id_problem("e\xcc\x81mile")->find("e.g. \"emile\""), std::string::npos);  // decomposed é
  // Nothing Latin left: no suggestion rather than "main".
  ASSERT_TRUE(admin::agent_id_problem("日本"));
  EXPECT_EQ(admin::agent_id_problem("日本")->find("e.g."), std::string::npos);
  // Every suggestion is itself a valid id.
  for (const char* name : {"émile", "Ærøskøbing Łódź", "Œuvre ĳs", "Ștefan Țara", "x×y"}) {
    const auto problem = admin::agent_id_problem(name);
    ASSERT_TRUE(problem) << name;
    const auto at = problem->find("e.g. \"");
    ASSERT_NE(at, std::string::npos) << *problem;
    const std::string suggested = problem->substr(at + 6, problem->size() - at - 7);
    EXPECT_FALSE(admin::agent_id_problem(suggested)) << name << " -> " << suggested;
  }
}

TEST(AgentsAdmin, BindSpecs) {
  auto a = admin::parse_bind_spec("Telegram:ops");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->to_json("x"), (json{{"agentId", "x"}, {"match", {{"channel", "telegram"}, {"accountId", "ops"}}}}));
  auto b = admin::parse_bind_spec("irc");
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->account_id);
  ASSERT_TRUE(admin::parse_bind_spec("telegram:*"));
  EXPECT_FALSE(admin::parse_bind_spec(""));
  EXPECT_FALSE(admin::parse_bind_spec("telegram:"));
  EXPECT_FALSE(admin::parse_bind_spec("tele gram"));
  ASSERT_TRUE(admin::parse_bind_spec("slack:ops"));
  ASSERT_TRUE(admin::parse_bind_spec("matrix"));
  ASSERT_TRUE(admin::parse_bind_spec("email"));
  auto unknown = admin::parse_bind_spec("signal:ops");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown channel \"signal\" (known channels: telegram, discord, slack, matrix, email, irc, webhook)"), std::string::npos);
  EXPECT_TRUE(admin::parse_bind_spec("webhook"));
}

TEST(AgentsAdmin, CreateAppendsAndKeepsComments) {
  Scratch s;
  admin::CreateRequest req{"ops", "Ops Bot", "", "openai/gpt-4.1", {*admin::parse_bind_spec("telegram:alerts")}};
  auto plan = admin::plan_create(source(kConfig, s.dir), req);
  ASSERT_TRUE(plan) << plan.error().message;
  for (const char* comment : {"// my config", "// the agents", "// main's workspace", "// the work agent", "/* work again */"}) {
    EXPECT_NE(plan->text.find(comment), std::string::npos) << comment;
  }
  const json doc = parsed(plan->text);
  ASSERT_EQ(doc["agents"]["list"].size(), 3u);
  EXPECT_EQ(doc["agents"]["list"][2], (json{{"id", "ops"}, {"name", "Ops Bot"}, {"model", "openai/gpt-4.1"}}));
  ASSERT_EQ(doc["bindings"].size(), 4u);
  EXPECT_EQ(doc["bindings"][3]["agentId"], "ops");
  EXPECT_EQ(plan->agent.workspace, s.dir / "workspace-ops");
  EXPECT_FALSE(plan->wrote_implicit_main);
}

TEST(AgentsAdmin, CreateOnAnEmptyListKeepsTheDefault) {
  Scratch s;
  auto plan = admin::plan_create(source("{\n  // hi\n  gateway: { port: 1 },\n}\n", s.dir), {"work", "", "", "", {*admin::parse_bind_spec("irc"), *admin::parse_bind_spec("telegram")}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->wrote_implicit_main);
  const json doc = parsed(plan->text);
  EXPECT_EQ(doc["agents"]["list"][0], (json{{"id", "main"}, {"default", true}}));
  EXPECT_EQ(doc["agents"]["list"][1]["id"], "work");
  EXPECT_EQ(doc["bindings"].size(), 2u);
  EXPECT_NE(plan->text.find("// hi"), std::string::npos);
}

TEST(AgentsAdmin, CreateRefusals) {
  Scratch s;
  auto code = [&](const admin::CreateRequest& r, std::string_view text = kConfig) {
    auto plan = admin::plan_create(source(text, s.dir), r);
    return plan ? std::string("ok") : plan.error().code + ": " + plan.error().message;
  };
  EXPECT_EQ(code({"work", "", "", "", {}}).substr(0, 12), "AGENT_EXISTS");
  EXPECT_EQ(code({"main", "", "", "", {}}, "{}").substr(0, 12), "AGENT_EXISTS");  // the implicit one
  EXPECT_EQ(code({"Bad Id", "", "", "", {}}).substr(0, 10), "INVALID_ID");
  // The same workspace as another agent, inside it, or holding it.
  EXPECT_EQ(code({"x", "", "/srv/work", "", {}}).substr(0, 16), "WORKSPACE_IN_USE");
  EXPECT_EQ(code({"x", "", "/srv/work/sub", "", {}}).substr(0, 16), "WORKSPACE_IN_USE");
  EXPECT_EQ(code({"x", "", "/srv", "", {}}).substr(0, 16), "WORKSPACE_IN_USE");
  EXPECT_EQ(code({"x", "", "~/main-ws", "", {}}).substr(0, 16), "WORKSPACE_IN_USE");
  EXPECT_EQ(code({"x", "", "/srv/work-other", "", {}}), "ok");  // a prefix sibling is another folder
  // A route another agent holds.
  EXPECT_EQ(code({"x", "", "", "", {*admin::parse_bind_spec("telegram:OPS")}}).substr(0, 14), "BINDING_IN_USE");
  EXPECT_EQ(code({"x", "", "", "", {*admin::parse_bind_spec("irc:default")}}).substr(0, 14), "BINDING_IN_USE");
  // One route twice in the request.
  EXPECT_EQ(code({"x", "", "", "", {*admin::parse_bind_spec("webhook"), *admin::parse_bind_spec("webhook:default")}}).substr(0, 14),
            "DUPLICATE_BIND");
  EXPECT_EQ(code({"x", "", "", "", {*admin::parse_bind_spec("telegram:*")}}), "ok");
  EXPECT_EQ(code({"x", "", "", "", {}}, "{ agents: { list: {} } }").substr(0, 14), "CONFIG_INVALID");
}

TEST(AgentsAdmin, WorkspaceThroughASymlinkIsTheSameWorkspace) {
  Scratch s;
  fs::create_directories(s.dir / "real");
  fs::create_directory_symlink(s.dir / "real", s.dir / "link");
  const std::string text = "{ agents: { list: [ { id: \"main\", workspace: \"" + (s.dir / "real").string() + "\" } ] } }";
  Scratch state;  // (the workspaces are the user's folders, outside the state directory)
  auto plan = admin::plan_create(source(text, state.dir), {"x", "", (s.dir / "link" / "sub").string(), "", {}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, "WORKSPACE_IN_USE");
}

TEST(AgentsAdmin, PincersOwnFoldersSystemAndCredentialFoldersAreNeverAWorkspace) {
  Scratch s;  // the state directory
  const std::string home = "/home/u";
  auto problem = [&](const fs::path& ws) { return admin::workspace_location_problem(ws, s.dir, home).value_or("ok"); };
  // Inside the state directory only workspace and workspace-<id> (deleting such an agent would
  // otherwise move sessions, credentials or skills to the trash).
  EXPECT_EQ(problem(s.dir / "workspace"), "ok");
  EXPECT_EQ(problem(s.dir / "workspace-ops" / "sub"), "ok");
  // Each names the state directory (and Pincer's folder there when the workspace is deeper), not
  // the workspace twice.
  const std::string rule = " (in the state directory only " + (s.dir / "workspace").string() + " and " +
                           (s.dir / "workspace-<id>").string() + " folders may be workspaces)";
  for (const char* own : {"agents", "skills", "bundled-skills", "trash", "credentials", "x"}) {
    EXPECT_EQ(problem(s.dir / own),
              "workspace " + (s.dir / own).string() + " is inside Pincer's state directory " + s.dir.string() + rule);
  }
  EXPECT_EQ(problem(s.dir / "agents" / "main"), "workspace " + (s.dir / "agents" / "main").string() +
                                                     " is inside Pincer's folder " + (s.dir / "agents").string() +
                                                     " of its state directory " + s.dir.string() + rule);
  EXPECT_NE(problem(s.dir).find("is or holds Pincer's state directory"), std::string::npos);
  EXPECT_NE(problem(s.dir.parent_path()).find("is or holds Pincer's state directory"), std::string::npos);
  // Through a symlink too.
  Scratch other;
  fs::create_directories(s.dir / "agents");
  fs::create_directory_symlink(s.dir / "agents", other.dir / "alias");
  EXPECT_NE(problem(other.dir / "alias").find("inside Pincer's state directory " + s.dir.string()), std::string::npos)
      << problem(other.dir / "alias");
  EXPECT_EQ(problem(other.dir / "project"), "ok");
  // The whole home, system folders, the home's credential folders.
  EXPECT_NE(problem(home).find("whole home folder"), std::string::npos);
  EXPECT_NE(problem("/etc/x").find("not allowed"), std::string::npos);
  EXPECT_NE(problem("/").find("not allowed"), std::string::npos);
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/' && std::string(h) != "/") {
    EXPECT_NE(problem(fs::path(h) / ".ssh").find("not allowed"), std::string::npos);
  }
  // plan_create refuses it, naming the folder; the trash never moves such a folder.
  auto plan = admin::plan_create(source("{}", s.dir), {"x", "", (s.dir / "agents" / "main").string(), "", {}});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, "WORKSPACE_FORBIDDEN");
  EXPECT_NE(plan.error().message.find((s.dir / "agents").string()), std::string::npos) << plan.error().message;
  const std::string text = "{ agents: { list: [ { id: \"main\" }, { id: \"bad\", workspace: \"" + (s.dir / "agents").string() + "\" } ] } }";
  auto del = admin::plan_delete(source(text, s.dir), "bad");
  ASSERT_TRUE(del);
  const auto out = admin::move_agent_files_to_trash(*del, s.dir, 1'700'000'003'000);
  EXPECT_TRUE(out.workspace_retained);
  EXPECT_TRUE(fs::exists(s.dir / "agents"));
}

TEST(AgentsAdmin, UpdateSetsAndClears) {
  Scratch s;
  auto plan = admin::plan_update(source(kConfig, s.dir), {"work", std::string("Worker"), std::nullopt, json("a/b")});
  ASSERT_TRUE(plan) << plan.error().message;
  json doc = parsed(plan->text);
  EXPECT_EQ(doc["agents"]["list"][1], (json{{"id", "work"}, {"workspace", "/srv/work"}, {"name", "Worker"}, {"model", "a/b"}}));
  auto cleared = admin::plan_update(source(plan->text, s.dir), {"work", std::nullopt, std::nullopt, json(nullptr)});
  ASSERT_TRUE(cleared);
  EXPECT_FALSE(parsed(cleared->text)["agents"]["list"][1].contains("model"));
  EXPECT_NE(cleared->text.find("// the work agent"), std::string::npos);
  auto missing = admin::plan_update(source(kConfig, s.dir), {"nope", std::nullopt, std::nullopt, std::nullopt});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "NOT_FOUND");
  auto clash = admin::plan_update(source(kConfig, s.dir), {"work", std::nullopt, std::string("/home/u/main-ws/x"), std::nullopt});
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, "WORKSPACE_IN_USE");
}

TEST(AgentsAdmin, DeleteRemovesTheEntryAndItsBindings) {
  Scratch s;
  auto plan = admin::plan_delete(source(kConfig, s.dir), "work");
  ASSERT_TRUE(plan) << plan.error().message;
  const json doc = parsed(plan->text);
  EXPECT_EQ(doc["agents"]["list"], json::array({json{{"id", "main"}}}));
  EXPECT_EQ(doc["bindings"], json::array({json{{"agentId", "main"}, {"match", {{"channel", "irc"}}}}}));
  EXPECT_EQ(plan->removed_bindings.size(), 2u);
  EXPECT_NE(plan->text.find("// my config"), std::string::npos);
  EXPECT_NE(plan->text.find("// main's workspace"), std::string::npos);
  EXPECT_EQ(plan->text.find("// the work agent"), std::string::npos);  // its comment goes with it

  auto main = admin::plan_delete(source(kConfig, s.dir), "main");
  ASSERT_FALSE(main);
  EXPECT_EQ(main.error().code, "DEFAULT_AGENT");
  auto implicit = admin::plan_delete(source("{}", s.dir), "main");
  ASSERT_FALSE(implicit);
  EXPECT_EQ(implicit.error().code, "NOT_FOUND");
  auto unknown = admin::plan_delete(source(kConfig, s.dir), "ghost");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "NOT_FOUND");
}

TEST(AgentsAdmin, TrashMovesFilesButKeepsASharedWorkspace) {
  Scratch s;
  const fs::path ws = s.dir / "workspace-ops";
  fs::create_directories(ws);
  std::ofstream(ws / "AGENTS.md") << "x";
  fs::create_directories(s.dir / "agents" / "ops" / "sessions");
  const std::string text = "{ agents: { list: [ { id: \"main\" }, { id: \"ops\" } ] } }";
  auto plan = admin::plan_delete(source(text, s.dir), "ops");
  ASSERT_TRUE(plan);
  const auto out = admin::move_agent_files_to_trash(*plan, s.dir, 1'700'000'000'000);
  EXPECT_TRUE(out.failed.empty());
  ASSERT_EQ(out.removed.size(), 2u);
  EXPECT_FALSE(fs::exists(ws));
  EXPECT_FALSE(fs::exists(s.dir / "agents" / "ops"));
  EXPECT_TRUE(fs::exists(fs::path(out.removed[0].moved_to) / "AGENTS.md"));
  EXPECT_TRUE(fs::exists(fs::path(out.removed[1].moved_to) / "sessions"));

  // A workspace another agent uses (here: main's workspace holds it) stays.
  const std::string shared = "{ agents: { list: [ { id: \"main\", workspace: \"" + s.dir.string() + "/team\" }, { id: \"b\", workspace: \"" +
                             s.dir.string() + "/team/b\" } ] } }";
  fs::create_directories(s.dir / "team" / "b");
  auto p2 = admin::plan_delete(source(shared, s.dir), "b");
  ASSERT_TRUE(p2);
  const auto kept = admin::move_agent_files_to_trash(*p2, s.dir, 1'700'000'001'000);
  EXPECT_TRUE(kept.workspace_retained);
  EXPECT_EQ(kept.workspace_shared_with, std::vector<std::string>{"main"});
  EXPECT_TRUE(fs::exists(s.dir / "team" / "b"));
  ASSERT_EQ(kept.removed.size(), 1u);
  EXPECT_EQ(kept.removed[0].method, "missing");  // b never had sessions

  // A workspace outside the state directory is the user's own folder: it stays.
  Scratch elsewhere;
  fs::create_directories(elsewhere.dir / "project");
  const std::string own = "{ agents: { list: [ { id: \"main\" }, { id: \"p\", workspace: \"" + (elsewhere.dir / "project").string() + "\" } ] } }";
  auto p3 = admin::plan_delete(source(own, s.dir), "p");
  ASSERT_TRUE(p3);
  const auto mine = admin::move_agent_files_to_trash(*p3, s.dir, 1'700'000'002'000);
  EXPECT_TRUE(mine.workspace_retained);
  EXPECT_NE(mine.workspace_retained_reason.find("outside the state directory"), std::string::npos);
  EXPECT_TRUE(fs::exists(elsewhere.dir / "project"));
}

}  // namespace
}  // namespace pincer::workspace_roster_test
