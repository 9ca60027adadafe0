// docs/cli.md's slash-command tables (the `pincer chat` section) list exactly the commands of
// agent/chat_commands.cpp, aliases included, and the channels' dock commands (`/dock_CHANNEL`,
// `/dock-CHANNEL`, channels/session_docks.h): a command added to the table and not to the docs (or
// a documented one that no longer exists) fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "agent/chat_commands.h"
#include "channels/session_docks.h"

namespace pincer {
namespace {

// The "## pincer chat" section of docs/cli.md, up to the next "## " heading.
std::string pincer_chat_section() {
  std::ifstream in(std::string(PINCER_SOURCE_DIR) + "/docs/cli.md");
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  const std::size_t start = text.find("\n## pincer chat\n");
  if (start == std::string::npos) return "";
  const std::size_t end = text.find("\n## ", start + 1);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(ChatCommandsDocs, CliMdListsEveryCommandAndNothingElse) {
  const std::string section = pincer_chat_section();
  ASSERT_FALSE(section.empty()) << "docs/cli.md has no \"## pincer chat\" section";
  // The first cell of each table row: "| `/new`, `/reset` | …" → {new, reset}.
  std::set<std::string> documented;
  std::istringstream lines(section);
  static const std::regex name_re("`/([a-z][a-z_-]*)");
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| `/")) continue;
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(cell.begin(), cell.end(), name_re), end; it != end; ++it) documented.insert((*it)[1]);
  }
  std::set<std::string> commands;
  for (const auto& c : agent::chat_commands()) {
    commands.insert(c.name);
    for (const auto& alias : c.aliases) commands.insert(alias);
  }
  for (const auto prefix : channels::kDockCommandPrefixes) commands.insert(std::string(prefix));  // + the channel
  for (const auto& name : commands) EXPECT_TRUE(documented.contains(name)) << "/" << name << " is not in docs/cli.md";
  for (const auto& name : documented) EXPECT_TRUE(commands.contains(name)) << "docs/cli.md documents /" << name << ", which does not exist";
}

}  // namespace
}  // namespace pincer
