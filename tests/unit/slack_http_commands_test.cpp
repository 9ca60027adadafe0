// Slack's slash commands (slack_commands.h) and HTTP Events API mode (slack_events_http.h), the
// pure parts: a command → the inbound message, request signatures and timestamps, request kinds,
// form bodies and the event-id record.
#include <gtest/gtest.h>

#include "channels/slack/slack_commands.h"
#include "channels/slack/slack_events_http.h"

namespace pincer::channels::slack {
namespace {

using nlohmann::json;

json slash_payload(const std::string& command, const std::string& text, const std::string& channel,
                   const std::string& channel_name = "general") {
  return {{"command", command}, {"text", text}, {"user_id", "U1ALICE"}, {"user_name", "alice"},
          {"channel_id", channel}, {"channel_name", channel_name}, {"team_id", "T1"},
          {"response_url", "https://hooks.slack.com/commands/T1/1/x"}, {"trigger_id", "123.456.abc"}};
}

TEST(SlackSlashCommand, TheConfiguredCommandsTextIsTheMessage) {
  SlashCommandSettings settings;
  auto c = parse_slash_command(slash_payload("/pincer", "  /new  ", "C1"));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(slash_command_text(*c, settings), "/new");
  c = parse_slash_command(slash_payload("/pincer", "what is up?", "C1"));
  EXPECT_EQ(slash_command_text(*c, settings), "what is up?");
  c = parse_slash_command(slash_payload("/pincer", "", "C1"));
  EXPECT_EQ(slash_command_text(*c, settings), "/help");
  // Another command the app receives is one registered natively: it is kept.
  c = parse_slash_command(slash_payload("/status", "", "C1"));
  EXPECT_EQ(slash_command_text(*c, settings), "/status");
  c = parse_slash_command(slash_payload("/model", "mock/x", "C1"));
  EXPECT_EQ(slash_command_text(*c, settings), "/model mock/x");
}

TEST(SlackSlashCommand, InboundIsTheConversationItWasTypedIn) {
  auto c = parse_slash_command(slash_payload("/pincer", "hi", "C1"));
  InboundMessage m = slash_inbound(*c, "default", "hi", 1700000000000);
  EXPECT_EQ(m.channel, "slack");
  EXPECT_EQ(m.chat_id, "C1");
  EXPECT_TRUE(m.is_group);
  EXPECT_TRUE(m.channel_peer);
  EXPECT_TRUE(m.mentions_bot);
  EXPECT_EQ(m.sender_id, "U1ALICE");
  EXPECT_EQ(m.team_id, "T1");
  EXPECT_EQ(m.message_id, "slash:123.456.abc");
  EXPECT_EQ(m.ts_ms, 1700000000000);
  m = slash_inbound(*parse_slash_command(slash_payload("/pincer", "hi", "D1", "directmessage")), "default", "hi", 0);
  EXPECT_FALSE(m.is_group);
  m = slash_inbound(*parse_slash_command(slash_payload("/pincer", "hi", "G1", "mpdm-a--b-1")), "default", "hi", 0);
  EXPECT_TRUE(m.is_group);
  EXPECT_FALSE(m.channel_peer);  // a group DM is a group, as its events are
}

TEST(SlackSlashCommand, MissingFieldsAreNamed) {
  json p = slash_payload("/pincer", "x", "C1");
  p.erase("trigger_id");
  auto c = parse_slash_command(p);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("trigger_id"), std::string::npos) << c.error().message;
  EXPECT_FALSE(parse_slash_command(json::array()));
  EXPECT_EQ(response_url_body("hello"), (json{{"response_type", "ephemeral"}, {"text", "hello"}}));
}

// Slack's documented example (api.slack.com/authentication/verifying-requests-from-slack).
const std::string kSlackDocSecret = "8f742231b10e8888abcd99yyyzzz85a5";
const std::string kSlackDocBody =
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar"
    "&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com"
    "%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121."
    "803a0bc887a14d10d2c447fce8b6703c";

TEST(SlackRequestSignature, MatchesSlacksDocumentedExample) {
  EXPECT_EQ(slack_request_signature(kSlackDocSecret, "1531420618", kSlackDocBody),
            "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
}

TEST(SlackRequestSignature, VerifiesSignatureAndFiveMinuteWindow) {
  const std::map<std::string, std::string> good = {
      {"x-slack-request-timestamp", "1531420618"},
      {"x-slack-signature", "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"}};
  EXPECT_EQ(verify_slack_request(kSlackDocSecret, good, kSlackDocBody, 1531420618 + 299), std::nullopt);
  EXPECT_EQ(verify_slack_request(kSlackDocSecret, good, kSlackDocBody, 1531420618 - 299), std::nullopt);
  const auto stale = verify_slack_request(kSlackDocSecret, good, kSlackDocBody, 1531420618 + 301);
  ASSERT_TRUE(stale);
  EXPECT_NE(stale->find("5 minutes"), std::string::npos) << *stale;
  const auto tampered = verify_slack_request(kSlackDocSecret, good, kSlackDocBody + "x", 1531420618);
  ASSERT_TRUE(tampered);
  EXPECT_NE(tampered->find("does not match"), std::string::npos) << *tampered;
  EXPECT_TRUE(verify_slack_request("another-secret", good, kSlackDocBody, 1531420618));
  EXPECT_TRUE(verify_slack_request(kSlackDocSecret, {{"x-slack-signature", "v0=00"}}, kSlackDocBody, 1531420618));
  auto bad_ts = good;
  bad_ts["x-slack-request-timestamp"] = "15314x0618";
  EXPECT_TRUE(verify_slack_request(kSlackDocSecret, bad_ts, kSlackDocBody, 1531420618));
  auto upper = good;
  upper["x-slack-signature"] = "v0=A2114D57B48EAC39B9AD189DD8316235A7B4A8D21A10BD27519666489C69B503";
  EXPECT_EQ(verify_slack_request(kSlackDocSecret, upper, kSlackDocBody, 1531420618), std::nullopt);
}

TEST(SlackHttpRequestKind, EventsChallengesAndCommands) {
  auto r = classify_slack_request("application/json", R"({"type":"url_verification","challenge":"c-123","token":"t"})");
  EXPECT_EQ(r.kind, SlackHttpRequest::Kind::UrlVerification);
  EXPECT_EQ(r.challenge, "c-123");
  r = classify_slack_request("application/json; charset=utf-8",
                             R"({"type":"event_callback","event_id":"Ev1","event":{"type":"message"}})");
  EXPECT_EQ(r.kind, SlackHttpRequest::Kind::EventCallback);
  EXPECT_EQ(r.event_id, "Ev1");
  EXPECT_EQ(r.payload["event"]["type"], "message");
  r = classify_slack_request("application/x-www-form-urlencoded", kSlackDocBody);
  EXPECT_EQ(r.kind, SlackHttpRequest::Kind::SlashCommand);
  EXPECT_EQ(r.payload["command"], "/webhook-collect");
  EXPECT_EQ(r.payload["text"], "");
  EXPECT_EQ(r.payload["response_url"], "https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN");
  EXPECT_EQ(classify_slack_request("application/x-www-form-urlencoded", "payload=%7B%7D").kind,
            SlackHttpRequest::Kind::Interactive);
  EXPECT_EQ(classify_slack_request("application/json", "[1]").kind, SlackHttpRequest::Kind::Invalid);
  EXPECT_EQ(classify_slack_request("application/json", R"({"type":"app_rate_limited"})").kind, SlackHttpRequest::Kind::Other);
}

TEST(SlackHttpRequestKind, FormDecoding) {
  EXPECT_EQ(parse_form_body("text=hello+world%21&a=%2"), (json{{"text", "hello world!"}, {"a", "%2"}}));
  EXPECT_EQ(parse_form_body("k&&x=1"), (json{{"k", ""}, {"x", "1"}}));
}

TEST(SlackEventIds, RetriesAreRecognisedWithinCapacity) {
  SlackEventIds ids(2);
  EXPECT_FALSE(ids.seen_or_add("Ev1"));
  EXPECT_TRUE(ids.seen_or_add("Ev1"));
  EXPECT_FALSE(ids.seen_or_add("Ev2"));
  EXPECT_FALSE(ids.seen_or_add("Ev3"));  // Ev1 leaves
  EXPECT_FALSE(ids.seen_or_add("Ev1"));
}

}  // namespace
}  // namespace pincer::channels::slack
