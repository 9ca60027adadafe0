// A new-user tester's finding: the local commands `skills list|info|check`, `tools explain` and
// `models auth list|remove|order` printed their errors as text on stderr even under --json, with
// nothing on stdout. Now, as every other --json command, the error is the one JSON value
// {"ok": false, "error": {"code", "message"}} on stdout, with the same exit code as the text form.
// The real binary with a temp PINCER_HOME (no gateway: these commands read the files).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace cli_json_errors_local_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

class CliJsonErrorsLocalTest : public ::testing::Test {
 protected:
  RunResult pincer(const std::vector<std::string>& args) const {
    return run_pincer(args, isolated_cli_env(home_.path()), 60s);
  }
  TempDir home_;
};

struct Case {
  std::vector<std::string> args;  ///< without --json
  int exit_code;
  std::string code, message;  ///< the JSON error's code and a part of its message
};

TEST_F(CliJsonErrorsLocalTest, BadInputIsOneJsonErrorOnStdout) {
  const std::vector<Case> cases = {
      {{"skills", "info", "no-such-skill"}, 1, "FAILED", "no skill named \"no-such-skill\""},
      {{"skills", "list", "--agent", "nope"}, 2, "INVALID_REQUEST", "unknown agent \"nope\""},
      {{"skills", "check", "--agent", "nope"}, 2, "INVALID_REQUEST", "unknown agent \"nope\""},
      {{"tools", "explain", "--agent", "nope"}, 2, "INVALID_REQUEST", "unknown agent \"nope\""},
      {{"models", "auth", "list", "--agent", "nope"}, 2, "INVALID_REQUEST", "no agent \"nope\""},
      {{"models", "auth", "remove", "openai:nope"}, 1, "FAILED", "openai:nope"},
      {{"models", "auth", "order", "--provider", "openai", "openai:nope"}, 2, "INVALID_REQUEST", "openai:nope"},
  };
  for (const auto& c : cases) {
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    auto args = c.args;
    args.push_back("--json");
    const auto r = pincer(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << shown << r.out << r.err;
    const json e = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(e.is_object()) << shown << "--json: stdout: " << r.out << " stderr: " << r.err;
    EXPECT_EQ(e["ok"], false) << shown << e.dump();
    EXPECT_EQ(e["error"]["code"], c.code) << shown << e.dump();
    EXPECT_NE(e["error"].value("message", "").find(c.message), std::string::npos) << shown << e.dump();
    EXPECT_EQ(r.err.find("pincer:"), std::string::npos) << shown << r.err;  // one JSON value, nothing beside it
    // Without --json: the same failure as a text line on stderr, nothing on stdout.
    const auto text = pincer(c.args);
    EXPECT_EQ(text.exit_code, c.exit_code) << shown << text.err;
    EXPECT_TRUE(text.out.empty()) << shown << text.out;
    EXPECT_NE(text.err.find("pincer: "), std::string::npos) << shown << text.err;
    EXPECT_NE(text.err.find(c.message), std::string::npos) << shown << text.err;
  }
}

}  // namespace
}  // namespace cli_json_errors_local_test
}  // namespace pincer::test
