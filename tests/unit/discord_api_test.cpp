// Discord API shapes (src/channels/discord/discord_api.h): MESSAGE_CREATE → InboundMessage,
// mention detection, rate-limit headers, route keys, snowflakes, Gateway payloads.
#include <gtest/gtest.h>

#include "channels/discord/discord_api.h"

using namespace pincer::channels::discord;
using nlohmann::json;

namespace {

const std::string kBot = "900000000000000001";

json guild_message(const std::string& content) {
  return json{{"id", "1200000000000000000"},
              {"channel_id", "300"},
              {"guild_id", "400"},
              {"type", 0},
              {"content", content},
              {"author", {{"id", "500"}, {"username", "alice"}, {"global_name", "Alice A."}}},
              {"member", {{"nick", "Ally"}, {"roles", {"r1", "r2"}}}},
              {"mentions", json::array()}};
}


TEST(DiscordApi, DeliveryTargetsAsOpenClawWritesThem) {
  EXPECT_EQ(parse_delivery_target("channel:123").id, "123");
  EXPECT_FALSE(parse_delivery_target("channel:123").user);
  EXPECT_EQ(parse_delivery_target("123").id, "123");
  EXPECT_FALSE(parse_delivery_target("123").user);
  for (const char* user : {"user:42", "<@42>", "<@!42>"}) {
    EXPECT_EQ(parse_delivery_target(user).id, "42") << user;
    EXPECT_TRUE(parse_delivery_target(user).user) << user;
  }
  for (const char* bad : {"", "user:", "channel:abc", "#general", "user:12x", "<@>"}) {
    EXPECT_EQ(parse_delivery_target(bad).id, "") << bad;
  }
}
}  // namespace

TEST(DiscordApi, GuildMessageBecomesAnInboundMessage) {
  auto m = parse_message_create(guild_message("  hello  "), "acct", kBot);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->channel, "discord");
  EXPECT_EQ(m->account_id, "acct");
  EXPECT_TRUE(m->is_group);
  EXPECT_EQ(m->chat_id, "300");
  EXPECT_EQ(m->guild_id, "400");
  EXPECT_TRUE(m->channel_peer) << "guild channels are peers of kind channel, as OpenClaw keys them";
  EXPECT_EQ(m->sender_roles, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_EQ(m->sender_id, "500");
  EXPECT_EQ(m->sender_name, "Ally");  // the nick in the guild first
  EXPECT_EQ(m->sender_username, "");  // names can change: allowFrom matches ids
  EXPECT_EQ(m->text, "hello");
  EXPECT_FALSE(m->mentions_bot);
  EXPECT_EQ(m->ts_ms, (int64_t{1200000000000000000} >> 22) + kDiscordEpochMs);
}

TEST(DiscordApi, MentionsOfTheBot) {
  auto by_token = parse_message_create(guild_message("<@" + kBot + "> status please"), "a", kBot);
  ASSERT_TRUE(by_token);
  EXPECT_TRUE(by_token->mentions_bot);
  EXPECT_EQ(by_token->text, "status please") << "the bot's own mention is not text for the model";
  auto nick_form = parse_message_create(guild_message("hey <@!" + kBot + ">"), "a", kBot);
  EXPECT_TRUE(nick_form->mentions_bot);
  EXPECT_EQ(nick_form->text, "hey");

  json listed = guild_message("hi");
  listed["mentions"] = json::array({{{"id", kBot}}});
  EXPECT_TRUE(parse_message_create(listed, "a", kBot)->mentions_bot);

  json reply = guild_message("and this?");
  reply["type"] = 19;
  reply["referenced_message"] = {{"id", "1"}, {"author", {{"id", kBot}}}};
  EXPECT_TRUE(parse_message_create(reply, "a", kBot)->mentions_bot) << "a reply to the bot is a mention";

  auto other = parse_message_create(guild_message("<@123> not you"), "a", kBot);
  EXPECT_FALSE(other->mentions_bot);
  EXPECT_EQ(other->text, "<@123> not you");
}

TEST(DiscordApi, IgnoredMessages) {
  json from_bot = guild_message("x");
  from_bot["author"]["bot"] = true;
  EXPECT_FALSE(parse_message_create(from_bot, "a", kBot));
  json own = guild_message("x");
  own["author"]["id"] = kBot;
  EXPECT_FALSE(parse_message_create(own, "a", kBot));
  json hook = guild_message("x");
  hook["webhook_id"] = "7";
  EXPECT_FALSE(parse_message_create(hook, "a", kBot));
  json system = guild_message("x");
  system["type"] = 7;  // member join
  EXPECT_FALSE(parse_message_create(system, "a", kBot));
  EXPECT_FALSE(parse_message_create(guild_message("<@" + kBot + ">"), "a", kBot)) << "nothing left to answer";
  EXPECT_FALSE(parse_message_create(json::array(), "a", kBot));
}

TEST(DiscordApi, DirectMessage) {
  json dm = guild_message("hi");
  dm.erase("guild_id");
  dm.erase("member");
  auto m = parse_message_create(dm, "a", kBot);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->is_group);
  EXPECT_EQ(m->guild_id, "");
  EXPECT_EQ(m->sender_name, "Alice A.");
}

TEST(DiscordApi, AttachmentsOfAMessage) {
  json m = guild_message("");
  EXPECT_FALSE(parse_message_create(m, "a", kBot)) << "no text, no files: nothing to answer";
  m["attachments"] = json::array({{{"id", "1"}, {"filename", "a.png"}, {"content_type", "image/png"}, {"size", 68},
                                   {"url", "https://cdn.discordapp.com/attachments/1/2/a.png"}},
                                  {{"id", "2"}, {"filename", "no-url"}}});
  auto parsed = parse_message_create(m, "a", kBot);
  ASSERT_TRUE(parsed) << "a file alone is a message";
  EXPECT_EQ(parsed->text, "");
  const auto files = message_files(m);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename, "a.png");
  EXPECT_EQ(files[0].content_type, "image/png");
  EXPECT_EQ(files[0].size, 68);
  EXPECT_EQ(files[0].url, "https://cdn.discordapp.com/attachments/1/2/a.png");
}

TEST(DiscordApi, ThreadsAnnounced) {
  const json guild = {{"id", "g"}, {"threads", json::array({{{"id", "t1"}, {"parent_id", "c1"}}, {{"id", "t2"}}})}};
  EXPECT_EQ(announced_threads("GUILD_CREATE", guild), (std::vector<std::pair<std::string, std::string>>{{"t1", "c1"}}));
  EXPECT_EQ(announced_threads("THREAD_CREATE", json{{"id", "t3"}, {"parent_id", "c2"}}),
            (std::vector<std::pair<std::string, std::string>>{{"t3", "c2"}}));
  EXPECT_TRUE(announced_threads("MESSAGE_CREATE", guild).empty());
}

TEST(DiscordApi, RateLimitHeadersAndRetryAfter) {
  pincer::net::HttpResponseHead head;
  head.headers = {{"x-ratelimit-bucket", "abc"}, {"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset-After", "0.25"}};
  auto ok = parse_rate_limit(200, head, json());
  EXPECT_EQ(ok.bucket, "abc");
  EXPECT_EQ(ok.remaining, 0);
  EXPECT_EQ(ok.reset_after_ms, 250);
  EXPECT_FALSE(ok.limited);

  auto limited = parse_rate_limit(429, head, json{{"retry_after", 1.234}, {"global", false}});
  EXPECT_TRUE(limited.limited);
  EXPECT_FALSE(limited.global);
  EXPECT_EQ(limited.retry_after_ms, 1234);

  pincer::net::HttpResponseHead global_head;
  global_head.headers = {{"Retry-After", "3"}, {"X-RateLimit-Global", "true"}};
  auto global = parse_rate_limit(429, global_head, json("not an object"));
  EXPECT_TRUE(global.global);
  EXPECT_EQ(global.retry_after_ms, 3000) << "Retry-After when the body has no retry_after";

  auto unknown = parse_rate_limit(429, {}, json{{"retry_after", -5}});
  EXPECT_EQ(unknown.retry_after_ms, 1000) << "no usable value: a second, never a hot loop";
}

TEST(DiscordApi, RouteKeysKeepTheMajorParameterOnly) {
  EXPECT_EQ(route_key("POST", "/channels/123/messages"), "POST /channels/123/messages");
  EXPECT_EQ(route_key("PATCH", "/channels/123/messages/456"), "PATCH /channels/123/messages/:id");
  EXPECT_EQ(route_key("PATCH", "/channels/123/messages/789"), route_key("PATCH", "/channels/123/messages/456"));
  EXPECT_NE(route_key("POST", "/channels/1/messages"), route_key("POST", "/channels/2/messages"));
  EXPECT_EQ(route_key("PUT", "/channels/1/messages/2/reactions/%F0%9F%91%80/@me"), "PUT /channels/1/messages/:id/reactions/:reaction");
  EXPECT_EQ(route_key("GET", "/gateway/bot"), "GET /gateway/bot");
}

TEST(DiscordApi, SnowflakesAndGatewayPayloads) {
  EXPECT_TRUE(snowflake_less("99", "100"));
  EXPECT_TRUE(snowflake_less("1200000000000000000", "1200000000000000001"));
  EXPECT_FALSE(snowflake_less("5", "5"));
  EXPECT_EQ(snowflake_ms("x"), 0);
  EXPECT_EQ(gateway_connect_url("wss://gateway.discord.gg"), "wss://gateway.discord.gg/?v=10&encoding=json");
  EXPECT_EQ(gateway_connect_url("ws://127.0.0.1:9/gateway?x=1"), "ws://127.0.0.1:9/gateway/?v=10&encoding=json");
  EXPECT_EQ(heartbeat_payload(-1), (json{{"op", 1}, {"d", nullptr}}));
  EXPECT_EQ(heartbeat_payload(42)["d"], 42);
  const json id = identify_payload("T", kDefaultIntents);
  EXPECT_EQ(id["op"], 2);
  EXPECT_EQ(id["d"]["intents"], 1 + 512 + 4096 + 32768);
  EXPECT_EQ(resume_payload("T", "s", 7)["d"], (json{{"token", "T"}, {"session_id", "s"}, {"seq", 7}}));
  EXPECT_TRUE(fatal_close(4004));
  EXPECT_TRUE(fatal_close(4014));
  EXPECT_FALSE(fatal_close(4000));
  EXPECT_TRUE(close_forgets_session(4009));
  EXPECT_FALSE(close_forgets_session(1001));
  EXPECT_EQ(create_message_body("x")["allowed_mentions"]["parse"], json::array({"users"}));
  EXPECT_EQ(encode_path_segment("👀"), "%F0%9F%91%80");
}
