// Slack's pure parts: Socket Mode envelopes, message events → InboundMessage (src/channels/slack/
// slack_api.h), ts order, rate limits and errors of Web API answers, Markdown → mrkdwn
// (src/delivery/slack_mrkdwn.h) and its chunking.
#include <gtest/gtest.h>

#include "channels/channel_checks.h"
#include "channels/slack/slack_api.h"
#include "core/config.h"
#include "delivery/chunker.h"
#include "delivery/slack_mrkdwn.h"

using namespace pincer::channels::slack;
using pincer::delivery::markdown_to_slack_mrkdwn;
using nlohmann::json;
using pincer::channels::ChannelAccount;

namespace {

const std::string kSlackBot = "U0BOT0001";

json slack_event(json event) {
  return json{{"team_id", "T1"}, {"event", std::move(event)}, {"type", "event_callback"}};
}

json dm_event(const std::string& text) {
  return json{{"type", "message"}, {"channel", "D1"}, {"user", "U1"}, {"text", text}, {"ts", "1700000000.000100"},
              {"channel_type", "im"}};
}

}  // namespace

TEST(SlackEnvelope, ParsesHelloDisconnectAndEvents) {
  EXPECT_EQ(parse_socket_envelope(R"({"type":"hello","num_connections":1})").kind, SocketEnvelope::Kind::Hello);
  const auto d = parse_socket_envelope(R"({"type":"disconnect","reason":"refresh_requested"})");
  EXPECT_EQ(d.kind, SocketEnvelope::Kind::Disconnect);
  EXPECT_EQ(d.reason, "refresh_requested");
  const auto e = parse_socket_envelope(
      R"({"envelope_id":"e-1","type":"events_api","retry_attempt":2,"payload":{"team_id":"T1","event":{"type":"message"}}})");
  EXPECT_EQ(e.kind, SocketEnvelope::Kind::EventsApi);
  EXPECT_EQ(e.envelope_id, "e-1");
  EXPECT_EQ(e.retry_attempt, 2);
  EXPECT_EQ(e.payload.value("team_id", ""), "T1");
  const auto slash = parse_socket_envelope(R"({"envelope_id":"e-2","type":"slash_commands","payload":{"command":"/pincer"}})");
  EXPECT_EQ(slash.kind, SocketEnvelope::Kind::SlashCommands);
  EXPECT_EQ(slash.payload.value("command", ""), "/pincer");
  EXPECT_EQ(parse_socket_envelope(R"({"envelope_id":"e-3","type":"interactive"})").kind, SocketEnvelope::Kind::Other);
  EXPECT_EQ(parse_socket_envelope("not json").kind, SocketEnvelope::Kind::Invalid);
  EXPECT_EQ(parse_socket_envelope("[1]").kind, SocketEnvelope::Kind::Invalid);
  EXPECT_EQ(envelope_ack("e-1"), R"({"envelope_id":"e-1"})");
}

TEST(SlackMessageEvent, DirectMessage) {
  auto m = parse_message_event(slack_event(dm_event(" hello ")), "default", kSlackBot);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->channel, "slack");
  EXPECT_FALSE(m->is_group);
  EXPECT_EQ(m->chat_id, "D1");
  EXPECT_EQ(m->sender_id, "U1");
  EXPECT_EQ(m->message_id, "1700000000.000100");
  EXPECT_EQ(m->team_id, "T1");
  EXPECT_EQ(m->text, "hello");
  EXPECT_EQ(m->ts_ms, 1700000000000);
  EXPECT_TRUE(m->thread_id.empty());
}

TEST(SlackMessageEvent, ChannelMentionThreadAndKinds) {
  json e = dm_event("<@U0BOT0001> deploy?");
  e["channel"] = "C1";
  e["channel_type"] = "channel";
  e["thread_ts"] = "1699999999.000001";
  auto m = parse_message_event(slack_event(e), "default", kSlackBot);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->is_group);
  EXPECT_TRUE(m->channel_peer);
  EXPECT_TRUE(m->mentions_bot);
  EXPECT_EQ(m->text, "deploy?");
  EXPECT_EQ(m->thread_id, "1699999999.000001");

  e["text"] = "no mention";
  e["channel_type"] = "mpim";
  m = parse_message_event(slack_event(e), "default", kSlackBot);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->mentions_bot);
  EXPECT_TRUE(m->is_group);
  EXPECT_FALSE(m->channel_peer);  // a group DM stays a group

  json mention = {{"type", "app_mention"}, {"channel", "G1"}, {"user", "U1"}, {"text", "<@U0BOT0001|pincer> hi"}, {"ts", "1.2"}};
  m = parse_message_event(slack_event(mention), "default", kSlackBot);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->mentions_bot);
  EXPECT_TRUE(m->channel_peer);  // no channel_type: G… is a private channel
  EXPECT_EQ(m->text, "hi");
}

TEST(SlackMessageEvent, IgnoresBotsEditsAndEmptyText) {
  json own = dm_event("echo");
  own["user"] = kSlackBot;
  EXPECT_FALSE(parse_message_event(slack_event(own), "default", kSlackBot));
  json bot = dm_event("hi");
  bot["bot_id"] = "B1";
  EXPECT_FALSE(parse_message_event(slack_event(bot), "default", kSlackBot));
  json changed = dm_event("hi");
  changed["subtype"] = "message_changed";
  EXPECT_FALSE(parse_message_event(slack_event(changed), "default", kSlackBot));
  json broadcast = dm_event("hi");
  broadcast["subtype"] = "thread_broadcast";
  EXPECT_TRUE(parse_message_event(slack_event(broadcast), "default", kSlackBot));
  EXPECT_FALSE(parse_message_event(slack_event(dm_event("<@U0BOT0001>")), "default", kSlackBot));
  EXPECT_FALSE(parse_message_event(slack_event(json{{"type", "reaction_added"}}), "default", kSlackBot));
  EXPECT_FALSE(parse_message_event(json::array(), "default", kSlackBot));
}

TEST(SlackTs, OrdersAsNumbers) {
  EXPECT_TRUE(slack_ts_less("1700000000.000100", "1700000000.000101"));
  EXPECT_TRUE(slack_ts_less("999999999.999999", "1000000000.000000"));
  EXPECT_FALSE(slack_ts_less("1700000000.000100", "1700000000.000100"));
  EXPECT_TRUE(slack_ts_less("1700000000.1", "1700000000.2"));
}

TEST(SlackWebApiAnswer, RateLimitsAndErrors) {
  pincer::net::HttpResponseHead head;
  head.headers = {{"Retry-After", "3"}};
  WebApiAnswer limited{429, json{{"ok", false}, {"error", "ratelimited"}}, ""};
  EXPECT_EQ(retry_after_ms(limited, head), 3000);
  WebApiAnswer body_limited{200, json{{"ok", false}, {"error", "ratelimited"}}, ""};
  EXPECT_EQ(retry_after_ms(body_limited, pincer::net::HttpResponseHead{}), 1000);
  WebApiAnswer fine{200, json{{"ok", true}}, ""};
  EXPECT_TRUE(fine.ok());
  EXPECT_FALSE(retry_after_ms(fine, head));

  WebApiAnswer missing{200, json{{"ok", false}, {"error", "channel_not_found"}}, ""};
  const auto e = delivery_error("chat.postMessage", missing);
  EXPECT_EQ(e.code, "REJECTED");
  EXPECT_EQ(e.message, "slack: chat.postMessage failed: channel_not_found");
  EXPECT_EQ(delivery_error("chat.update", WebApiAnswer{0, json(), "connect refused"}).code, "UNAVAILABLE");
  EXPECT_EQ(delivery_error("chat.update", WebApiAnswer{503, json(), ""}).message, "slack: chat.update failed: HTTP 503");
  EXPECT_EQ(post_message_body("C1", "x", "1.2").value("thread_ts", ""), "1.2");
  EXPECT_FALSE(post_message_body("C1", "x", "").contains("thread_ts"));
}

TEST(SlackMrkdwn, InlineMarkup) {
  EXPECT_EQ(markdown_to_slack_mrkdwn("**bold** *it* ~~gone~~ `a<b`"), "*bold* _it_ ~gone~ `a&lt;b`");
  EXPECT_EQ(markdown_to_slack_mrkdwn("[docs](https://x.io/a?b=1&c=2)"), "<https://x.io/a?b=1&amp;c=2|docs>");
  EXPECT_EQ(markdown_to_slack_mrkdwn("see https://x.io"), "see <https://x.io>");
  EXPECT_EQ(markdown_to_slack_mrkdwn("[bad](javascript:alert(1))"), "bad");
  EXPECT_EQ(markdown_to_slack_mrkdwn("1 < 2 & 3 > 2"), "1 &lt; 2 &amp; 3 &gt; 2");
  EXPECT_EQ(markdown_to_slack_mrkdwn("# Title\n\ntext"), "*Title*\n\ntext");
}

TEST(SlackMrkdwn, Blocks) {
  EXPECT_EQ(markdown_to_slack_mrkdwn("```cpp\nint a = 1 < 2;\n```"), "```\nint a = 1 &lt; 2;\n```");
  EXPECT_EQ(markdown_to_slack_mrkdwn("- a\n- b\n  1. c"), "• a\n• b\n  1. c");
  EXPECT_EQ(markdown_to_slack_mrkdwn("> quoted\n> more"), "> quoted\n> more");
  EXPECT_EQ(markdown_to_slack_mrkdwn("| a | b |\n|---|---|\n| 1 | 2 |"), "```\n| a | b |\n| 1 | 2 |\n```");
}

TEST(SlackMrkdwn, LongCodeBlocksAreChunkedWithFencesReopened) {
  std::string md = "```\n";
  for (int i = 0; i < 300; ++i) md += "line " + std::to_string(i) + " of the code\n";
  md += "```";
  pincer::delivery::ChunkOptions o;
  o.limit = 1000;
  o.format = pincer::delivery::TextFormat::SlackMrkdwn;
  auto chunks = pincer::delivery::chunk_text(markdown_to_slack_mrkdwn(md), o);
  ASSERT_TRUE(chunks);
  ASSERT_GT(chunks->size(), 3u);
  for (const auto& c : *chunks) {
    EXPECT_LE(c.size(), 1000u);
    EXPECT_EQ(c.rfind("```", 0), 0u) << c.substr(0, 40);
  }
}

TEST(SlackSettings, ClearErrorsNamingTheKey) {
  using pincer::channels::ChannelAccount;
  const auto error_of = [](json config) {
    auto s = pincer::channels::slack_settings_of(ChannelAccount{"slack", "default", "channels.slack", std::move(config)}, "/state");
    return s ? std::string() : s.error().message;
  };
  const json ok = {{"botToken", "xoxb-1"}, {"appToken", "xapp-1"}};
  auto s = pincer::channels::slack_settings_of(ChannelAccount{"slack", "work", "channels.slack.accounts.work", ok}, "/state");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->api_root, "https://slack.com/api");
  EXPECT_EQ(s->state_file, "/state/channels/slack/work.json");
  EXPECT_EQ(s->config_path, "channels.slack.accounts.work");  // named in a refused-token reason
  EXPECT_NE(error_of({{"appToken", "xapp-1"}}).find("channels.slack.botToken: required"), std::string::npos);
  // Swapped tokens are named as such.
  const std::string swapped = error_of({{"botToken", "xapp-1"}, {"appToken", "xoxb-1"}});
  EXPECT_NE(swapped.find("channels.slack.botToken: must start with xoxb-"), std::string::npos) << swapped;
  EXPECT_NE(swapped.find("looks like the app token"), std::string::npos) << swapped;
  const std::string app_swapped = error_of({{"botToken", "xoxb-1"}, {"appToken", "xoxb-2"}});
  EXPECT_NE(app_swapped.find("channels.slack.appToken: must start with xapp-"), std::string::npos) << app_swapped;
  EXPECT_NE(app_swapped.find("looks like the bot token"), std::string::npos) << app_swapped;
  EXPECT_NE(error_of({{"botToken", "abc"}, {"appToken", "xapp-1"}}).find("botToken: must start with xoxb-"), std::string::npos);
  // `config set` checks with "${NAME}" unexpanded: the gateway's environment provides them.
  EXPECT_EQ(error_of({{"botToken", "${SLACK_BOT_TOKEN}"}, {"appToken", "${SLACK_APP_TOKEN}"}}), "");
  EXPECT_NE(error_of({{"botToken", "${lower}"}, {"appToken", "xapp-1"}}).find("botToken"), std::string::npos);
  // Socket Mode or HTTP (which needs the signing secret).
  EXPECT_NE(error_of({{"botToken", "xoxb-1"}, {"appToken", "xapp-1"}, {"mode", "http"}}).find("channels.slack.signingSecret"),
            std::string::npos);
  EXPECT_NE(error_of({{"botToken", "xoxb-1"}, {"appToken", "xoxb-2"}}).find("channels.slack.appToken"), std::string::npos);
  EXPECT_NE(error_of({{"botToken", "xoxb-1"}, {"appToken", "xapp-1"}, {"mode", "callback"}}).find("channels.slack.mode"),
            std::string::npos);
  EXPECT_NE(error_of({{"botToken", "xoxb-1"}, {"appToken", "xapp-1"}, {"apiRoot", "slack.com"}}).find("channels.slack.apiRoot"),
            std::string::npos);
  const auto webhook = pincer::channels::webhook_settings_of(
      ChannelAccount{"webhook", "default", "channels.webhook", json{{"secret", std::string(20, 'x')}, {"mode", "socket"}}}, "/state");
  ASSERT_FALSE(webhook);
  EXPECT_NE(webhook.error().message.find("channels.webhook.mode"), std::string::npos);
}

TEST(SlackSettings, HttpModeNeedsTheSigningSecretNotTheAppToken) {
  // The schema's mode enum is shared with the webhook channel: "http" (OpenClaw's Slack HTTP mode)
  // must reach slack_settings_of, which asks for the signing secret.
  const json doc = {{"channels", {{"slack", {{"botToken", "xoxb-1"}, {"mode", "http"}}}}}};
  EXPECT_TRUE(pincer::config::validate(doc).ok());
  const auto problems = pincer::channels::channel_problems(doc);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("channels.slack.signingSecret: required with mode \"http\""), std::string::npos) << problems[0];

  const ChannelAccount http{"slack", "default", "channels.slack",
                            json{{"botToken", "xoxb-1"}, {"mode", "http"}, {"signingSecret", "s3cret"}}};
  auto s = pincer::channels::slack_settings_of(http, "/state");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->http_mode);
  EXPECT_EQ(s->webhook_path, "/slack/events");  // OpenClaw's default
  EXPECT_EQ(*pincer::channels::check_account(http), "/slack/events");  // the route, for path clashes

  ChannelAccount bad_path = http;
  bad_path.config["webhookPath"] = "slack";
  s = pincer::channels::slack_settings_of(bad_path, "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("channels.slack.webhookPath"), std::string::npos) << s.error().message;

  const auto odd = pincer::channels::slack_settings_of(
      ChannelAccount{"slack", "default", "channels.slack", json{{"botToken", "xoxb-1"}, {"mode", "sync"}}}, "/state");
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("channels.slack.mode: must be \"socket\""), std::string::npos) << odd.error().message;
}

TEST(SlackSettings, SlashCommandSettings) {
  ChannelAccount a{"slack", "default", "channels.slack",
                   json{{"botToken", "xoxb-1"}, {"appToken", "xapp-1"}, {"slashCommand", {{"enabled", true}, {"name", "/claw"}}}}};
  auto s = pincer::channels::slack_settings_of(a, "/state");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->slash.enabled);
  EXPECT_EQ(s->slash.name, "claw");
  EXPECT_TRUE(s->slash.ephemeral);
  a.config["slashCommand"]["name"] = "two words";
  s = pincer::channels::slack_settings_of(a, "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("channels.slack.slashCommand.name"), std::string::npos) << s.error().message;
}

TEST(SlackSettings, EachHttpAccountGivesItsOwnSigningSecretAndPath) {
  // Two Slack apps in HTTP mode: the second must not verify requests with the first app's secret
  // nor share its Request URL.
  const json channels = {{"slack",
                          {{"mode", "http"}, {"botToken", "xoxb-1"}, {"signingSecret", "first-app-secret"},
                           {"accounts", {{"ops", {{"botToken", "xoxb-2"}}}}}}}};
  const auto accounts = pincer::channels::list_channel_accounts(channels);
  ASSERT_EQ(accounts.size(), 2u);
  EXPECT_EQ(accounts[1].account_id, "ops");
  EXPECT_EQ(accounts[1].config.value("mode", ""), "http");  // shared settings are inherited
  EXPECT_FALSE(accounts[1].config.contains("signingSecret"));
  const auto s = pincer::channels::slack_settings_of(accounts[1], "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("channels.slack.accounts.ops.signingSecret"), std::string::npos) << s.error().message;
}
