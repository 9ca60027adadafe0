// `pincer import openclaw` end to end (issue #6 §4): the real binary imports the hand-written
// OpenClaw home tests/fixtures/openclaw-home into a temp PINCER_HOME; the source must come out
// unchanged; a real gateway then serves the imported session (sessions.list, chat.history),
// continues it with the mock LLM, and knows the imported paired device.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "gateway_process.h"

namespace pincer::test {
namespace openclaw_import_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixture = fs::path(PINCER_SOURCE_DIR) / "tests" / "fixtures" / "openclaw-home";
const std::string kSessionId = "6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40";
const std::string kDeviceId = "5d41f5a7e3c2b1908f6e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0f9e";
constexpr const char* kToken = "import-test-token-0123456789";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every entry below `root` → the SHA-256 of its bytes ("dir" for directories), and its mode.
std::map<std::string, std::string> fingerprint(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    const std::string rel = e.path().lexically_relative(root).string();
    out[rel] = (e.is_directory() ? std::string("dir") : ids::sha256_hex(slurp(e.path()))) + " mode " +
               std::to_string(st.st_mode & 07777) + " mtime " + std::to_string(st.st_mtim.tv_sec) + "." +
               std::to_string(st.st_mtim.tv_nsec);
  }
  return out;
}

json json_of(const RunResult& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << r.err;
  return j;
}

class OpenClawImport : public ::testing::Test {
 protected:
  TempDir dir;
  fs::path home = dir.path() / "pincer";  // does not exist before the import
  std::map<std::string, std::string> env() const {
    return {{"PINCER_HOME", home.string()},           {"OPENCLAW_STATE_DIR", "\x01"},
            {"OPENCLAW_TEST_GATEWAY_TOKEN", "\x01"}, {"OPENCLAW_TEST_MOCK_URL", "\x01"},
            {"PINCER_GATEWAY_TOKEN", "\x01"},        {"PINCER_GATEWAY_URL", "\x01"}};
  }
  RunResult run_import(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"import", "openclaw", "--from", kFixture.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_pincer(args, env(), 60s);
  }
};

TEST_F(OpenClawImport, ImportsTheFixtureAndTheGatewayServesIt) {
  const auto before = fingerprint(kFixture);

  // --dry-run --json: the whole report, nothing written.
  auto dry = run_import({"--dry-run", "--json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  json report = json_of(dry);
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["dryRun"], true);
  EXPECT_EQ(report["written"], false);
  ASSERT_EQ(report["copied"].size(), 4u) << report.dump(2);
  EXPECT_EQ(report["copied"][1]["kind"], "sessions");
  EXPECT_EQ(report["copied"][1]["count"], 1);
  bool channels = false;
  for (const auto& s : report["config"]["skipped"]) channels = channels || s["path"] == "channels";
  EXPECT_TRUE(channels) << report["config"].dump(2);
  EXPECT_FALSE(fs::exists(home)) << "a dry run writes nothing";

  // The import.
  auto r = run_import();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Imported into " + home.string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mapped   models.providers.mock.baseUrl"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped  channels: not imported: set up channels again"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("copied   cron jobs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("schedules them at its next start"), std::string::npos) << r.out;
  const fs::path transcript = fs::path("agents/main/sessions") / (kSessionId + ".jsonl");
  const std::string original = slurp(kFixture / transcript);
  EXPECT_EQ(slurp(home / transcript), original);
  struct stat st {};
  ASSERT_EQ(::stat((home / transcript).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(home.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  // A second import refuses and changes nothing.
  const std::string config = slurp(home / "pincer.json");
  auto again = run_import();
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("pincer: import openclaw: already in the Pincer state dir: "), std::string::npos) << again.err;
  EXPECT_NE(again.err.find((home / "pincer.json").string()), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(home / "pincer.json"), config);

  EXPECT_EQ(fingerprint(kFixture), before) << "the OpenClaw home must not change";

  // The gateway runs on the imported state; the env references of pincer.json are set for it
  // (and for the CLI, which reads the token from the same file).
  MockLlm mock;
  const std::map<std::string, std::string> secrets = {{"OPENCLAW_TEST_GATEWAY_TOKEN", kToken},
                                                      {"OPENCLAW_TEST_MOCK_URL", mock.base_url()}};
  Gateway gateway(home, {}, secrets);
  auto cli_env = env();
  for (const auto& [k, v] : secrets) cli_env[k] = v;
  cli_env["PINCER_GATEWAY_PORT"] = std::to_string(gateway.port());
  auto pincer = [&](const std::vector<std::string>& args) { return run_pincer(args, cli_env, 60s); };

  auto list = pincer({"sessions", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json sessions = json_of(list)["sessions"];
  // The imported session, and maybe the imported cron job's own (its time passed while nothing ran:
  // the gateway runs it once at start, docs/automation.md).
  json main_session;
  for (const auto& s : sessions) {
    if (s["key"] == "agent:main:main") main_session = s;
    else EXPECT_EQ(s["key"], "agent:main:cron:3c9d7a52-8e41-4f0b-9b6a-2d5e1f7c8a90") << sessions.dump(2);
  }
  ASSERT_TRUE(main_session.is_object()) << sessions.dump(2);
  EXPECT_EQ(main_session["sessionId"], kSessionId);
  EXPECT_EQ(main_session["totalTokens"], 24);

  auto history = pincer({"sessions", "show", "main", "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  json messages = json_of(history)["messages"];
  ASSERT_EQ(messages.size(), 2u) << messages.dump(2);
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[0]["content"], "Remember that my favourite colour is teal.");
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["content"][0]["text"], "Noted: teal it is.");

  // The imported session goes on: the new turn is appended after the imported bytes.
  auto turn = pincer({"agent", "-m", "Which colour? ECHO:imported", "--session", "main"});
  ASSERT_EQ(turn.exit_code, 0) << turn.err;
  EXPECT_EQ(turn.out, "Hello from the mock LLM. [imported]\n");
  const std::string grown = slurp(home / transcript);
  EXPECT_EQ(grown.substr(0, original.size()), original);
  EXPECT_GT(grown.size(), original.size());
  auto longer = json_of(pincer({"sessions", "show", "main", "--json"}))["messages"];
  EXPECT_EQ(longer.size(), 4u) << longer.dump(2);

  auto devices = pincer({"gateway", "call", "device.pair.list"});
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  json paired = json_of(devices)["paired"];
  ASSERT_EQ(paired.size(), 1u) << paired.dump(2);
  EXPECT_EQ(paired[0]["deviceId"], kDeviceId);
  EXPECT_EQ(paired[0]["displayName"], "Molty's laptop");

  EXPECT_EQ(fingerprint(kFixture), before) << "the OpenClaw home must not change";
}

TEST_F(OpenClawImport, BadSourcesExitTwoNamingTheFile) {
  auto missing = run_pincer({"import", "openclaw", "--from", (dir.path() / "nope").string()}, env(), 30s);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find((dir.path() / "nope").string() + ": no such directory"), std::string::npos) << missing.err;

  dir.write("broken/openclaw.json", "// broken\n{\n  gateway: { port: 18789 \n  agents: {},\n}\n");
  auto broken = run_pincer({"import", "openclaw", "--from", (dir.path() / "broken").string(), "--json"}, env(), 30s);
  EXPECT_EQ(broken.exit_code, 2);
  const std::string file = (dir.path() / "broken" / "openclaw.json").string();
  EXPECT_NE(broken.err.find("pincer: import openclaw: " + file + ":4:3: "), std::string::npos) << broken.err;
  EXPECT_EQ(json_of(broken)["error"]["code"], "CONFIG_INVALID");
  EXPECT_FALSE(fs::exists(home));

  // OPENCLAW_STATE_DIR is the default source.
  auto e = env();
  e["OPENCLAW_STATE_DIR"] = (dir.path() / "from-env").string();
  auto from_env = run_pincer({"import", "openclaw", "--dry-run"}, e, 30s);
  EXPECT_EQ(from_env.exit_code, 2);
  EXPECT_NE(from_env.err.find((dir.path() / "from-env").string() + ": no such directory"), std::string::npos) << from_env.err;
}

}  // namespace
}  // namespace openclaw_import_test
}  // namespace pincer::test
