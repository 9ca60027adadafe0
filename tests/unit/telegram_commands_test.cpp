// The Telegram bot's command menu (channels/telegram/telegram_commands.h): what it offers and the
// Bot API's limits, as OpenClaw fits them.
#include <gtest/gtest.h>

#include "channels/telegram/telegram_commands.h"

namespace pincer::channels::telegram {
namespace {

std::size_t tg_test_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> tg_test_names(const nlohmann::json& menu) {
  std::vector<std::string> out;
  for (const auto& c : menu) out.push_back(c["command"]);
  return out;
}

TEST(TelegramCommandMenu, BuiltInCommandsThenSkillCommands) {
  const auto menu = telegram_command_menu({{"summarize", "summarize", "Summarize a text."},
                                           {"status", "status", "a skill whose word a built-in has"},
                                           {"bad-name", "bad-name", "not a Telegram command word"}});
  const auto names = tg_test_names(menu);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "new");  // /help order
  EXPECT_EQ(names.back(), "summarize");
  EXPECT_EQ(std::count(names.begin(), names.end(), "status"), 1);
  EXPECT_EQ(std::find(names.begin(), names.end(), "bad-name"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "quit"), names.end());  // terminal-only
  for (const auto& c : menu) {
    const std::string d = c["description"];
    EXPECT_TRUE(tg_test_points(d) >= 1 && tg_test_points(d) <= 256) << c.dump();
  }
}

TEST(TelegramCommandMenu, AHundredCommandsWithinTheTextBudget) {
  std::vector<skills::SkillCommand> many;
  for (int i = 0; i < 150; ++i) many.push_back({"skill_" + std::to_string(i), "s", std::string(300, 'x')});
  const auto menu = telegram_command_menu(many);
  EXPECT_EQ(menu.size(), 100u);
  std::size_t total = 0;
  for (const auto& c : menu) {
    const std::string command = c["command"], description = c["description"];
    total += tg_test_points(command) + tg_test_points(description);
    EXPECT_LE(tg_test_points(description), 256u);
  }
  EXPECT_LE(total, 5700u);
  // Shortened evenly, marked as cut.
  const std::string last = menu.back()["description"];
  EXPECT_EQ(last.substr(last.size() - 3), "\u2026");
  // A menu within the budget keeps its descriptions whole (a 300-character one is cut to 256).
  const auto one = telegram_command_menu({{"long_one", "long-one", std::string(300, 'y')}});
  EXPECT_EQ(tg_test_points(one.back()["description"]), 256u);
}

TEST(TelegramCommandMenu, WhatTelegramListsMatchesOnlyTheSameMenu) {
  const auto wanted = telegram_command_menu({});
  EXPECT_TRUE(telegram_menus_match(wanted, wanted));
  auto other = wanted;
  other[0]["description"] = "changed";
  EXPECT_FALSE(telegram_menus_match(other, wanted));
  EXPECT_FALSE(telegram_menus_match(nlohmann::json::array(), wanted));
  EXPECT_FALSE(telegram_menus_match(nlohmann::json(), wanted));
}

}  // namespace
}  // namespace pincer::channels::telegram
