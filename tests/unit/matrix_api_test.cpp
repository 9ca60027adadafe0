// Matrix client-server API shapes (src/channels/matrix/matrix_api.h): /sync answers → invites and
// InboundMessages with membership kept between syncs, DM detection, mention detection, the
// contents Pincer sends (reply, thread reply, m.replace edit), errors; autoJoin decisions
// (matrix_channel.h) and the account settings (matrix_settings.h).
#include <gtest/gtest.h>

#include "channels/matrix/matrix_api.h"
#include "channels/matrix/matrix_channel.h"
#include "channels/matrix/matrix_settings.h"

using namespace pincer::channels::matrix;
using nlohmann::json;

namespace {

const BotIdentity kBot{"@pincer:hs.test", "Pincer"};

json member(const std::string& user, const std::string& membership, const std::string& name = "") {
  json content = {{"membership", membership}};
  if (!name.empty()) content["displayname"] = name;
  return {{"type", "m.room.member"}, {"state_key", user}, {"sender", user}, {"content", content}, {"event_id", "$m" + user}};
}

json text_event(const std::string& id, const std::string& sender, const std::string& body, json extra = json::object()) {
  json content = {{"msgtype", "m.text"}, {"body", body}};
  for (auto& [k, v] : extra.items()) content[k] = v;
  return {{"type", "m.room.message"}, {"event_id", id}, {"sender", sender}, {"origin_server_ts", 1700000000000},
          {"content", content}};
}

json sync_answer(const std::string& next, json joined, json invites = json::object()) {
  return {{"next_batch", next}, {"rooms", {{"join", std::move(joined)}, {"invite", std::move(invites)}}}};
}

// Arrays of events. Callers write json::array({…}): a braced list of one json, `{event}`, is an
// array under gcc but a copy of the event under clang.
json room(json state, json timeline) {
  return {{"state", {{"events", std::move(state)}}}, {"timeline", {{"events", std::move(timeline)}}}};
}

}  // namespace

TEST(MatrixApi, DirectRoomMessageBecomesADm) {
  SyncState state;
  auto batch = parse_sync(sync_answer("s1", {{"!dm:hs.test", room({member("@alice:hs.test", "join", "Alice"),
                                                                    member("@pincer:hs.test", "join")},
                                                                   json::array({text_event("$1", "@alice:hs.test", "hello")}))}}),
                          state, kBot, "default");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->next_batch, "s1");
  ASSERT_EQ(batch->messages.size(), 1u);
  const auto& m = batch->messages[0];
  EXPECT_EQ(m.channel, "matrix");
  EXPECT_FALSE(m.is_group);
  EXPECT_EQ(m.chat_id, "!dm:hs.test");
  EXPECT_EQ(m.sender_id, "@alice:hs.test");
  EXPECT_EQ(m.sender_username, "alice:hs.test");  // allowFrom "@alice:hs.test" matches it
  EXPECT_EQ(m.sender_name, "Alice");
  EXPECT_EQ(m.message_id, "$1");
  EXPECT_EQ(m.text, "hello");
  EXPECT_EQ(m.ts_ms, 1700000000000);
}

TEST(MatrixApi, MembershipIsKeptBetweenSyncsAndAThirdMemberMakesAGroup) {
  SyncState state;
  ASSERT_TRUE(parse_sync(sync_answer("s1", {{"!r:hs.test", room({member("@alice:hs.test", "join"), member("@pincer:hs.test", "join")},
                                                                 json::array())}}),
                         state, kBot, "default"));
  EXPECT_TRUE(is_direct_room(state, "!r:hs.test"));
  auto batch = parse_sync(sync_answer("s2", {{"!r:hs.test", room(json::array(), {member("@bob:hs.test", "invite"),
                                                                                  text_event("$2", "@alice:hs.test", "hi all")})}}),
                          state, kBot, "default");
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->messages.size(), 1u);
  EXPECT_TRUE(batch->messages[0].is_group);
  EXPECT_TRUE(batch->messages[0].channel_peer);  // OpenClaw keys Matrix rooms as "channel" peers
  // Bob leaves: a DM again. m.direct marks a room direct whatever its size.
  ASSERT_TRUE(parse_sync(sync_answer("s3", {{"!r:hs.test", room(json::array(), json::array({member("@bob:hs.test", "leave")}))}}), state, kBot, "d"));
  EXPECT_TRUE(is_direct_room(state, "!r:hs.test"));
  json direct = {{"next_batch", "s4"},
                 {"account_data", {{"events", {{{"type", "m.direct"}, {"content", {{"@carol:hs.test", {"!big:hs.test"}}}}}}}}}};
  ASSERT_TRUE(parse_sync(direct, state, kBot, "d"));
  EXPECT_TRUE(is_direct_room(state, "!big:hs.test"));
  // The state survives the state file.
  const SyncState back = sync_state_from_json(sync_state_to_json(state));
  EXPECT_TRUE(is_direct_room(back, "!r:hs.test"));
  EXPECT_TRUE(is_direct_room(back, "!big:hs.test"));
}

TEST(MatrixApi, OwnEventsEditsNoticesAndEncryptedEventsAreNotMessages) {
  SyncState state;
  json timeline = {text_event("$own", "@pincer:hs.test", "my reply"),
                   text_event("$edit", "@alice:hs.test", "* fixed", {{"m.relates_to", {{"rel_type", "m.replace"}, {"event_id", "$1"}}}}),
                   {{"type", "m.room.message"}, {"event_id", "$n"}, {"sender", "@bot2:hs.test"},
                    {"content", {{"msgtype", "m.notice"}, {"body", "beep"}}}},
                   {{"type", "m.room.encrypted"}, {"event_id", "$e"}, {"sender", "@alice:hs.test"}, {"content", {{"algorithm", "m.megolm.v1.aes-sha2"}}}},
                   {{"type", "m.room.encrypted"}, {"event_id", "$e2"}, {"sender", "@alice:hs.test"}, {"content", json::object()}}};
  auto batch = parse_sync(sync_answer("s1", {{"!r:hs.test", room(json::array(), timeline)}}), state, kBot, "default");
  ASSERT_TRUE(batch);
  EXPECT_TRUE(batch->messages.empty());
  ASSERT_EQ(batch->encrypted_rooms.size(), 1u);  // warned once per room
  EXPECT_EQ(batch->encrypted_rooms[0], "!r:hs.test");
}

TEST(MatrixApi, MessagesHandledBeforeAreNotHandedOnAgain) {
  SyncState state;
  remember_handled(state, "!r:hs.test", "$1");
  const json answer = sync_answer("s2", {{"!r:hs.test", room(json::array(), {text_event("$1", "@alice:hs.test", "old"),
                                                                             text_event("$2", "@alice:hs.test", "new")})}});
  auto batch = parse_sync(answer, state, kBot, "default");
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->messages.size(), 1u);
  EXPECT_EQ(batch->messages[0].message_id, "$2");
  EXPECT_EQ(batch->replays, 1);
  for (int i = 0; i < 150; ++i) remember_handled(state, "!r:hs.test", "$x" + std::to_string(i));
  EXPECT_EQ(state.rooms["!r:hs.test"].handled.size(), kRecentEvents);
  EXPECT_EQ(state.rooms["!r:hs.test"].handled.back(), "$x149");
  EXPECT_EQ(sync_state_from_json(sync_state_to_json(state)).rooms["!r:hs.test"].handled.size(), kRecentEvents);
}

TEST(MatrixApi, ThreadMessagesCarryTheThreadRoot) {
  SyncState state;
  json timeline = json::array({text_event("$t2", "@alice:hs.test", "in thread",
                                           {{"m.relates_to", {{"rel_type", "m.thread"}, {"event_id", "$root"}}}})});
  auto batch = parse_sync(sync_answer("s1", {{"!r:hs.test", room(json::array(), timeline)}}), state, kBot, "default");
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->messages.size(), 1u);
  EXPECT_EQ(batch->messages[0].thread_id, "$root");
}

TEST(MatrixApi, InvitesNameTheInviterAndAlias) {
  SyncState state;
  json invite_state = {{"events",
                        {{{"type", "m.room.member"}, {"state_key", "@pincer:hs.test"}, {"sender", "@alice:hs.test"},
                          {"content", {{"membership", "invite"}, {"is_direct", true}}}},
                         {{"type", "m.room.canonical_alias"}, {"state_key", ""}, {"content", {{"alias", "#ops:hs.test"}}}}}}};
  auto batch = parse_sync(sync_answer("s1", json::object(), {{"!inv:hs.test", {{"invite_state", invite_state}}}}), state, kBot, "d");
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->invites.size(), 1u);
  EXPECT_EQ(batch->invites[0].room_id, "!inv:hs.test");
  EXPECT_EQ(batch->invites[0].inviter, "@alice:hs.test");
  EXPECT_EQ(batch->invites[0].alias, "#ops:hs.test");
  EXPECT_TRUE(batch->invites[0].is_direct);

  MatrixSettings s;
  EXPECT_FALSE(decide_auto_join(s, batch->invites[0]).join);  // OpenClaw's default: off
  s.auto_join = "always";
  EXPECT_TRUE(decide_auto_join(s, batch->invites[0]).join);
  s.auto_join = "allowlist";
  EXPECT_FALSE(decide_auto_join(s, batch->invites[0]).join);
  for (const std::string entry : {"#ops:hs.test", "!inv:hs.test", "@alice:hs.test", "*"}) {
    s.auto_join_allowlist = {entry};
    EXPECT_TRUE(decide_auto_join(s, batch->invites[0]).join) << entry;
  }
}

TEST(MatrixApi, SyncAnswerWithoutNextBatchIsAProtocolError) {
  SyncState state;
  auto batch = parse_sync(json{{"rooms", json::object()}}, state, kBot, "d");
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().code, "PROTOCOL");
}

TEST(MatrixApi, MentionDetection) {
  // Intentional mentions decide when present.
  EXPECT_TRUE(mentions_user({{"body", "hey"}, {"m.mentions", {{"user_ids", {"@pincer:hs.test"}}}}}, kBot));
  EXPECT_FALSE(mentions_user({{"body", "Pincer, hey"}, {"m.mentions", json::object()}}, kBot));
  // Older clients: the user id, the display name as a word, or a matrix.to pill.
  EXPECT_TRUE(mentions_user({{"body", "@pincer:hs.test what time is it"}}, kBot));
  EXPECT_TRUE(mentions_user({{"body", "pincer: what time is it"}}, kBot));
  EXPECT_TRUE(mentions_user({{"body", "hi"}, {"formatted_body", "<a href=\"https://matrix.to/#/@pincer:hs.test\">P</a> hi"}}, kBot));
  EXPECT_FALSE(mentions_user({{"body", "pincers are claws"}}, kBot));
  EXPECT_FALSE(mentions_user({{"body", "just talking"}}, kBot));
}

TEST(MatrixApi, ContentsOfRepliesEditsAndThreadReplies) {
  const json c = text_content("**hi** <b>", "");
  EXPECT_EQ(c["msgtype"], "m.text");
  EXPECT_EQ(c["body"], "hi <b>");
  EXPECT_EQ(c["format"], "org.matrix.custom.html");
  EXPECT_EQ(c["formatted_body"], "<p><strong>hi</strong> &lt;b&gt;</p>");
  EXPECT_FALSE(c.contains("m.relates_to"));

  const json t = text_content("ok", "$root");
  EXPECT_EQ(t["m.relates_to"]["rel_type"], "m.thread");
  EXPECT_EQ(t["m.relates_to"]["event_id"], "$root");

  const json e = edit_content("$orig", "new *text*");
  EXPECT_EQ(e["body"], "* new text");
  EXPECT_EQ(e["m.relates_to"]["rel_type"], "m.replace");
  EXPECT_EQ(e["m.relates_to"]["event_id"], "$orig");
  EXPECT_EQ(e["m.new_content"]["body"], "new text");
  EXPECT_EQ(e["m.new_content"]["formatted_body"], "<p>new <em>text</em></p>");
}

TEST(MatrixApi, ErrorsAndRateLimits) {
  EXPECT_FALSE(parse_error(200, json::object()));
  auto e = parse_error(429, {{"errcode", "M_LIMIT_EXCEEDED"}, {"error", "Too many requests"}, {"retry_after_ms", 2500}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->retry_after_ms, 2500);
  EXPECT_EQ(error_text(*e), "M_LIMIT_EXCEEDED: Too many requests (HTTP 429)");
  auto h = parse_error(429, json(), 3);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->retry_after_ms, 3000);
  EXPECT_EQ(error_text(*h), "HTTP 429");
}

TEST(MatrixApi, PathsAreEncoded) {
  EXPECT_EQ(encode_uri_component("!abc:hs.test"), "%21abc%3Ahs.test");
  EXPECT_EQ(encode_uri_component("$ev/x"), "%24ev%2Fx");
  const std::string p = sync_path("s 1", 30000);
  EXPECT_NE(p.find("&timeout=30000"), std::string::npos);
  EXPECT_NE(p.find("&since=s%201"), std::string::npos);
  EXPECT_EQ(sync_path("", 0).find("since"), std::string::npos);
}

TEST(MatrixSettings, RequiredKeysAndClearErrors) {
  pincer::channels::ChannelAccount spec{"matrix", "default", "channels.matrix", json::object()};
  auto s = matrix_settings_of(spec, "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("channels.matrix.homeserver: required"), std::string::npos);
  spec.config = {{"homeserver", "matrix.example.org"}, {"accessToken", "t"}};
  s = matrix_settings_of(spec, "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("must be an http(s) URL"), std::string::npos);
  spec.config = {{"homeserver", "https://matrix.example.org"}, {"accessToken", "syt_x"}, {"autoJoin", "sometimes"}};
  s = matrix_settings_of(spec, "/state");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("channels.matrix.autoJoin"), std::string::npos);
  spec.config = {{"homeserver", "https://matrix.example.org"}, {"accessToken", "syt_x"}, {"userId", "@bot:example.org"}};
  s = matrix_settings_of(spec, "/state");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->auto_join, "off");
  EXPECT_EQ(s->state_file, "/state/channels/matrix/default.json");
}

TEST(MatrixSettings, EnvReferencesPassTheFormatChecks) {
  // `pincer config set` checks the file with "${NAME}" kept unexpanded: the gateway expands them.
  pincer::channels::ChannelAccount spec{
      "matrix", "work", "channels.matrix.accounts.work",
      {{"homeserver", "${MATRIX_HOMESERVER}"}, {"accessToken", "${MATRIX_ACCESS_TOKEN}"}, {"userId", "${MATRIX_USER}"}}};
  auto s = matrix_settings_of(spec, "/state");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->config_path, "channels.matrix.accounts.work");  // named in a refused-token reason
  spec.config["homeserver"] = "${lower}";  // not a reference: checked as a URL
  EXPECT_FALSE(matrix_settings_of(spec, "/state"));
}
