// The run journal (agent/run_journal.h, SS-6): what survives a restart, compaction, torn lines,
// and the serialised forms its sources keep in it.
#include "agent/run_journal.h"

#include <gtest/gtest.h>

#include <fstream>

#include "agent/agent_service.h"
#include "agent/agent_service_impl.h"
#include "channels/inbound_journal.h"
#include "core/ids.h"
#include "test_helpers.h"

namespace pincer::agent {
namespace {

using nlohmann::json;

class RunJournalTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-journal-" + ids::uuid_v4());
  std::filesystem::path file = dir / "runs" / "journal.jsonl";
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(RunJournalTest, UnansweredEntriesSurviveARestartInOrderWithTheirSteps) {
  std::string a, b, c;
  {
    RunJournal j(file);
    ASSERT_TRUE(j.open());
    a = *j.accept("chat.send", json{{"message", "first"}});
    b = *j.accept("channel", json{{"message", "second"}}, "telegram|default|1|m2");
    c = *j.accept("agent", json{{"message", "third"}});
    ASSERT_TRUE(j.started(a, "run-a"));
    ASSERT_TRUE(j.note(b, json{{"preview", "77"}}));
    ASSERT_TRUE(j.answered(c, "end"));
    EXPECT_TRUE(j.has_message("telegram|default|1|m2"));
    EXPECT_EQ(j.unfinished(), 2u);
  }  // no close step: as after a kill -9
  RunJournal j(file);
  auto left = j.open();
  ASSERT_TRUE(left);
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].id, a);
  EXPECT_EQ((*left)[0].source, "chat.send");
  EXPECT_EQ((*left)[0].run_id, "run-a");
  EXPECT_EQ((*left)[0].request["message"], "first");
  EXPECT_EQ((*left)[1].id, b);
  EXPECT_EQ((*left)[1].notes["preview"], "77");
  EXPECT_EQ((*left)[1].dedupe_key, "telegram|default|1|m2");
  EXPECT_TRUE(j.has_message("telegram|default|1|m2"));
  // The answered entry is gone from the compacted file too.
  EXPECT_EQ(test_helpers::slurp(file).find("third"), std::string::npos);
}

TEST_F(RunJournalTest, ResumesAreCountedAcrossRestarts) {
  std::string id;
  {
    RunJournal j(file);
    ASSERT_TRUE(j.open());
    id = *j.accept("chat.send", json{{"message", "x"}});
  }
  {
    RunJournal j(file);
    auto left = j.open();
    ASSERT_EQ(left->size(), 1u);
    EXPECT_EQ((*left)[0].resumes, 0);
    ASSERT_TRUE(j.resumed(id));
  }
  RunJournal j(file);
  auto left = j.open();
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].resumes, 1);  // the source gives it up now (kMaxResumes)
}

TEST_F(RunJournalTest, ATornLastLineAndGarbageAreSkipped) {
  std::string id;
  {
    RunJournal j(file);
    ASSERT_TRUE(j.open());
    id = *j.accept("chat.send", json{{"message", "kept"}});
  }
  {
    std::ofstream out(file, std::ios::app);
    out << "not json\n" << R"({"op":"answered","id":")" << id;  // the answer never completed
  }
  RunJournal j(file);
  auto left = j.open();
  ASSERT_TRUE(left);
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].request["message"], "kept");
  // Compacted: every line of the file is a complete record again.
  const std::string text = test_helpers::slurp(file);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("not json"), std::string::npos);
}

TEST_F(RunJournalTest, AFailingDirectoryRefusesWorkWithTheFileNamed) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "runs") << "a file where the directory should be";
  RunJournal j(file);
  EXPECT_FALSE(j.open());
  auto id = j.accept("chat.send", json{{"message", "x"}});
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().code, "IO_ERROR");
  EXPECT_NE(id.error().message.find("journal.jsonl"), std::string::npos) << id.error().message;
}

TEST_F(RunJournalTest, FinishedEntriesAreCompactedWhileRunning) {
  RunJournal j(file);
  ASSERT_TRUE(j.open());
  const std::string keep = *j.accept("chat.send", json{{"message", "still open"}});
  const std::string big(64 * 1024, 'x');
  for (int i = 0; i < 80; ++i) {  // 5 MB of finished entries > kJournalCompactBytes
    auto id = j.accept("chat.send", json{{"message", big}});
    ASSERT_TRUE(id);
    ASSERT_TRUE(j.answered(*id, "end"));
  }
  EXPECT_LT(std::filesystem::file_size(file), kJournalCompactBytes);
  ASSERT_TRUE(j.started(keep, "r"));  // appends still work after the rewrite
  RunJournal again(file);
  auto left = again.open();
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].run_id, "r");
}

TEST(RunJournalForms, SendRequestsAndChannelMessagesRoundTrip) {
  SendRequest r;
  r.session_key = "agent:main:telegram:direct:7";
  r.agent_id = "main";
  r.message = "hello";
  r.run_id = "run-1";
  r.thinking = "low";
  r.lane = RunLane::Cron;
  r.channel = "telegram";
  r.origin = {"telegram", "default", "7", "", "7", false, "55", true};
  r.sender_is_owner = false;
  const SendRequest back = send_request_from_json(send_request_json(r));
  EXPECT_EQ(back.session_key, r.session_key);
  EXPECT_EQ(back.message, "hello");
  EXPECT_EQ(back.run_id, "run-1");
  EXPECT_EQ(back.thinking, "low");
  EXPECT_EQ(back.lane, RunLane::Cron);
  EXPECT_EQ(back.origin.chat_id, "7");
  EXPECT_EQ(back.origin.message_id, "55");  // a resumed run still reacts to the message it answers
  EXPECT_TRUE(back.origin.reactions);
  EXPECT_FALSE(back.sender_is_owner);

  channels::InboundMessage m;
  m.channel = "telegram";
  m.account_id = "default";
  m.chat_id = "-100";
  m.is_group = true;
  m.topic_id = "3";
  m.sender_id = "42";
  m.sender_name = "Ann";
  m.message_id = "991";
  m.text = "what time is it?";
  m.mentions_bot = true;
  const auto req = channels::inbound_journal_request(m, "agent:main:telegram:group:-100:topic:3", "main");
  const channels::InboundMessage mb = channels::inbound_message_from_journal(req);
  EXPECT_EQ(mb.chat_id, "-100");
  EXPECT_TRUE(mb.is_group);
  EXPECT_EQ(mb.topic_id, "3");
  EXPECT_EQ(mb.sender_name, "Ann");
  EXPECT_EQ(mb.message_id, "991");
  EXPECT_EQ(mb.text, m.text);
  EXPECT_TRUE(mb.mentions_bot);
  EXPECT_EQ(req["sessionKey"], "agent:main:telegram:group:-100:topic:3");
  EXPECT_EQ(channels::inbound_journal_key(m), channels::inbound_journal_key(mb));
  m.message_id.clear();
  EXPECT_EQ(channels::inbound_journal_key(m), "");
}

TEST(RunJournalForms, AnUnansweredTurnIsFoundOnlyWhenTheTranscriptEndsInIt) {
  store::SessionContext ctx;
  ctx.messages = {json{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "old"}}})}, {"timestamp", 1}},
                  json{{"role", "assistant"}, {"stopReason", "stop"}, {"content", json::array()}},
                  json{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "do it"}}})}, {"timestamp", 5}},
                  json{{"role", "assistant"}, {"stopReason", "toolUse"}, {"content", json::array()}},
                  json{{"role", "toolResult"}, {"content", json::array()}}};
  EXPECT_EQ(unanswered_turn(ctx, "do it"), std::optional<int64_t>(5));
  EXPECT_EQ(unanswered_turn(ctx, "something else"), std::nullopt);
  ctx.messages.push_back(json{{"role", "assistant"}, {"stopReason", "stop"}, {"content", json::array()}});
  EXPECT_EQ(unanswered_turn(ctx, "do it"), std::nullopt);  // it was answered
}

}  // namespace
}  // namespace pincer::agent
