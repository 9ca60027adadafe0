// Hints name the binary as the user invoked it (cli/invoked_command.h): a command they can paste.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/config_checks.h"
#include "cli/invoked_command.h"
#include "config_test_support.h"
#include "core/config.h"

namespace pincer {
namespace {

using ::testing::ElementsAre;
using config::config_test_support::kNoEnv;
using config::config_test_support::TempDir;

/// Sets the invoked name for one test and puts the previous one back.
class InvokedAs {
 public:
  explicit InvokedAs(std::string name) : saved_(cli::invoked_command()) { cli::invoked_command() = std::move(name); }
  ~InvokedAs() { cli::invoked_command() = saved_; }
  InvokedAs(const InvokedAs&) = delete;
  InvokedAs& operator=(const InvokedAs&) = delete;

 private:
  std::string saved_;
};

TEST(InvokedCommandHint, ByDefaultTheHintSaysPincer) {
  EXPECT_EQ(cli::invoked_command(), "pincer");
}

TEST(InvokedCommandHint, ConfigValidatesNoTokenNoteNamesTheBinaryByItsPath) {
  InvokedAs as("./build/pincer");
  TempDir home;
  const auto file = home.path() / "pincer.json";
  auto loaded = config::load(file, kNoEnv);
  ASSERT_TRUE(loaded.ok());
  cli::ConfigCheckOptions as_validate;
  as_validate.config_exists = false;
  const auto found = cli::check_config(loaded->effective, file, kNoEnv, as_validate);
  EXPECT_THAT(found.notes, ElementsAre("no gateway token yet: `./build/pincer gateway run` creates " + file.string() +
                                       " with a new random gateway.auth.token on its first start (or run "
                                       "`./build/pincer onboard`)"));
}

}  // namespace
}  // namespace pincer
