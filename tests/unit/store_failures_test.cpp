// What a full disk and bad bytes must not do (issue 11 items 1-3): a failed transcript append is
// taken back so the file stays valid JSONL; a turn the process never finished is marked as
// interrupted and reaches the model as such; user bytes that are not UTF-8 are found before they
// reach a JSON serialiser (which would throw).
#include <signal.h>
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "agent/agent_run.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/utf8.h"
#include "gateway/gateway.h"
#include "llm/failover.h"
#include "store/atomic_file.h"
#include "store/session_index.h"
#include "store/transcript.h"

namespace pincer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("pincer-failures-" + ids::random_token(6))) { fs::create_directories(path_); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

json user_message(const std::string& text) {
  return {{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", text}}})}, {"timestamp", 1}};
}

/// Makes writes past `limit` bytes of any file fail with EFBIG, as a full disk fails them with
/// ENOSPC (a partial write first, then the error); restores the limit when it goes away.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t limit) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit low{limit, old_.rlim_max};
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &low), 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  sighandler_t old_handler_{};
};

TEST(TranscriptAppendFailure, AFailedAppendIsTruncatedAwayAndTheFileStaysValidJsonl) {
  TempDir dir;
  ManualClock clock;
  const fs::path file = dir.path() / "s1.jsonl";
  store::TranscriptCreateOptions options;
  options.session_id = "s1";
  options.fsync = store::FsyncPolicy::None;
  auto writer = store::TranscriptWriter::create(file, options, clock);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  auto first = writer->append_message(user_message("first"));
  ASSERT_TRUE(first.ok());
  const auto size = fs::file_size(file);

  auto failed = [&] {
    FileSizeLimit limit(size + 16);  // room for a fragment of the next line, not all of it
    return writer->append_message(user_message(std::string(2000, 'x')));
  }();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, "IO_ERROR");
  EXPECT_NE(failed.error().message.find(file.string()), std::string::npos) << failed.error().message;
  EXPECT_EQ(fs::file_size(file), size) << "the torn fragment must be truncated away";
  EXPECT_EQ(writer->leaf_id(), *first);

  // Space again: the next entry follows the last complete one, and every line parses.
  auto next = writer->append_message(user_message("after"));
  ASSERT_TRUE(next.ok());
  auto contents = store::read_transcript(file);
  ASSERT_TRUE(contents.ok());
  EXPECT_TRUE(contents->warnings.empty()) << contents->warnings.front().line << ": " << contents->warnings.front().message;
  ASSERT_EQ(contents->entries.size(), 2u);
  EXPECT_EQ(contents->entries[1].parent_id.value_or(""), *first);
  EXPECT_FALSE(contents->missing_final_newline);
}

TEST(InterruptedTurn, AUserMessageWithoutAReplyGetsAnAbortedAssistantEntry) {
  TempDir dir;
  ManualClock clock;
  const fs::path file = dir.path() / "s2.jsonl";
  store::TranscriptCreateOptions options;
  options.session_id = "s2";
  options.fsync = store::FsyncPolicy::None;
  auto writer = store::TranscriptWriter::create(file, options, clock);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->append_message(user_message("lost request")).ok());
  auto contents = store::read_transcript(file);
  ASSERT_TRUE(contents.ok());
  auto marker = agent::interrupted_turn_marker(contents->entries, 42);
  ASSERT_TRUE(marker.has_value());
  EXPECT_EQ((*marker)["role"], "assistant");
  EXPECT_EQ((*marker)["stopReason"], "aborted");
  EXPECT_EQ((*marker)["errorMessage"], agent::kInterruptedTurnMessage);
  EXPECT_EQ((*marker)["content"], json::array());

  auto with_text = agent::interrupted_turn_marker(contents->entries, 42, "what had streamed");
  ASSERT_TRUE(with_text.has_value());
  EXPECT_EQ((*with_text)["content"][0]["text"], "what had streamed");

  // Once it is recorded the turn is closed: no second marker.
  ASSERT_TRUE(writer->append_message(*marker).ok());
  contents = store::read_transcript(file);
  ASSERT_TRUE(contents.ok());
  EXPECT_FALSE(agent::interrupted_turn_marker(contents->entries, 43).has_value());

  // The model sees the turn as interrupted, not two user messages in a row.
  std::vector<llm::Message> history;
  for (const auto& m : store::to_llm_messages(store::build_context(contents->entries).messages)) {
    if (auto parsed = llm::message_from_json(m)) history.push_back(std::move(*parsed));
  }
  llm::UserMessage next;
  next.content.emplace_back(llm::TextContent{"next request"});
  history.push_back(next);
  auto sent = agent::sanitize_history(history);
  ASSERT_EQ(sent.size(), 3u);
  const auto* reply = std::get_if<llm::AssistantMessage>(&sent[1]);
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->stop_reason, llm::StopReason::Stop);  // not dropped by the providers' history rules
  EXPECT_NE(reply->text().find("incomplete"), std::string::npos) << reply->text();
  EXPECT_NE(reply->text().find("interrupted"), std::string::npos) << reply->text();
}

TEST(SessionIndexUtf8, AKeyWithBytesThatAreNotUtf8StillLeavesAParsableIndex) {
  TempDir dir;
  ManualClock clock;
  const fs::path file = dir.path() / "sessions.json";
  store::SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_TRUE(index.upsert("agent:main:irc:direct:caf\xE9", store::OrderedJson{{"sessionId", "s1"}}).ok());
  ASSERT_TRUE(index.save().ok());
  store::SessionIndex again(file, clock);
  auto loaded = again.load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;  // not quarantined as corrupt
  EXPECT_EQ(again.size(), 1u);
}

TEST(ProviderErrorUtf8, AnErrorBodyThatIsNotUtf8GivesAUtf8Message) {
  // The message reaches JSON events and platform requests (which would throw on bad bytes).
  llm::ModelSpec model;
  model.provider = "mock";
  model.id = "m";
  const auto failure = llm::classify_http(model, 502, "Proxy-Fehler: ung\xFCltig", "");
  EXPECT_TRUE(utf8::is_valid(failure.message)) << failure.message;
  EXPECT_NE(failure.message.find("ung\xEF\xBF\xBDltig"), std::string::npos) << failure.message;
}

TEST(GatewayHealthUtf8, AChannelErrorThatIsNotUtf8DoesNotBreakTheHealthSnapshot) {
  // The snapshot is rebuilt on a timer of the event loop: a throw there would end the process.
  ManualClock clock;
  gateway::GatewaySettings settings;
  settings.auth.mode = "none";
  gateway::Gateway gateway(settings, clock);
  gateway.set_channels_status([] {
    return json{{"channels", json::array({{{"channel", "irc"}, {"accountId", "default"}, {"running", false},
                                           {"lastError", "ERROR :Closing link (caf\xE9)"}}})}};
  });
  EXPECT_NO_THROW(gateway.refresh_health(/*broadcast_event=*/true));
  const std::string text = gateway.health_json();
  EXPECT_TRUE(utf8::is_valid(text));
  EXPECT_NE(text.find("caf\xEF\xBF\xBD"), std::string::npos) << text;
}

TEST(Utf8, FindsTheFirstInvalidByteAndReplacesEachBadByte) {
  EXPECT_TRUE(utf8::is_valid("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  EXPECT_EQ(utf8::first_invalid("ab\xFF"), 2u);
  EXPECT_EQ(utf8::first_invalid("\xC0\xAF"), 0u);           // overlong
  EXPECT_EQ(utf8::first_invalid("x\xED\xA0\x80"), 1u);      // a UTF-16 surrogate
  EXPECT_EQ(utf8::first_invalid("\xF0\x9F\x98"), 0u);       // truncated
  EXPECT_EQ(utf8::describe_invalid("ab\xFF"), "invalid UTF-8 at byte 2 (0xff)");
  EXPECT_EQ(utf8::describe_invalid("fine"), "");
  EXPECT_EQ(utf8::replace_invalid("a\xE9z"), "a\xEF\xBF\xBDz");
  EXPECT_TRUE(utf8::is_valid(utf8::replace_invalid("\xFF\xFE\xC3")));

  json params = {{"sessionKey", "main"}, {"items", json::array({"ok", std::string("b\xFFz")})}};
  auto bad = utf8::find_invalid(params);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->path, "/items/1");
  EXPECT_EQ(bad->problem, "invalid UTF-8 at byte 1 (0xff)");
  EXPECT_FALSE(utf8::find_invalid(json{{"message", "h\xC3\xA9"}}).has_value());
}

}  // namespace
}  // namespace pincer
