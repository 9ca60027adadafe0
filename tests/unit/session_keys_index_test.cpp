// Session keys and the sessions.json index (SS-1..SS-3, openclaw-protocol.md §5): agent id and
// session key normalisation, parsing and classification, session id validation, and the index file
// itself — OpenClaw's layout, byte-for-byte round trips of a hand-written OpenClaw file, merge
// rules, caching, legacy key migration, corrupt and invalid files, and JavaScript number output.
// The transcripts are in transcript_test.cpp; shared helpers in store_test_support.h.
#include <regex>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "store/session_index.h"
#include "store/session_keys.h"
#include "store_test_support.h"

namespace pincer::store::session_keys_index_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using store_test_support::kArchiveTs;
using store_test_support::mode_of;
using store_test_support::read_checked;
using store_test_support::spit;
using store_test_support::TempDir;

// =============================================================================================
// Session keys
// =============================================================================================

TEST(SessionKeys, NormalizeAgentId) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"", "main"},           {"   ", "main"},        {"main", "main"},          {"Main", "main"},
      {"  Ops  ", "ops"},     {"a_b-c9", "a_b-c9"},   {"My Agent!", "my-agent"}, {"a  b", "a-b"},
      {"--x--", "x"},         {"@@@", "main"},        {"Zoë", "zo"},             {"a/b\\c", "a-b-c"},
      {"-a", "a"},            {std::string(65, 'a'), std::string(64, 'a')},
  };
  for (const auto& [in, out] : table) EXPECT_EQ(normalize_agent_id(in), out) << '"' << in << '"';
  EXPECT_EQ(normalize_account_id(""), "default");
  EXPECT_EQ(normalize_account_id("Work Acct"), "work-acct");
  EXPECT_EQ(normalize_main_key(""), "main");
  EXPECT_EQ(normalize_main_key(" Global "), "global");
}

TEST(SessionKeys, ToAgentStoreSessionKey) {
  struct Row {
    std::string agent, request, main_key, expected;
  };
  const std::vector<Row> table = {
      {"main", "", "main", "agent:main:main"},
      {"main", "   ", "main", "agent:main:main"},
      {"main", "main", "main", "agent:main:main"},
      {"main", "MAIN", "main", "agent:main:main"},
      {"Ops", "main", "main", "agent:ops:main"},
      {"main", "", "global", "agent:main:global"},
      {"main", "Agent:Ops:Telegram:Direct:42", "main", "agent:ops:telegram:direct:42"},
      {"main", "discord:group:987", "main", "agent:main:discord:group:987"},
      {"ops", "hook:ABC-123", "main", "agent:ops:hook:abc-123"},
      {"My Bot", "subagent:X", "main", "agent:my-bot:subagent:x"},
  };
  for (const auto& row : table) {
    EXPECT_EQ(to_agent_store_session_key(row.agent, row.request, row.main_key), row.expected) << row.request;
  }
  EXPECT_EQ(agent_main_session_key("Ops"), "agent:ops:main");
}

TEST(SessionKeys, ParseAndClassify) {
  auto p = parse_agent_session_key("agent:main:main");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->agent_id, "main");
  EXPECT_EQ(p->rest, "main");
  p = parse_agent_session_key("  AGENT:Ops:Telegram:Direct:42  ");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->agent_id, "ops");
  EXPECT_EQ(p->rest, "telegram:direct:42");
  p = parse_agent_session_key("agent::main::x");  // empty parts dropped
  ASSERT_TRUE(p);
  EXPECT_EQ(p->agent_id, "main");
  EXPECT_EQ(p->rest, "x");
  for (const char* bad : {"", "agent", "agent:main", "agent:main:", "foo:bar:baz", "main"}) {
    EXPECT_FALSE(parse_agent_session_key(bad)) << bad;
  }

  const std::vector<std::pair<std::string, SessionKeyShape>> shapes = {
      {"", SessionKeyShape::Missing},
      {"  ", SessionKeyShape::Missing},
      {"agent:main:main", SessionKeyShape::Agent},
      {"agent:main:cron:job:run:abc", SessionKeyShape::Agent},
      {"agent:main", SessionKeyShape::MalformedAgent},
      {"Agent:x:", SessionKeyShape::MalformedAgent},
      {"main", SessionKeyShape::LegacyOrAlias},
      {"telegram:direct:123", SessionKeyShape::LegacyOrAlias},
  };
  for (const auto& [key, shape] : shapes) EXPECT_EQ(classify_session_key_shape(key), shape) << key;
  EXPECT_EQ(to_string(SessionKeyShape::MalformedAgent), "malformed_agent");
  EXPECT_EQ(to_string(SessionKeyShape::LegacyOrAlias), "legacy_or_alias");

  EXPECT_EQ(to_agent_request_session_key("agent:main:discord:group:9"), "discord:group:9");
  EXPECT_EQ(to_agent_request_session_key(" legacy "), "legacy");
  EXPECT_EQ(agent_id_from_session_key("agent:Ops:x"), "ops");
  EXPECT_EQ(agent_id_from_session_key("whatever"), "main");
  EXPECT_EQ(canonical_store_key("  Agent:Main:Foo "), "agent:main:foo");
}

TEST(SessionKeys, SessionIdValidation) {
  for (const std::string& good : std::vector<std::string>{"0e2df3ef-c92b-4471-9b25-18cce4418810", "abc", "ABC", "a.b_c-d", "9",
                                 std::string(128, 'a')}) {
    EXPECT_TRUE(is_valid_session_id(good)) << good;
  }
  for (const std::string& bad : std::vector<std::string>{"", ".a", "-a", "_a", "a/b", "../x", "a b", "a:b", std::string(129, 'a'), "é"}) {
    EXPECT_FALSE(is_valid_session_id(bad)) << bad;
  }
}

// =============================================================================================
// sessions.json
// =============================================================================================

// Written the way OpenClaw writes it: JSON.stringify(store, null, 2), no trailing newline. Extra
// fields Pincer does not interpret, nested objects, arrays, null, floats in JavaScript's notation
// (0.00001, not 1e-05), escapes, non-ASCII text and an entry whose fields are not in the usual order.
const std::string kOpenClawIndex = R"({
  "agent:main:main": {
    "sessionId": "0e2df3ef-c92b-4471-9b25-18cce4418810",
    "updatedAt": 1770000000000,
    "systemSent": true,
    "abortedLastRun": false,
    "chatType": "direct",
    "thinkingLevel": "high",
    "modelProvider": "anthropic",
    "model": "claude-sonnet-4",
    "inputTokens": 12034,
    "outputTokens": 981,
    "totalTokens": 13015,
    "totalTokensFresh": true,
    "estimatedCostUsd": 0.00001,
    "temperatureHint": 1.5,
    "tinyRatio": 1.5e-7,
    "hugeCount": 1e+21,
    "origin": {
      "label": "Zoë 🦀 \"quoted\" \\ back",
      "provider": "telegram",
      "surface": "telegram",
      "chatType": "direct",
      "from": "telegram:123",
      "threadId": null
    },
    "deliveryContext": {
      "channel": "telegram",
      "to": "123",
      "accountId": "default"
    },
    "cliSessionIds": {},
    "skillsSnapshot": {
      "prompt": "line1\nline2\ttab \u0001",
      "skills": [
        {
          "name": "weather",
          "requiredEnv": []
        },
        {
          "name": "notes"
        }
      ]
    }
  },
  "agent:main:telegram:group:-100123": {
    "updatedAt": 1769999999000,
    "sessionFile": "/home/u/.openclaw/agents/main/sessions/5b1c-topic-42.jsonl",
    "sessionId": "5b1c",
    "groupActivation": "mention",
    "queueMode": "collect",
    "queueCap": 20,
    "label": "Team chat"
  }
})";

struct IndexFixture : ::testing::Test {
  TempDir dir;
  ManualClock clock{1'780'000'000'000};
  fs::path file = session_index_path(dir.path(), "main");
};

TEST_F(IndexFixture, PathsFollowOpenClawLayout) {
  EXPECT_EQ(session_index_path("/s", "Main"), fs::path("/s/agents/main/sessions/sessions.json"));
  EXPECT_EQ(sessions_dir("/s", "My Bot"), fs::path("/s/agents/my-bot/sessions"));
}

TEST_F(IndexFixture, OpenClawFileRoundTripsByteForByte) {
  spit(file, kOpenClawIndex);
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_EQ(index.size(), 2u);
  EXPECT_FALSE(index.dirty());
  EXPECT_EQ(index.serialize(), kOpenClawIndex);

  const SessionEntry* main = index.get("agent:main:main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->session_id(), "0e2df3ef-c92b-4471-9b25-18cce4418810");
  EXPECT_EQ(main->updated_at(), 1770000000000);
  EXPECT_FALSE(main->session_file());
  ASSERT_NE(main->field("origin"), nullptr);
  EXPECT_EQ(main->field("origin")->at("from"), "telegram:123");

  const SessionEntry* group = index.get("AGENT:MAIN:TELEGRAM:GROUP:-100123");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->session_file().value_or(""), "/home/u/.openclaw/agents/main/sessions/5b1c-topic-42.jsonl");

  // A forced rewrite (the file is gone) produces the same bytes; the file is private.
  ASSERT_TRUE(index.upsert("agent:main:main", {{"label", "x"}}, {MergePolicy::PreserveActivity, {}}).ok());
  ASSERT_TRUE(index.upsert("agent:main:main", OrderedJson::object(),
                           {MergePolicy::PreserveActivity, {"label"}}).ok());
  fs::remove(file);
  ASSERT_TRUE(index.save().ok());
  EXPECT_EQ(read_checked(file), kOpenClawIndex);
  EXPECT_EQ(mode_of(file), 0600u);
}

TEST_F(IndexFixture, UpdatingOneEntryLeavesTheOthersUntouched) {
  spit(file, kOpenClawIndex);
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_TRUE(index.upsert("agent:main:telegram:group:-100123", {{"inputTokens", 5}}).ok());
  ASSERT_TRUE(index.save().ok());
  const std::string text = read_checked(file);
  const std::string main_block = kOpenClawIndex.substr(0, kOpenClawIndex.find("  \"agent:main:telegram"));
  EXPECT_EQ(text.substr(0, main_block.size()), main_block);
  EXPECT_NE(text.find("\"updatedAt\": 1780000000000,\n    \"sessionFile\""), std::string::npos)
      << "existing keys keep their position:\n" << text;
  EXPECT_NE(text.find("\"label\": \"Team chat\",\n    \"inputTokens\": 5\n  }\n}"), std::string::npos) << text;
}

TEST_F(IndexFixture, MergeRules) {
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());

  // New entry: a UUID session id, updatedAt = now.
  auto created = index.upsert("Agent:Main:Foo", {{"channel", "irc"}});
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(std::regex_match(created->session_id(), std::regex("^[0-9a-f-]{36}$")));
  EXPECT_EQ(created->updated_at(), clock.wall_ms());
  EXPECT_EQ(created->json().begin().key(), "channel") << "{...patch, sessionId, updatedAt}";
  ASSERT_NE(index.get("agent:main:foo"), nullptr) << "keys are canonical lowercase";

  // updatedAt = max(existing, patch, now).
  const int64_t t0 = clock.wall_ms();
  EXPECT_EQ(index.upsert("agent:main:foo", {{"updatedAt", t0 - 5000}})->updated_at(), t0);
  EXPECT_EQ(index.upsert("agent:main:foo", {{"updatedAt", t0 + 5000}})->updated_at(), t0 + 5000);
  clock.advance(60'000);
  EXPECT_EQ(index.upsert("agent:main:foo", {{"x", 1}})->updated_at(), t0 + 60'000);
  // preserve-activity keeps it.
  clock.advance(60'000);
  EXPECT_EQ(index.upsert("agent:main:foo", {{"x", 2}}, {MergePolicy::PreserveActivity, {}})->updated_at(),
            t0 + 60'000);

  // sessionId is kept unless the patch gives one.
  const std::string sid = index.get("agent:main:foo")->session_id();
  EXPECT_EQ(index.upsert("agent:main:foo", {{"y", true}})->session_id(), sid);
  EXPECT_EQ(index.upsert("agent:main:foo", {{"sessionId", "next-one"}})->session_id(), "next-one");

  // Changing the model without its provider drops the stale provider.
  ASSERT_TRUE(index.upsert("agent:main:foo", {{"model", "gpt-4.1"}, {"modelProvider", "openai"}}).ok());
  EXPECT_NE(index.upsert("agent:main:foo", {{"model", "gpt-4.1"}})->field("modelProvider"), nullptr);
  EXPECT_EQ(index.upsert("agent:main:foo", {{"model", "claude"}})->field("modelProvider"), nullptr);
  EXPECT_NE(index.upsert("agent:main:foo", {{"model", "o3"}, {"modelProvider", "openai"}})->field("modelProvider"),
            nullptr);

  // Field removal; required fields cannot be removed.
  auto removed = index.upsert("agent:main:foo", OrderedJson::object(), {MergePolicy::TouchActivity,
                                                                        {"x", "sessionId", "updatedAt"}});
  EXPECT_EQ(removed->field("x"), nullptr);
  EXPECT_NE(removed->field("sessionId"), nullptr);
  EXPECT_NE(removed->field("updatedAt"), nullptr);

  // Invalid patches.
  EXPECT_EQ(index.upsert("agent:main:foo", {{"sessionId", ""}}).error().code, "SESSIONS_INVALID");
  EXPECT_EQ(index.upsert("agent:main:foo", {{"updatedAt", "yesterday"}}).error().code, "SESSIONS_INVALID");
  EXPECT_EQ(index.upsert("agent:main:foo", OrderedJson::array()).error().code, "SESSIONS_INVALID");
  EXPECT_EQ(index.upsert("  ", OrderedJson::object()).error().code, "SESSIONS_INVALID");
}

TEST_F(IndexFixture, SaveLoadRemoveAndList) {
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_TRUE(index.upsert("agent:main:a", {{"updatedAt", 1}}).ok());
  clock.advance(10);
  ASSERT_TRUE(index.upsert("agent:main:b", OrderedJson::object()).ok());
  clock.advance(10);
  ASSERT_TRUE(index.upsert("agent:main:c", OrderedJson::object()).ok());
  EXPECT_TRUE(index.dirty());
  ASSERT_TRUE(index.save().ok());
  EXPECT_FALSE(index.dirty());
  EXPECT_EQ(mode_of(file), 0600u);

  SessionIndex again(file, clock);
  ASSERT_TRUE(again.load().ok());
  const auto listed = again.list();
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].key, "agent:main:c");
  EXPECT_EQ(listed[1].key, "agent:main:b");
  EXPECT_EQ(listed[2].key, "agent:main:a");
  EXPECT_EQ(again.serialize(), read_checked(file));

  EXPECT_TRUE(again.remove("AGENT:MAIN:B"));
  EXPECT_FALSE(again.remove("agent:main:b"));
  ASSERT_TRUE(again.save().ok());
  SessionIndex third(file, clock);
  ASSERT_TRUE(third.load().ok());
  EXPECT_EQ(third.size(), 2u);
  EXPECT_EQ(third.get("agent:main:b"), nullptr);
}

TEST_F(IndexFixture, LoadIsCachedUntilTheFileChanges) {
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_TRUE(index.upsert("agent:main:a", OrderedJson::object()).ok());
  ASSERT_TRUE(index.save().ok());
  ASSERT_TRUE(index.upsert("agent:main:unsaved", OrderedJson::object()).ok());
  ASSERT_TRUE(index.load().ok());  // unchanged on disk: nothing re-read, the unsaved entry stays
  EXPECT_NE(index.get("agent:main:unsaved"), nullptr);

  spit(file, R"({"agent:main:other": {"sessionId": "s2", "updatedAt": 5}})");  // another writer
  ASSERT_TRUE(index.load().ok());
  EXPECT_EQ(index.size(), 1u);
  EXPECT_NE(index.get("agent:main:other"), nullptr);
}

TEST_F(IndexFixture, LegacyMixedCaseKeysAreMigrated) {
  spit(file, R"({
  "agent:main:Telegram:Direct:42": {"sessionId": "old", "updatedAt": 100},
  "agent:main:telegram:direct:42": {"sessionId": "new", "updatedAt": 200},
  "Agent:Main:Other": {"sessionId": "o", "updatedAt": 1}
})");
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  EXPECT_TRUE(index.dirty());
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.get("agent:main:telegram:direct:42")->session_id(), "new");
  ASSERT_TRUE(index.save().ok());
  const std::string text = read_checked(file);
  EXPECT_EQ(text.find("Telegram"), std::string::npos);
  EXPECT_NE(text.find("\"agent:main:other\""), std::string::npos);
}

TEST_F(IndexFixture, EmptyOrMissingFileIsAnEmptyIndex) {
  SessionIndex missing(file, clock);
  ASSERT_TRUE(missing.load().ok());
  EXPECT_EQ(missing.size(), 0u);
  EXPECT_EQ(missing.serialize(), "{}");
  spit(file, " \n");
  SessionIndex blank(file, clock);
  ASSERT_TRUE(blank.load().ok());
  EXPECT_EQ(blank.size(), 0u);
}

TEST_F(IndexFixture, CorruptFileIsAnErrorWithLineAndColumnAndIsNeverOverwritten) {
  const std::string corrupt = "{\n  \"agent:main:main\": {\n    \"sessionId\": \"abc\",,\n  }\n}";
  spit(file, corrupt);
  SessionIndex index(file, clock);
  auto loaded = index.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, "SESSIONS_CORRUPT");
  EXPECT_NE(loaded.error().message.find(file.string() + ":3:24: "), std::string::npos) << loaded.error().message;

  // No silent loss: writing is refused until the caller quarantines the file.
  EXPECT_EQ(index.upsert("agent:main:x", OrderedJson::object()).error().code, "SESSIONS_UNAVAILABLE");
  EXPECT_EQ(index.save().error().code, "SESSIONS_UNAVAILABLE");
  EXPECT_FALSE(index.load().ok()) << "still corrupt on a retry";
  EXPECT_EQ(read_checked(file), corrupt);

  auto moved = index.quarantine();
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  const std::string name = moved->filename().string();
  ASSERT_EQ(name.rfind("sessions.json.corrupt.", 0), 0u) << name;
  EXPECT_TRUE(std::regex_match(name.substr(std::string("sessions.json.corrupt.").size()), kArchiveTs)) << name;
  EXPECT_EQ(read_checked(*moved), corrupt);
  EXPECT_FALSE(fs::exists(file));
  ASSERT_TRUE(index.upsert("agent:main:x", OrderedJson::object()).ok());
  ASSERT_TRUE(index.save().ok());
  EXPECT_TRUE(fs::exists(file));
}

TEST_F(IndexFixture, InvalidEntriesAreErrorsNamingTheKey) {
  spit(file, R"({"agent:main:a": {"updatedAt": 1}})");
  SessionIndex index(file, clock);
  auto loaded = index.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, "SESSIONS_INVALID");
  EXPECT_NE(loaded.error().message.find("agent:main:a"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("sessionId"), std::string::npos);

  spit(file, "[1, 2]");
  EXPECT_EQ(index.load().error().code, "SESSIONS_CORRUPT");
  spit(file, std::string(600, '[') + std::string(600, ']'));
  EXPECT_EQ(index.load().error().code, "SESSIONS_CORRUPT");
}

TEST_F(IndexFixture, NumbersAreWrittenAsJavaScriptWritesThem) {
  SessionIndex index(file, clock);
  ASSERT_TRUE(index.load().ok());
  OrderedJson patch = OrderedJson::object();
  patch["a"] = 0.1;
  patch["b"] = 1e-7;
  patch["c"] = 0.000001;
  patch["d"] = 1e21;
  patch["e"] = 123456789012345680000.0;
  patch["f"] = -2.5;
  patch["g"] = 1.7976931348623157e308;
  patch["h"] = 5e-324;
  patch["i"] = -0.0;
  patch["j"] = 100.0;
  ASSERT_TRUE(index.upsert("agent:main:n", patch).ok());
  const std::string text = index.serialize();
  for (const char* expected :
       {"\"a\": 0.1,", "\"b\": 1e-7,", "\"c\": 0.000001,", "\"d\": 1e+21,", "\"e\": 123456789012345680000,",
        "\"f\": -2.5,", "\"g\": 1.7976931348623157e+308,", "\"h\": 5e-324,", "\"i\": 0,", "\"j\": 100,"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
}

}  // namespace
}  // namespace pincer::store::session_keys_index_test
