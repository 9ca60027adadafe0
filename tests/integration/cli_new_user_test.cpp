// Findings of a new user's pass over the CLI (not a feature of its own): the explain commands
// describe what a run really gets, sandbox settings that would fail every run are refused by
// `config validate|set`, and `--thinking` takes every level `/think` takes. The real binary with a
// temp PINCER_HOME; no gateway is needed for any of it.
#include <fstream>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace cli_new_user_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kGateway = "gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } }";

class CliNewUserTest : public ::testing::Test {
 protected:
  RunResult pincer(const std::vector<std::string>& args) const {
    return run_pincer(args,
                      {{"PINCER_HOME", home_.path().string()},
                       {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
                       {"PINCER_GATEWAY_TOKEN", "\x01"},
                       {"PINCER_GATEWAY_URL", "\x01"},
                       {"PINCER_GATEWAY_PORT", "\x01"}},
                      60s);
  }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", std::string("{ ") + kGateway + ", " + members + " }\n");
  }
  /// `sandbox explain … --json` (exit 1 only says the backend cannot start on this machine).
  json explain(const std::vector<std::string>& flags) const {
    std::vector<std::string> args = {"sandbox", "explain", "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    auto r = pincer(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    return r.exit_code == 0 || r.exit_code == 1 ? json::parse(r.out) : json::object();
  }
  TempDir home_;
};

// `--session main` is the agent's main session, as `pincer agent --session main` runs it: with
// mode non-main it is on the host (explain used to compare "main" with "agent:main:main").
TEST_F(CliNewUserTest, SandboxExplainResolvesSessionKeysLikeARun) {
  write_config("agents: { defaults: { sandbox: { mode: 'non-main' } }, list: [ { id: 'main' }, { id: 'work' } ] }");
  const json main = explain({"--session", "main"});
  EXPECT_EQ(main["session"], "agent:main:main");
  EXPECT_EQ(main["sandboxed"], false) << main.dump();
  const json dflt = explain({});
  EXPECT_EQ(dflt["session"], "agent:main:main");
  EXPECT_EQ(dflt["sandboxed"], false);
  const json upper = explain({"--session", "MAIN"});
  EXPECT_EQ(upper["session"], "agent:main:main");
  EXPECT_EQ(upper["sandboxed"], false);
  const json other = explain({"--session", "side"});
  EXPECT_EQ(other["session"], "agent:main:side");
  EXPECT_EQ(other["sandboxed"], true);
  const json work = explain({"--agent", "work", "--session", "main"});
  EXPECT_EQ(work["agent"], "work");
  EXPECT_EQ(work["session"], "agent:work:main");
  EXPECT_EQ(work["sandboxed"], false);
  const json by_key = explain({"--session", "agent:work:main"});
  EXPECT_EQ(by_key["agent"], "work");
  EXPECT_EQ(by_key["sandboxed"], false);

  auto control = pincer({"sandbox", "explain", "--session", "a\nb"});
  EXPECT_EQ(control.exit_code, 2);
  EXPECT_NE(control.err.find("--session:"), std::string::npos) << control.err;
  EXPECT_EQ(control.out, "");
  auto unknown = pincer({"sandbox", "explain", "--session", "agent:ghost:main"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown agent \"ghost\""), std::string::npos) << unknown.err;
}

TEST_F(CliNewUserTest, SandboxSettingsThatFailEveryRunAreRefused) {
  write_config("agents: { defaults: { sandbox: { mode: 'all', binds: ['relative/dir'] } } }");
  auto relative = pincer({"config", "validate", "--json"});
  EXPECT_EQ(relative.exit_code, 2) << relative.out;
  EXPECT_NE(relative.out.find("agents.defaults.sandbox.binds[0]: \\\"relative/dir\\\" is not an absolute host path"),
            std::string::npos)
      << relative.out;

  write_config("agents: { defaults: { sandbox: { mode: 'all' } } }");
  auto bad_mode = pincer({"config", "set", "agents.defaults.sandbox.binds", "['/tmp:rx']"});
  EXPECT_EQ(bad_mode.exit_code, 2);
  EXPECT_NE(bad_mode.err.find("binds[0]: \"/tmp:rx\": \"rx\" is neither an absolute inside path nor a mode"), std::string::npos)
      << bad_mode.err;
  // Beside the state directory, not in it (a bind inside it is refused before its existence is checked).
  const std::string missing_dir = home_.path().string() + "-no-such-dir";
  auto missing = pincer({"config", "set", "agents.defaults.sandbox.binds", "['" + missing_dir + ":/data:ro']"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("agents.defaults.sandbox.binds[0]: host path \"" + missing_dir + "\" does not exist"),
            std::string::npos)
      << missing.err;
  auto command = pincer({"config", "set", "agents.defaults.sandbox.bwrap.command", "/nonexistent/bwrap"});
  EXPECT_EQ(command.exit_code, 2);
  EXPECT_NE(command.err.find("bwrap.command: sandbox backend bwrap: \"/nonexistent/bwrap\" is not an executable file"),
            std::string::npos)
      << command.err;
  // The same settings with the sandbox off cannot fail a run.
  write_config("agents: { defaults: { sandbox: { mode: 'off', bwrap: { command: '/nonexistent/bwrap' } } } }");
  auto off = pincer({"config", "validate"});
  EXPECT_EQ(off.exit_code, 0) << off.err;

  // The host's root, its system directories and the sandbox's own mounts are never bound (as OpenClaw).
  write_config("agents: { defaults: { sandbox: { mode: 'all', binds: ['/:/'] } } }");
  auto root = pincer({"config", "validate", "--json"});
  EXPECT_EQ(root.exit_code, 2) << root.out;
  EXPECT_NE(root.out.find("binds[0]: \\\"/:/\\\" binds the host's whole file system"), std::string::npos) << root.out;
  write_config("agents: { defaults: { sandbox: { mode: 'all' } } }");
  // (Not /tmp: it holds this test's state directory, which is refused before the inside path.)
  auto proc = pincer({"config", "set", "agents.defaults.sandbox.binds", "['/usr/share:/proc']"});
  EXPECT_EQ(proc.exit_code, 2);
  EXPECT_NE(proc.err.find("binds[0]: \"/usr/share:/proc\": the inside path /proc would hide the sandbox's own /proc"),
            std::string::npos)
      << proc.err;
  // A missing host path is refused with the sandbox off too: turning it on must not fail every run.
  write_config("agents: { defaults: { sandbox: { mode: 'off', binds: ['" + missing_dir + "'] } } }");
  auto off_missing = pincer({"config", "validate"});
  EXPECT_EQ(off_missing.exit_code, 2);
  EXPECT_NE(off_missing.err.find("host path \"" + missing_dir + "\" does not exist"), std::string::npos) << off_missing.err;
}

TEST_F(CliNewUserTest, BindingPincersOwnStateDirectoryIsRefused) {
  // Its credentials, device tokens and pincer.json must stay out of every sandbox; so must /tmp,
  // which holds this test's state directory.
  const std::string state = home_.path().string();
  write_config("agents: { defaults: { sandbox: { mode: 'all' } } }");
  for (const std::string& spec : {state + ":/state:ro", state + "/agents:/a", std::string("/tmp:/t")}) {
    auto r = pincer({"config", "set", "agents.defaults.sandbox.binds", "['" + spec + "']"});
    EXPECT_EQ(r.exit_code, 2) << spec;
    EXPECT_NE(r.err.find("agents.defaults.sandbox.binds[0]: \"" + spec + "\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Pincer's state directory"), std::string::npos) << r.err;
  }
  write_config("agents: { defaults: { sandbox: { mode: 'off', binds: ['" + state + "'] } } }");
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_NE(validate.err.find("binds Pincer's state directory " + state), std::string::npos) << validate.err;
  // The agent's workspace beneath the state directory is the normal case.
  home_.write("workspace/notes.md", "notes");
  write_config("agents: { defaults: { sandbox: { mode: 'off' } } }");
  auto ws = pincer({"config", "set", "agents.defaults.sandbox.binds", "['" + state + "/workspace:/ws:ro']"});
  EXPECT_EQ(ws.exit_code, 0) << ws.err;
}

TEST_F(CliNewUserTest, ToolsExplainLeavesOutTheMemoryToolsWhenMemoryIsOff) {
  write_config("memory: { backend: 'none' }");
  auto r = pincer({"tools", "explain", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int memory_tools = 0;
  const json explained = json::parse(r.out);  // kept: a range-for over a temporary's member dangles
  for (const auto& row : explained["tools"]) {
    if (row["tool"] != "memory_search" && row["tool"] != "memory_get") continue;
    ++memory_tools;
    EXPECT_EQ(row["allowed"], false) << row.dump();
    EXPECT_EQ(row["layer"], "memory") << row.dump();
    EXPECT_EQ(row["reason"], "memory.backend is \"none\"") << row.dump();
  }
  EXPECT_EQ(memory_tools, 2) << r.out;
  write_config("memory: { search: { enabled: false } }");
  auto text = pincer({"tools", "explain"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("memory_search"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("removed by memory: memory.search.enabled is false"), std::string::npos) << text.out;
  write_config("memory: { backend: 'builtin' }");
  auto on = pincer({"tools", "explain", "--json"});
  const json explained_on = json::parse(on.out);
  for (const auto& row : explained_on["tools"]) {
    if (row["tool"] == "memory_search") {
      EXPECT_EQ(row["allowed"], true) << row.dump();
    }
  }
}

// `--thinking xhigh` reaches the run (here: no gateway answers, so the flag itself was accepted).
TEST_F(CliNewUserTest, ThinkingFlagTakesEveryLevelOfTheThinkCommand) {
  home_.write("pincer.json", std::string("{ gateway: { port: 9, auth: { token: 'a-gateway-token-0123456789abcdef' } } }\n"));
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"agent", "-m", "hi"}, std::vector<std::string>{"chat"}}) {
    auto args = cmd;
    args.insert(args.end(), {"--thinking", "xhigh"});
    auto ok = pincer(args);
    EXPECT_NE(ok.exit_code, 0);
    EXPECT_EQ(ok.err.find("thinking"), std::string::npos) << cmd[0] << ": " << ok.err;
    args.back() = "extreme";
    auto bad = pincer(args);
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("\"extreme\" is not a thinking level (off|minimal|low|medium|high|xhigh)"), std::string::npos)
        << cmd[0] << ": " << bad.err;
  }
}

TEST_F(CliNewUserTest, ControlUiRootAndBasePathAreChecked) {
  home_.write("ui/readme.txt", "not a built UI");
  const std::string root = (home_.path() / "ui").string();
  auto no_index = pincer({"config", "set", "gateway.controlUi.root", root});
  EXPECT_EQ(no_index.exit_code, 2);
  EXPECT_NE(no_index.err.find("gateway.controlUi.root: " + root + " has no index.html"), std::string::npos) << no_index.err;
  for (const auto& [base, why] : std::vector<std::pair<std::string, std::string>>{
           {"/../x", "the segment \"..\" is not allowed"},
           {"/a b", "(found a space)"},
           {"/a//b", "has an empty segment"},
           {"/a?b", "(found \"?\")"}}) {
    auto r = pincer({"config", "set", "gateway.controlUi.basePath", base});
    EXPECT_EQ(r.exit_code, 2) << base;
    EXPECT_NE(r.err.find("gateway.controlUi.basePath: \"" + base + "\": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }
  home_.write("ui/index.html", "<!doctype html>");
  auto fine = pincer({"config", "set", "gateway.controlUi.root", root});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  auto base = pincer({"config", "set", "gateway.controlUi.basePath", "/openclaw-ui/v1.2"});
  EXPECT_EQ(base.exit_code, 0) << base.err;
  // A file edited by hand is reported by validate the same way.
  home_.write("pincer.json", "{ gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' }, controlUi: { basePath: '/../x' } } }\n");
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_NE(validate.err.find("gateway.controlUi.basePath: \"/../x\": the segment \"..\" is not allowed"), std::string::npos)
      << validate.err;
}

TEST_F(CliNewUserTest, MemoryCommandsCheckTheirInputAndTheStateDir) {
  write_config("memory: { search: { extraPaths: ['notes-that-are-not-there'] } }");
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  EXPECT_NE(validate.err.find("memory.search.extraPaths: " + (home_.path() / "workspace" / "notes-that-are-not-there").string() +
                              " (agent \"main\") does not exist"),
            std::string::npos)
      << validate.err;
  auto score = pincer({"memory", "search", "x", "--min-score", "abc"});
  EXPECT_NE(score.exit_code, 0);
  EXPECT_NE(score.err.find("\"abc\" is not a number (a score from 0 to 1)"), std::string::npos) << score.err;
  auto range = pincer({"memory", "search", "x", "--min-score", "1.5"});
  EXPECT_NE(range.err.find("\"1.5\" is not between 0 and 1"), std::string::npos) << range.err;

  const auto missing = home_.path() / "no-such-home";
  auto status = run_pincer({"memory", "status"}, {{"PINCER_HOME", missing.string()}}, 60s);
  EXPECT_NE(status.exit_code, 0);
  EXPECT_NE(status.err.find("state directory " + missing.string() + " does not exist"), std::string::npos) << status.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// `config set` stores what the schema means: an integer key gets an integer, a one-line setting
// no newline; `tools explain --session` takes only a session key.
TEST_F(CliNewUserTest, ConfigSetStoresIntegersAndRefusesControlCharacters) {
  write_config("meta: {}");
  auto port = pincer({"config", "set", "gateway.port", "1e3"});
  ASSERT_EQ(port.exit_code, 0) << port.err;
  std::ifstream in(home_.path() / "pincer.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("port: 1000"), std::string::npos) << text;
  EXPECT_EQ(text.find("1000.0"), std::string::npos) << text;
  auto fraction = pincer({"config", "set", "gateway.port", "1000.5"});
  EXPECT_EQ(fraction.exit_code, 2);
  EXPECT_NE(fraction.err.find("gateway.port: expected integer 1..65535"), std::string::npos) << fraction.err;

  auto token = pincer({"config", "set", "gateway.auth.token", "abc\ndef-0123456789abcdef0123"});
  EXPECT_EQ(token.exit_code, 2);
  EXPECT_NE(token.err.find("gateway.auth.token: expected string without control characters"), std::string::npos) << token.err;
  auto workspace = pincer({"config", "set", "agents.defaults.workspace", "/tmp/ws\tx"});
  EXPECT_EQ(workspace.exit_code, 2);
  EXPECT_NE(workspace.err.find("agents.defaults.workspace: expected string without control characters"), std::string::npos)
      << workspace.err;
  auto zone = pincer({"config", "set", "agents.defaults.userTimezone", "Mars/Base"});
  EXPECT_EQ(zone.exit_code, 2);
  EXPECT_NE(zone.err.find("agents.defaults.userTimezone: \"Mars/Base\" is not a time zone"), std::string::npos) << zone.err;

  auto explain = pincer({"tools", "explain", "--session", "a\nb"});
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_NE(explain.err.find("--session:"), std::string::npos) << explain.err;
  EXPECT_EQ(explain.out, "");
}

// `gateway run` checks what `config validate` checks, and refuses to start with the errors.
TEST_F(CliNewUserTest, GatewayRunRefusesAConfigThatValidateRejects) {
  write_config("agents: { defaults: { userTimezone: 'Mars/Base', sandbox: { binds: ['/proc:/host-proc'] } } }");
  auto r = run_pincer({"gateway", "run", "--port", "0"},
                      {{"PINCER_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()}}, 60s);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("agents.defaults.userTimezone: \"Mars/Base\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("agents.defaults.sandbox.binds[0]: \"/proc:/host-proc\" binds /proc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not start with an invalid configuration"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
}

// A running gateway rejects an edit that `config validate` rejects (here a hot change: agents.*),
// keeps its config and says why; the same file fixed is applied.
TEST_F(CliNewUserTest, AReloadIsRejectedForWhatValidateRejects) {
  write_config("meta: {}");
  Gateway gateway(home_.path());
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()},
                                                  {"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}};
  write_config("agents: { defaults: { userTimezone: 'Mars/Base' } }");
  json status;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = run_pincer({"status", "--json"}, env, 10s);
    status = json::parse(r.out, nullptr, false);
    if (status.is_object() && status["config"]["lastRejectedReload"].is_object()) break;
    std::this_thread::sleep_for(100ms);  // polling a condition, with a deadline
  }
  ASSERT_TRUE(status.is_object() && status["config"]["lastRejectedReload"].is_object()) << status.dump();
  EXPECT_NE(status["config"]["lastRejectedReload"]["reason"].get<std::string>().find(
                "agents.defaults.userTimezone: \"Mars/Base\" is not a time zone"),
            std::string::npos)
      << status.dump();
  EXPECT_EQ(status["config"]["matchesFile"], false) << status.dump();
}

}  // namespace
}  // namespace cli_new_user_test
}  // namespace pincer::test
