// Hot reload (CF-2, CH-6, CH-7): which accounts a channels config holds, which changes need what,
// (the file watcher: config_watcher_test.cpp).
#include <fstream>

#include <gtest/gtest.h>

#include "channels/channel_accounts.h"
#include "core/event_loop.h"
#include "gateway/config_reload.h"

namespace pincer {
namespace {

using nlohmann::json;

std::vector<std::string> ids(const std::vector<channels::ChannelAccount>& accounts) {
  std::vector<std::string> out;
  for (const auto& a : accounts) out.push_back(a.channel + "/" + a.account_id);
  return out;
}

TEST(ChannelAccounts, WithoutAccountsTheChannelIsTheDefaultAccount) {
  auto list = channels::list_channel_accounts(json::parse(R"({"telegram":{"botToken":"A","dmPolicy":"open"}})"));
  ASSERT_EQ(ids(list), std::vector<std::string>{"telegram/default"});
  EXPECT_EQ(list[0].config_path, "channels.telegram");
  EXPECT_EQ(list[0].config["botToken"], "A");
}

TEST(ChannelAccounts, NamedAccountsInheritPoliciesButNotCredentials) {
  const json channels = json::parse(R"({"telegram":{"botToken":"A","dmPolicy":"open","allowFrom":["1"],
      "webhookPath":"/tg","accounts":{"alerts":{"botToken":"B","allowFrom":["2"]},"bare":{"dmPolicy":"disabled"}}}})");
  auto list = channels::list_channel_accounts(channels);
  ASSERT_EQ(ids(list), (std::vector<std::string>{"telegram/default", "telegram/alerts", "telegram/bare"}));
  const json& alerts = list[1].config;
  EXPECT_EQ(list[1].config_path, "channels.telegram.accounts.alerts");
  EXPECT_EQ(alerts["botToken"], "B");
  EXPECT_EQ(alerts["dmPolicy"], "open");                   // inherited
  EXPECT_EQ(alerts["allowFrom"], json::array({"2"}));      // overridden
  EXPECT_FALSE(alerts.contains("webhookPath"));            // an endpoint is never shared
  EXPECT_FALSE(alerts.contains("accounts"));
  EXPECT_FALSE(list[2].config.contains("botToken"));       // must give its own token
  EXPECT_EQ(list[2].config["dmPolicy"], "disabled");
  EXPECT_EQ(channels::channel_account_config(channels, "telegram", "alerts"), alerts);
  EXPECT_EQ(channels::channel_account_config(channels, "telegram", "default")["botToken"], "A");
}

TEST(ChannelAccounts, NoTopLevelCredentialsMeansNoDefaultAccountAndDisabledOnesAreSkipped) {
  auto list = channels::list_channel_accounts(json::parse(R"({
      "telegram":{"dmPolicy":"open","accounts":{"a":{"botToken":"A"},"b":{"botToken":"B","enabled":false}}},
      "irc":{"enabled":false,"host":"h","nick":"n"}})"));
  EXPECT_EQ(ids(list), std::vector<std::string>{"telegram/a"});
}

TEST(ChannelAccounts, DisabledAccountsAreListedForStatus) {
  // `channels status` lists them as "disabled" rather than leaving them out.
  const json channels = json::parse(R"({
      "telegram":{"dmPolicy":"open","accounts":{"a":{"botToken":"A"},"b":{"botToken":"B","enabled":false}}},
      "irc":{"enabled":false,"host":"h","nick":"n","accounts":{"two":{"host":"h2","nick":"m"}}},
      "matrix":{"homeserver":"https://m.example.org","accessToken":"t"}})");
  auto disabled = channels::list_disabled_channel_accounts(channels);
  EXPECT_EQ(ids(disabled), (std::vector<std::string>{"irc/default", "irc/two", "telegram/b"}));
  EXPECT_EQ(disabled[2].config_path, "channels.telegram.accounts.b");
  EXPECT_TRUE(channels::list_disabled_channel_accounts(json::parse(R"({"matrix":{"accessToken":"t"}})")).empty());
}

TEST(ConfigReload, ChangedPathsAndTheirKinds) {
  const json a = json::parse(R"({"gateway":{"port":1,"reload":{"mode":"hybrid"}},"channels":{"telegram":{"dmPolicy":"open"}},
      "bindings":[],"meta":{"x":1}})");
  json b = a;
  b["channels"]["telegram"]["dmPolicy"] = "pairing";
  b["channels"]["irc"] = {{"host", "h"}};
  b["meta"]["x"] = 2;
  b["gateway"]["reload"]["mode"] = "hot";
  auto plan = gateway::plan_reload(a, b);
  EXPECT_EQ(plan.changed, (std::vector<std::string>{"channels.telegram.dmPolicy", "channels.irc", "gateway.reload.mode", "meta.x"}));
  EXPECT_TRUE(plan.hot);
  EXPECT_TRUE(plan.restart_reasons.empty());  // gateway.reload and meta need nothing

  b["gateway"]["port"] = 2;
  b["bindings"] = json::array({{{"agentId", "work"}}});
  plan = gateway::plan_reload(a, b);
  EXPECT_EQ(plan.restart_reasons, std::vector<std::string>{"gateway.port"});
  EXPECT_EQ(gateway::change_kind("gateway.port"), gateway::ChangeKind::Restart);
  EXPECT_EQ(gateway::change_kind("logging.level"), gateway::ChangeKind::Restart);
  EXPECT_EQ(gateway::change_kind("agents.list"), gateway::ChangeKind::Hot);
  // memory.* is applied by MemoryService::reconfigure (memory_reload_test checks the index is freed).
  EXPECT_EQ(gateway::change_kind("memory.search.provider"), gateway::ChangeKind::Hot);
  EXPECT_EQ(gateway::change_kind("memory.backend"), gateway::ChangeKind::Hot);
  EXPECT_EQ(gateway::change_kind("channelsx"), gateway::ChangeKind::Restart);  // a prefix is a whole segment
  EXPECT_TRUE(gateway::plan_reload(a, a).changed.empty());
}

}  // namespace
}  // namespace pincer
