// Slack files out (SlackChannel::send_media, slack_files.h): the three steps of Slack's external
// upload against a scripted Web API on a real loopback socket — the form fields of
// files.getUploadURLExternal, the raw bytes POSTed to its upload_url, completeUploadExternal's
// JSON (channel_id, thread_ts, initial_comment), a user id's DM opened first, a refused step named.
// The channel runs in HTTP mode so that start() needs only auth.test.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "channels/slack/slack_channel.h"
#include "scripted_http_server.h"

using namespace pincer;
using nlohmann::json;

namespace {

class SlackFilesHost final : public channels::ChannelHost {
 public:
  channels::InboundOutcome on_inbound(channels::InboundMessage) override { return {}; }
};

std::map<std::string, test::ScriptedHttpAnswer> slack_files_answers() {
  return {{"/api/auth.test", {200, R"({"ok":true,"user_id":"UBOT","user":"pincer","team_id":"T1"})"}},
          {"/api/conversations.open", {200, R"({"ok":true,"channel":{"id":"D9"}})"}},
          {"/api/files.getUploadURLExternal", {200, R"({"ok":true,"upload_url":"{root}/upload/F1","file_id":"F1"})"}},
          {"/upload/F1", {200, "OK - 11"}},
          {"/api/files.completeUploadExternal", {200, R"({"ok":true,"files":[{"id":"F1","title":"notes.txt"}]})"}}};
}

/// Starts an HTTP-mode channel on `api_root`, sends `media` and returns send_media's result.
Result<std::string> slack_send_media(const std::string& api_root, const channels::OutboundMedia& media) {
  EventLoop loop;
  channels::slack::SlackSettings s;
  s.bot_token = "xoxb-1";
  s.http_mode = true;
  s.signing_secret = "secret";
  s.api_root = api_root;
  channels::slack::SlackChannel channel(loop, s);
  SlackFilesHost host;
  std::optional<Result<std::string>> result;
  loop.post([&] {
    channel.start(host, [&](const std::string&) { loop.stop(); });
    // Web API calls go out in order: auth.test first, then the upload's steps.
    channel.send_media(media, [&](Result<std::string> r) {
      result = std::move(r);
      loop.stop();
    });
    loop.after(30'000, [&] { loop.stop(); });  // a safety net only
  });
  loop.run();
  channel.stop();
  if (!result) return Error{"TIMEOUT", "send_media did not finish"};
  return *result;
}

channels::OutboundMedia slack_files_media(const std::string& chat, const std::string& thread, const std::string& caption) {
  channels::OutboundMedia m;
  m.chat_id = chat;
  m.thread_id = thread;
  m.media = agent::Attachment{"file", "text/plain", "notes.txt", std::string("hello\0world", 11)};
  m.caption = caption;
  return m;
}

}  // namespace

TEST(SlackFilesOut, UploadsInThreeStepsIntoTheThreadWithTheCaption) {
  test::ScriptedHttpServer server(slack_files_answers());
  const auto sent = slack_send_media(server.root() + "/api", slack_files_media("C1", "1700000000.000100", "*the notes*"));
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_EQ(*sent, "F1");
  const auto r = server.requests();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].path, "/api/auth.test");
  EXPECT_EQ(r[1].path, "/api/files.getUploadURLExternal");
  EXPECT_EQ(r[1].content_type, "application/x-www-form-urlencoded");
  EXPECT_EQ(r[1].authorization, "Bearer xoxb-1");
  EXPECT_EQ(r[1].body, "filename=notes.txt&length=11");
  EXPECT_EQ(r[2].path, "/upload/F1");
  EXPECT_EQ(r[2].body, std::string("hello\0world", 11)) << "the bytes as they are";
  EXPECT_EQ(r[2].content_type, "text/plain");
  EXPECT_EQ(r[2].authorization, "") << "the upload URL is signed by Slack; no token goes there";
  EXPECT_EQ(r[3].path, "/api/files.completeUploadExternal");
  EXPECT_EQ(json::parse(r[3].body), (json{{"files", {{{"id", "F1"}, {"title", "notes.txt"}}}},
                                         {"channel_id", "C1"},
                                         {"thread_ts", "1700000000.000100"},
                                         {"initial_comment", "*the notes*"}}));
}

TEST(SlackFilesOut, AFileForAUserGoesToTheirDmOpenedFirst) {
  test::ScriptedHttpServer server(slack_files_answers());
  const auto sent = slack_send_media(server.root() + "/api", slack_files_media("U0ALICE", "", ""));
  ASSERT_TRUE(sent) << sent.error().message;
  const auto r = server.requests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[1].path, "/api/conversations.open");
  EXPECT_EQ(json::parse(r[1].body), (json{{"users", "U0ALICE"}}));
  EXPECT_EQ(json::parse(r[4].body), (json{{"files", {{{"id", "F1"}, {"title", "notes.txt"}}}}, {"channel_id", "D9"}}));
}

TEST(SlackFilesOut, ARefusedStepIsNamedAndCoded) {
  auto answers = slack_files_answers();
  answers["/api/files.completeUploadExternal"] = {200, R"({"ok":false,"error":"not_in_channel"})"};
  test::ScriptedHttpServer server(answers);
  const auto refused = slack_send_media(server.root() + "/api", slack_files_media("C1", "", ""));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "REJECTED");
  EXPECT_EQ(refused.error().message, "slack: files.completeUploadExternal failed: not_in_channel");

  answers = slack_files_answers();
  answers["/upload/F1"] = {500, "upload failed"};
  test::ScriptedHttpServer failing(answers);
  const auto failed = slack_send_media(failing.root() + "/api", slack_files_media("C1", "", ""));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "UNAVAILABLE");  // retried by the delivery
  EXPECT_NE(failed.error().message.find("the upload of notes.txt"), std::string::npos) << failed.error().message;
  EXPECT_EQ(failing.requests().size(), 3u) << "not completed after a failed upload";
}
