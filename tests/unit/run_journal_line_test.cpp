// The run journal's `accepted` line (agent/run_journal.h) is written straight to text: it must be
// byte for byte the compact dump of the record {op, id, ts, source, key, request} it stands for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agent/run_journal.h"
#include "core/ids.h"

namespace pincer::agent {
namespace {

using nlohmann::json;

TEST(RunJournalLine, AcceptedLineIsTheCompactDumpOfItsRecord) {
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-journal-line-" + ids::uuid_v4());
  const auto file = dir / "journal.jsonl";
  const json request = {{"message", "h\u00e9llo \"quoted\"\nnext line"},
                        {"attachments", json::array({json{{"name", "a.png"}, {"size", 12}}})},
                        {"deliver", false},
                        {"timeoutMs", -5},
                        {"thinking", nullptr}};
  {
    RunJournal j(file);
    ASSERT_TRUE(j.open());
    ASSERT_TRUE(j.accept("chat.send", request, "idem-1"));
    ASSERT_TRUE(j.accept("agent", json::object()));
  }
  std::ifstream in(file);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    const json record = json::parse(line);
    if (record.value("op", "") != "accepted") continue;
    EXPECT_EQ(line, record.dump(-1, ' ', false, json::error_handler_t::replace));
    EXPECT_EQ(record.size(), 6u) << line;  // op, id, ts, source, key, request
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pincer::agent
