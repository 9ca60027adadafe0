// Concurrent writers of pincer.json (new-user pass: two `pincer config set` at the same time both
// printed "Set" and exited 0 while one edit was lost). The real binary, several processes started
// together on one PINCER_HOME; whatever order they run in, every edit must be in the file at the
// end and each process must report success only for an edit that is there.
#include <fstream>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace cli_config_concurrency_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

class CliConfigConcurrencyTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() const {
    return {{"PINCER_HOME", home_.path().string()},
            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
            {"PINCER_GATEWAY_TOKEN", "\x01"},
            {"PINCER_GATEWAY_PORT", "\x01"}};
  }
  std::unique_ptr<Process> start(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {pincer_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Process>(argv, env());
  }
  json effective_env() const {
    auto r = run_pincer({"config", "get", "env", "--json", "--show-secrets"}, env(), 20s);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out)["value"] : json::object();
  }
  TempDir home_;
};

// Each round starts kWriters `config set` runs at once, each adding its own key; the race lost
// one of two edits in 3 of 5 tries before the check and the write were done under a lock.
TEST_F(CliConfigConcurrencyTest, ConcurrentSetsAllLand) {
  constexpr int kWriters = 6;
  constexpr int kRounds = 3;
  auto created = run_pincer({"config", "set", "gateway.port", "18789"}, env(), 20s);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::unique_ptr<Process>> writers;
    for (int i = 0; i < kWriters; ++i) {
      const std::string key = "R" + std::to_string(round) + "_W" + std::to_string(i);
      writers.push_back(start({"config", "set", "env." + key, "value-" + key}));
    }
    for (int i = 0; i < kWriters; ++i) {
      auto code = writers[i]->wait(60s);
      ASSERT_TRUE(code.has_value()) << "writer " << i << " did not finish";
      EXPECT_EQ(*code, 0) << writers[i]->err();
      EXPECT_NE(writers[i]->out().find("Set env.R" + std::to_string(round) + "_W" + std::to_string(i)), std::string::npos)
          << writers[i]->out();
    }
    const json vars = effective_env();
    for (int r = 0; r <= round; ++r) {
      for (int i = 0; i < kWriters; ++i) {
        const std::string key = "R" + std::to_string(r) + "_W" + std::to_string(i);
        EXPECT_EQ(vars.value(key, ""), "value-" + key) << "lost edit " << key << " in round " << round << ": " << vars.dump();
      }
    }
  }
  // Writers that set and unset at once: every unset removes its key, every set keeps its own.
  std::vector<std::unique_ptr<Process>> mixed;
  for (int i = 0; i < kWriters; ++i) {
    const std::string key = "R0_W" + std::to_string(i);
    mixed.push_back(i % 2 == 0 ? start({"config", "unset", "env." + key}) : start({"config", "set", "env.M" + std::to_string(i), "m"}));
  }
  for (auto& p : mixed) {
    auto code = p->wait(60s);
    ASSERT_TRUE(code.has_value());
    EXPECT_EQ(*code, 0) << p->err();
  }
  const json vars = effective_env();
  for (int i = 0; i < kWriters; ++i) {
    if (i % 2 == 0) {
      EXPECT_FALSE(vars.contains("R0_W" + std::to_string(i))) << vars.dump();
    } else {
      EXPECT_EQ(vars.value("M" + std::to_string(i), ""), "m") << vars.dump();
      EXPECT_EQ(vars.value("R0_W" + std::to_string(i), ""), "value-R0_W" + std::to_string(i)) << vars.dump();
    }
  }
}

// Thirty writers of thirty different keys at once (a new user's script): each waits for the
// config lock before it reads the file, so none is refused ("try again") and every value lands —
// with retries after a conflict, 10 of 30 used to fail.
TEST_F(CliConfigConcurrencyTest, ThirtyConcurrentSetsOfDifferentKeysAllSucceed) {
  constexpr int kWriters = 30;
  auto created = run_pincer({"config", "set", "gateway.port", "18789"}, env(), 20s);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::vector<std::unique_ptr<Process>> writers;
  for (int i = 0; i < kWriters; ++i) {
    // Keys in several sections, so that the edits touch different parts of the file.
    const std::string n = std::to_string(i);
    const std::string key = i % 3 == 0 ? "env.K" + n
                            : i % 3 == 1 ? "models.providers.p" + n + ".baseUrl"
                                         : "session.identityLinks.p" + n;
    const std::string value = i % 3 == 0 ? "v" + n : i % 3 == 1 ? "http://127.0.0.1:" + std::to_string(9000 + i) : "['telegram:" + n + "']";
    writers.push_back(start({"config", "set", key, value}));
  }
  int failed = 0;
  for (int i = 0; i < kWriters; ++i) {
    auto code = writers[i]->wait(120s);
    ASSERT_TRUE(code.has_value()) << "writer " << i << " did not finish";
    if (*code != 0) ++failed;
    EXPECT_EQ(*code, 0) << "writer " << i << ": " << writers[i]->err();
  }
  EXPECT_EQ(failed, 0);
  auto r = run_pincer({"config", "get", "env", "--json", "--show-secrets"}, env(), 20s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json vars = json::parse(r.out)["value"];
  auto links = run_pincer({"config", "get", "session.identityLinks", "--json"}, env(), 20s);
  ASSERT_EQ(links.exit_code, 0) << links.err;
  const json linked = json::parse(links.out)["value"];
  for (int i = 0; i < kWriters; i += 3) EXPECT_EQ(vars.value("K" + std::to_string(i), ""), "v" + std::to_string(i)) << vars.dump();
  for (int i = 2; i < kWriters; i += 3) EXPECT_TRUE(linked.contains("p" + std::to_string(i))) << linked.dump();
  auto providers = run_pincer({"config", "get", "models.providers", "--json"}, env(), 20s);
  ASSERT_EQ(providers.exit_code, 0) << providers.err;
  const json served = json::parse(providers.out)["value"];
  for (int i = 1; i < kWriters; i += 3) EXPECT_TRUE(served.contains("p" + std::to_string(i))) << served.dump();
}

}  // namespace
}  // namespace cli_config_concurrency_test
}  // namespace pincer::test
