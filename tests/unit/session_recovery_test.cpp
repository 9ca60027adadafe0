// A damaged sessions.json is rebuilt from the transcripts beside it (store/session_recovery.h):
// every session comes back under its key (from the transcript header's "sessionKey"), with its
// id and last activity; the damaged file is kept aside; the next turn appends to the same
// transcript; `pincer doctor` says the index is damaged, then that it was rebuilt.
#include <gtest/gtest.h>

#include "cli/doctor.h"
#include "core/clock.h"
#include "store/session_index.h"
#include "store/session_recovery.h"
#include "store/transcript.h"
#include "store_test_support.h"

namespace pincer::store::session_recovery_test {
namespace {

namespace fs = std::filesystem;
using store_test_support::read_checked;
using store_test_support::spit;
using store_test_support::TempDir;

Json user_message(const std::string& text) {
  return {{"role", "user"}, {"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"timestamp", 1}};
}

struct RecoveryFixture : ::testing::Test {
  TempDir state;
  ManualClock clock{1'780'000'000'000};
  fs::path dir = sessions_dir(state.path(), "main");
  fs::path file = session_index_path(state.path(), "main");

  /// A transcript as the gateway makes it (its key in the header), with one message.
  fs::path make_session(const std::string& key, const std::string& id, const std::string& text) {
    const fs::path path = *transcript_path(dir, id);
    TranscriptCreateOptions options;
    options.session_id = id;
    options.cwd = "/w";
    options.session_key = key;
    auto writer = TranscriptWriter::create(path, options, clock);
    EXPECT_TRUE(writer.ok()) << writer.error().message;
    clock.advance(1000);
    EXPECT_TRUE(writer->append_message(user_message(text)).ok());
    SessionIndex index(file, clock);
    EXPECT_TRUE(index.load().ok());
    EXPECT_TRUE(index.upsert(key, OrderedJson{{"sessionId", id}}).ok());
    EXPECT_TRUE(index.save().ok());
    clock.advance(1000);
    return path;
  }
};

TEST_F(RecoveryFixture, ADamagedIndexIsRebuiltFromTheTranscriptsWithTheirKeys) {
  const fs::path main_file = make_session("agent:main:main", "s-main", "hello");
  const int64_t main_last = clock.wall_ms() - 1000;
  make_session("agent:main:telegram:direct:42", "s-tg", "from telegram");
  // A transcript written without a key (an older Pincer, OpenClaw), and archives that are not sessions.
  spit(dir / "legacy1.jsonl",
       "{\"type\":\"session\",\"version\":3,\"id\":\"legacy1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n"
       "{\"type\":\"message\",\"id\":\"a1b2c3d4\",\"parentId\":null,\"timestamp\":\"2026-01-02T00:00:00.000Z\","
       "\"message\":{\"role\":\"user\",\"content\":\"old\",\"timestamp\":1}}\n");
  spit(dir / "old.jsonl.reset.2026-01-01T00-00-00.000Z",
       "{\"type\":\"session\",\"version\":3,\"id\":\"old\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n");
  spit(dir / "notes.jsonl", "not a transcript\n");

  const std::string damaged = "{\n  \"agent:main:main\": {\n    \"sessionId\": \"s-main\",,";
  spit(file, damaged);
  EXPECT_EQ(cli::check_session_indexes(state.path()).size(), 1u);
  EXPECT_EQ(cli::check_session_indexes(state.path()).at(0).status, "fail");

  SessionIndex index(file, clock);
  auto loaded = index.load();
  ASSERT_FALSE(loaded.ok());
  auto recovery = recover_index(index, "main", loaded.error().message);
  ASSERT_TRUE(recovery.ok()) << recovery.error().message;
  EXPECT_EQ(recovery->recovered, 3u);
  EXPECT_EQ(recovery->without_key, 1u);
  EXPECT_EQ(recovery->kept_at.parent_path(), dir);
  EXPECT_EQ(read_checked(recovery->kept_at), damaged) << "the damaged file is kept as it was";
  EXPECT_EQ(damaged_index_copy(dir), recovery->kept_at);

  // The rebuilt file is on disk: a fresh reader sees every session under its key.
  SessionIndex reopened(file, clock);
  ASSERT_TRUE(reopened.load().ok());
  ASSERT_EQ(reopened.size(), 3u);
  ASSERT_NE(reopened.get("agent:main:main"), nullptr);
  EXPECT_EQ(reopened.get("agent:main:main")->session_id(), "s-main");
  EXPECT_EQ(reopened.get("agent:main:main")->updated_at(), main_last) << "the last entry's time";
  ASSERT_NE(reopened.get("agent:main:telegram:direct:42"), nullptr);
  EXPECT_EQ(reopened.get("agent:main:telegram:direct:42")->session_id(), "s-tg");
  ASSERT_NE(reopened.get(recovered_session_key("main", "legacy1")), nullptr);
  EXPECT_EQ(reopened.get("agent:main:recovered:legacy1")->updated_at(), *parse_iso_timestamp("2026-01-02T00:00:00.000Z"));
  EXPECT_EQ(reopened.list().front().key, "agent:main:telegram:direct:42") << "most recent first";

  // The next turn of the main session continues the same transcript.
  auto path = transcript_path(dir, reopened.get("agent:main:main")->session_id());
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, main_file);
  auto writer = TranscriptWriter::open(*path, clock);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  ASSERT_TRUE(writer->append_message(user_message("and again")).ok());
  auto contents = read_transcript(main_file);
  ASSERT_TRUE(contents.ok());
  ASSERT_EQ(contents->entries.size(), 2u);
  EXPECT_EQ(contents->entries[1].raw["message"]["content"][0]["text"], "and again");
  EXPECT_EQ(contents->header.value("sessionKey", ""), "agent:main:main");

  // doctor: no longer damaged, but says it was rebuilt and where the damaged copy is.
  const auto findings = cli::check_session_indexes(state.path());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].status, "warn");
  EXPECT_NE(findings[0].message.find(recovery->kept_at.string()), std::string::npos) << findings[0].message;
}

TEST_F(RecoveryFixture, OfTwoTranscriptsWithOneKeyTheNewerWinsAndNothingIsReportedWhenAllIsWell) {
  make_session("agent:main:main", "first", "one");
  make_session("agent:main:main", "second", "two");
  EXPECT_TRUE(cli::check_session_indexes(state.path()).empty());
  const auto found = sessions_from_transcripts(dir, "main");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].session_id, "second");
  EXPECT_TRUE(found[0].key_known);
}

}  // namespace
}  // namespace pincer::store::session_recovery_test
