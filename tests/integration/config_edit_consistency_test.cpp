// New-user findings about the config checks and the CLI's words, with the real binary and gateway:
//   * config set / unset write a change that adds no error to a file that had one already (an
//     unrelated bad mcp.servers.x.url), saying the old problem is the file's, not the change's; a
//     change that adds an error is still refused, naming it;
//   * a model-reference warning names the path where the reference is written (an inherited
//     fallback: agents.defaults.model.fallbacks[N], with the agents that use it);
//   * the gateway's reload log names an $include'd file for a problem in it, as validate does;
//   * config unset of a provider only a fallback names succeeds with that fallback's warning;
//   * wording and exit codes: cron add --at -5m, a missing VALUE, an empty config path, agent
//     --agent with an unknown agent (exit 2 as chat), --json for the checks made before parsing.
// Every wait is for an observable condition with a generous deadline.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace config_edit_consistency_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kEditConsistencyToken = "edit-consistency-token-0123456789";
const std::string kEditConsistencyProviders =
    "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' } ] },\n"
    "                       other: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'x' } ] } } }";

std::string edit_consistency_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ConfigEditConsistency : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(int port = 0) const {
    return isolated_cli_env(home_.path(), port == 0 ? std::map<std::string, std::string>{}
                                                    : std::map<std::string, std::string>{
                                                          {"PINCER_GATEWAY_URL", "ws://127.0.0.1:" + std::to_string(port)},
                                                          {"PINCER_GATEWAY_TOKEN", kEditConsistencyToken}});
  }
  RunResult pincer(const std::vector<std::string>& args, int port = 0) const { return run_pincer(args, env(port), 60s); }
  std::filesystem::path config() const { return home_.path() / "pincer.json"; }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kEditConsistencyToken + "' } },\n  " +
                                   kEditConsistencyProviders + (members.empty() ? "" : ",\n  " + members) + " }\n");
  }
  TempDir home_;
};

// Defect 1: a problem the file had before a set or unset does not block it; it is said as the file's.
TEST_F(ConfigEditConsistency, AnEditThatAddsNoErrorIsWrittenAndOldProblemsAreSaid) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } },\n  mcp: { servers: { x: { url: 'ftp:/bad' } } }");
  const std::string file = config().string();
  auto validate = pincer({"config", "validate"});
  ASSERT_EQ(validate.exit_code, 2) << validate.err;
  ASSERT_NE(validate.err.find(file + ": mcp.servers.x.url"), std::string::npos) << validate.err;

  auto set = pincer({"config", "set", "gateway.port", "18790"});
  EXPECT_EQ(set.exit_code, 0) << set.out << set.err;
  EXPECT_NE(set.out.find("Set gateway.port = 18790"), std::string::npos) << set.out;
  EXPECT_NE(set.err.find("pincer: warning: " + file + ": mcp.servers.x.url"), std::string::npos) << set.err;
  EXPECT_NE(set.err.find("already in " + file + " before this change"), std::string::npos) << set.err;
  EXPECT_NE(edit_consistency_text(config()).find("18790"), std::string::npos);

  // --json: the same warning in the summary.
  auto json_set = pincer({"config", "set", "gateway.port", "18791", "--json"});
  ASSERT_EQ(json_set.exit_code, 0) << json_set.out << json_set.err;
  const json summary = json::parse(json_set.out);
  ASSERT_TRUE(summary.contains("warnings")) << json_set.out;
  EXPECT_NE(summary["warnings"][0].get<std::string>().find("mcp.servers.x.url"), std::string::npos) << json_set.out;

  // Unset too.
  auto unset = pincer({"config", "unset", "gateway.port"});
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_NE(unset.err.find("already in " + file + " before this change"), std::string::npos) << unset.err;

  // A change that adds an error is refused, naming that error only; the file stays.
  const std::string before = edit_consistency_text(config());
  auto bad = pincer({"config", "set", "gateway.bind", "everywhere"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("not written, the result would be invalid:\n" + file + ": gateway.bind: expected one of"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.err.find("mcp.servers.x.url"), std::string::npos) << bad.err;
  EXPECT_EQ(edit_consistency_text(config()), before);
}

// Defect 2: an inherited fallback is named where it is written, with the agents that use it.
TEST_F(ConfigEditConsistency, AFallbackWarningNamesWhereTheFallbackIsWritten) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1', fallbacks: ['mock/nope', 'zzz/y'] } },\n"
               "    list: [ { id: 'main' }, { id: 'a', model: { primary: 'mock/mock-1' } }, { id: 'b', model: 'mock/mock-1' },\n"
               "            { id: 'c', model: { primary: 'mock/mock-1', fallbacks: [' ', 'mock/gone'] } } ] }");
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("agents.defaults.model.fallbacks[0]: \"mock/nope\" (agents \"main\", \"a\", \"b\"): unknown model"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("agents.defaults.model.fallbacks[1]: \"zzz/y\" names the provider \"zzz\""), std::string::npos) << r.err;
  // Its own list, at its index in the file (the blank entry is skipped by runs, not by the path).
  EXPECT_NE(r.err.find("agents.list[3].model.fallbacks[1]: \"mock/gone\" (agent \"c\")"), std::string::npos) << r.err;
  // Nothing names a path that is not in the file.
  for (const std::string absent : {"agents.list[1].model.fallbacks", "agents.list[2].model.fallbacks",
                                   "agents.list[0].model", "agents.list[3].model.fallbacks[0]"}) {
    EXPECT_EQ(r.err.find(absent), std::string::npos) << absent << "\n" << r.err;
  }
}

// Defect 3: the reload log names the included file a rejected problem is in.
TEST_F(ConfigEditConsistency, AReloadRejectionNamesTheIncludedFile) {
  home_.write("agents.json5", "{\n  defaults: { model: { primary: 'mock/mock-1' } },\n}\n");
  write_config("agents: { $include: 'agents.json5' }");
  Gateway gateway(home_.path(), {}, {{"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}});
  const std::size_t from = gateway.process().err().size();
  home_.write("agents.json5", "{\n  defaults: { model: { primary: 'mock/mock-1' } },\n  list: [ { id: 'a', bogus: 1 } ],\n}\n");
  write_config("agents: { $include: 'agents.json5' }");  // the watched file: written again
  const std::string agents_file = (home_.path() / "agents.json5").string();
  EXPECT_TRUE(gateway.wait_for_stderr(agents_file + ":3: list[0].bogus: unknown key", from)) << gateway.process().err();
  EXPECT_EQ(gateway.process().err().find(config().string() + ": agents.list[0].bogus", from), std::string::npos)
      << gateway.process().err();
}

// Defect 4: a provider only a fallback names can go (that fallback is skipped: a warning); one a
// primary model names cannot.
TEST_F(ConfigEditConsistency, UnsetOfAProviderOnlyAFallbackNamesSucceedsWithAWarning) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1', fallbacks: ['other/x'] } } }");
  auto r = pincer({"config", "unset", "models.providers.other"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Removed models.providers.other"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: agents.defaults.model.fallbacks[0]: \"other/x\" names the provider \"other\", which is not "
                       "configured"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("runs skip this fallback"), std::string::npos) << r.err;
  EXPECT_EQ(edit_consistency_text(config()).find("other: {"), std::string::npos);
  EXPECT_EQ(pincer({"config", "validate"}).exit_code, 0);

  auto primary = pincer({"config", "unset", "models.providers.mock"});
  EXPECT_EQ(primary.exit_code, 2) << primary.err;
  EXPECT_NE(primary.err.find("agents.defaults.model.primary: \"mock/mock-1\""), std::string::npos) << primary.err;
}

// Defect 5: words and exit codes.
TEST_F(ConfigEditConsistency, MistakesAreSaidInTheirOwnWords) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } }");
  auto at = pincer({"cron", "add", "--at", "-5m", "--system-event", "x"});
  EXPECT_EQ(at.exit_code, 2) << at.err;
  EXPECT_NE(at.err.find("--at '-5m': a negative duration is a time already past; expected an ISO 8601 time"), std::string::npos)
      << at.err;
  EXPECT_NE(at.err.find("or a duration from now (20m"), std::string::npos) << at.err;
  auto garbage = pincer({"cron", "add", "--at", "tomorrow", "--system-event", "x"});
  EXPECT_EQ(garbage.exit_code, 2) << garbage.err;
  EXPECT_NE(garbage.err.find("--at 'tomorrow': expected an ISO 8601 time"), std::string::npos) << garbage.err;

  auto missing = pincer({"config", "set", "gateway.port"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err.rfind("pincer: missing argument VALUE of pincer config set\nUsage: pincer config set", 0), 0u)
      << missing.err;
  auto missing_json = pincer({"config", "set", "gateway.port", "--json"});
  EXPECT_EQ(missing_json.exit_code, 2);
  const json error = json::parse(missing_json.out)["error"];
  EXPECT_EQ(error["code"], "INVALID_REQUEST");
  EXPECT_EQ(error["message"].get<std::string>().rfind("missing argument VALUE of pincer config set (Usage: pincer config set", 0), 0u)
      << missing_json.out;

  auto empty = pincer({"config", "get", ""});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err.rfind("pincer: config get: the config path is empty", 0), 0u) << empty.err;

  // Checked before the command line is parsed, and still JSON under --json.
  auto unknown = pincer({"bogus", "--json"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(json::parse(unknown.out)["error"]["message"].get<std::string>().rfind("unknown command \"bogus\"", 0), 0u)
      << unknown.out;
  EXPECT_EQ(unknown.err, "");
  auto bytes = pincer({"config", "get", "gateway.p\xe9rt", "--json"});
  EXPECT_EQ(bytes.exit_code, 2);
  EXPECT_NE(json::parse(bytes.out)["error"]["message"].get<std::string>().find("arguments must be UTF-8 text"),
            std::string::npos)
      << bytes.out;
  EXPECT_EQ(bytes.err, "");
}

// Defect 5: an agent the gateway does not have is an invalid argument for `agent` as for `chat`.
TEST_F(ConfigEditConsistency, AgentAndChatExitAlikeForAnUnknownAgent) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } }, list: [ { id: 'main' } ] }");
  Gateway gateway(home_.path(), {}, {{"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}});
  auto chat = pincer({"chat", "--agent", "nope"}, gateway.port());
  EXPECT_EQ(chat.exit_code, 2) << chat.err;
  auto agent = pincer({"agent", "-m", "hi", "--agent", "nope"}, gateway.port());
  EXPECT_EQ(agent.exit_code, 2) << agent.out << agent.err;
  EXPECT_NE(agent.err.find("unknown agent \"nope\""), std::string::npos) << agent.err;
  auto agent_json = pincer({"agent", "-m", "hi", "--agent", "nope", "--json"}, gateway.port());
  EXPECT_EQ(agent_json.exit_code, 2) << agent_json.out << agent_json.err;
  EXPECT_EQ(json::parse(agent_json.out)["error"]["code"], "INVALID_REQUEST") << agent_json.out;
}

}  // namespace
}  // namespace config_edit_consistency_test
}  // namespace pincer::test
