// `pincer import openclaw` from OpenClaw 2026.9's SQLite state (cli/openclaw_import_sqlite.h):
// a fixture database built here with the CREATE TABLE statements of OpenClaw's own schema
// (session_nodes, transcript_events, auth_profile_store/_state, cron_jobs), one zstd row among
// the transcript events; then read_agent_db/read_cron_jobs, a corrupt row, and run_import end to
// end (dry-run counts, the written files read back by Pincer's readers, the source untouched).
#include "cli/openclaw_import_sqlite.h"

#include <sqlite3.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <fstream>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "automation/cron_store.h"
#include "core/clock.h"
#include "core/ids.h"
#include "store/session_index.h"
#include "store/transcript.h"
#include "test_helpers.h"

namespace pincer::cli::openclaw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

class SqliteHome {
 public:
  SqliteHome() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    root_ = fs::temp_directory_path() / ("pincer-import-sqlite-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(rd()));
    fs::create_directories(root_ / "openclaw" / "agents" / "main" / "agent");
    fs::create_directories(root_ / "openclaw" / "state");
  }
  ~SqliteHome() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path source() const { return root_ / "openclaw"; }
  fs::path target() const { return root_ / "pincer"; }
  fs::path agent_db() const { return source() / "agents" / "main" / "agent" / "openclaw-agent.sqlite"; }
  fs::path state_db() const { return source() / "state" / "openclaw.sqlite"; }

 private:
  fs::path root_;
};

// The tables as OpenClaw 2026.9.6 creates them (copied from a database its gateway wrote).
constexpr const char* kAgentSchema = R"SQL(
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT, entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL, status TEXT, created_at INTEGER, created_via TEXT, created_actor_type TEXT,
  created_actor_id TEXT, owner_actor_type TEXT, owner_actor_id TEXT, owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT, owner_assigned_at INTEGER, project_id TEXT, parent_session_key TEXT, spawned_by TEXT,
  fork_source_session_key TEXT, fork_source_session_id TEXT, fork_source_entry_id TEXT, label TEXT,
  display_name TEXT, category TEXT, icon TEXT, pinned_at INTEGER, archived_at INTEGER, last_read_at INTEGER,
  last_interaction_at INTEGER, last_activity_at INTEGER
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0), navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  CHECK ((event_json IS NOT NULL AND event_zstd IS NULL) OR (event_json IS NULL AND event_zstd IS NOT NULL
    AND event_utf8_bytes IS NOT NULL AND event_utf8_bytes BETWEEN 1 AND 4194304
    AND length(event_zstd) BETWEEN 1 AND 4194304 AND navigation_json IS NOT NULL))
) STRICT;
CREATE TABLE session_transcript_archives (
  session_id TEXT NOT NULL, generation TEXT NOT NULL, session_key TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')), encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob BLOB NOT NULL, archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64), archive_name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL, published_at INTEGER, publish_attempts INTEGER NOT NULL DEFAULT 0 CHECK (publish_attempts >= 0),
  last_publish_attempt_at INTEGER, last_publish_error TEXT, PRIMARY KEY (session_id, generation)
) STRICT;
CREATE TABLE session_transcript_cold_archives (
  session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL, archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64), event_count INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes INTEGER NOT NULL CHECK (raw_bytes >= 0), archive_bytes INTEGER NOT NULL CHECK (archive_bytes >= 0),
  last_seq INTEGER NOT NULL, archived_at INTEGER NOT NULL, storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')),
  archive_blob BLOB,
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR (storage = 'sqlite' AND archive_blob IS NOT NULL))
) STRICT;
CREATE TABLE auth_profile_store (store_key TEXT NOT NULL PRIMARY KEY, store_json TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE TABLE auth_profile_state (state_key TEXT NOT NULL PRIMARY KEY, state_json TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT;
)SQL";

constexpr const char* kStateSchema = R"SQL(
CREATE TABLE config_machine_state (state_key TEXT NOT NULL PRIMARY KEY, value_json TEXT NOT NULL, updated_at_ms INTEGER NOT NULL) STRICT;
CREATE TABLE cron_jobs (
  store_key TEXT NOT NULL, job_id TEXT NOT NULL, declaration_key TEXT, owner_agent_id TEXT, name TEXT NOT NULL,
  description TEXT, enabled INTEGER NOT NULL, agent_id TEXT, payload_kind TEXT NOT NULL, job_json TEXT NOT NULL,
  grant_definition_revision TEXT, grant_definition_generation INTEGER, grant_definition_updated_at INTEGER,
  state_json TEXT NOT NULL DEFAULT '{}', runtime_updated_at_ms INTEGER, schedule_identity TEXT,
  sort_order INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL, PRIMARY KEY (store_key, job_id)
) STRICT;
)SQL";

class Sql {
 public:
  explicit Sql(const fs::path& file) { EXPECT_EQ(sqlite3_open(file.c_str(), &db_), SQLITE_OK); }
  ~Sql() { sqlite3_close(db_); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
  }
  void event(const std::string& session, int seq, const std::string& event, bool compress) {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_,
                                 "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, "
                                 "event_utf8_bytes, navigation_json) VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6)",
                                 -1, &st, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, session.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, seq);
    std::string frame;
    if (compress) {
      frame.resize(ZSTD_compressBound(event.size()));
      frame.resize(ZSTD_compress(frame.data(), frame.size(), event.data(), event.size(), 1));
      sqlite3_bind_null(st, 3);
      sqlite3_bind_blob(st, 4, frame.data(), static_cast<int>(frame.size()), SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 5, static_cast<sqlite3_int64>(event.size()));
      sqlite3_bind_text(st, 6, R"({"version":1,"report":{"kind":"canonical"}})", -1, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_text(st, 3, event.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_null(st, 4);
      sqlite3_bind_int64(st, 5, static_cast<sqlite3_int64>(event.size()));
      sqlite3_bind_null(st, 6);
    }
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE) << sqlite3_errmsg(db_);
    sqlite3_finalize(st);
  }
  // A row of session_transcript_cold_archives for `archive` (zstd bytes); "sqlite" storage keeps
  // them in archive_blob, "file" only records them.
  void cold(const std::string& session, const std::string& archive, int events, const std::string& storage) {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_,
                                 "INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, "
                                 "archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage, "
                                 "archive_blob) VALUES (?1, 'g1', ?2, ?3, ?4, 1, ?5, ?4, 1, ?6, ?7)",
                                 -1, &st, nullptr),
              SQLITE_OK);
    const std::string sha = ids::sha256_hex(archive);
    const std::string name = sha + ".jsonl.zst";
    sqlite3_bind_text(st, 1, session.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, sha.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, events);
    sqlite3_bind_int64(st, 5, static_cast<sqlite3_int64>(archive.size()));
    sqlite3_bind_text(st, 6, storage.c_str(), -1, SQLITE_TRANSIENT);
    if (storage == "sqlite") {
      sqlite3_bind_blob(st, 7, archive.data(), static_cast<int>(archive.size()), SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(st, 7);
    }
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE) << sqlite3_errmsg(db_);
    sqlite3_finalize(st);
  }

 private:
  sqlite3* db_ = nullptr;
};

const std::string kLong = "long " + std::string(3000, 'x');

// main: a subagent session (spawned_by column, no transcript) and agent:main:main (labelled) with header v4, 2 messages, one compressed;
// an auth profile with a cooldown; the state db: two cron jobs.
void fill(const SqliteHome& home) {
  Sql a(home.agent_db());
  a.exec(kAgentSchema);
  a.exec(R"(INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, label, spawned_by) VALUES
    ('agent:main:main', 's-1', '{"sessionId":"s-1","updatedAt":5,"thinkingLevel":"low","inputTokens":12}', 5, 'daily', NULL),
    ('agent:main:subagent:x1', 's-2', '{"sessionId":"s-2","updatedAt":6}', 6, NULL, 'agent:main:main'))");
  a.event("s-1", 0, R"({"type":"session","version":4,"id":"s-1","timestamp":"2026-12-05T07:18:26.474Z","cwd":"/w"})", false);
  a.event("s-1", 1, R"({"type":"message","id":"e1","parentId":null,"timestamp":"2026-12-05T07:18:27.000Z","message":{"role":"user","content":"hello"}})", false);
  a.event("s-1", 2, R"({"type":"message","id":"e2","parentId":"e1","timestamp":"2026-12-05T07:18:28.000Z","message":{"role":"assistant","content":[{"type":"text","text":")" + kLong + R"("}]}})", true);
  a.exec(R"(INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob,
    archive_sha256, archive_name, created_at) VALUES ('s-0', 'g1', 'agent:main:main', 'reset', 'identity', X'7B7D',
    '0000000000000000000000000000000000000000000000000000000000000000', 's-0.jsonl.reset.2026-12-04T10-00-00.000Z', 1))");
  a.exec(R"(INSERT INTO auth_profile_store VALUES ('primary', '{"version":1,"profiles":{"openai:default":{"type":"api_key","provider":"openai","key":"sk-test"}}}', 1))");
  a.exec(R"(INSERT INTO auth_profile_state VALUES ('primary', '{"usageStats":{"openai:default":{"cooldownUntil":99999999999999}}}', 1))");
  Sql s(home.state_db());
  s.exec(kStateSchema);
  s.exec(R"(INSERT INTO cron_jobs (store_key, job_id, name, enabled, payload_kind, job_json, state_json, sort_order, updated_at) VALUES
    ('/x/cron/jobs.json', 'job-b', 'water', 1, 'agentTurn', '{"id":"job-b","agentId":"main","name":"water","enabled":true,"createdAtMs":1,"updatedAtMs":1,"schedule":{"kind":"cron","expr":"0 9 * * *","tz":"UTC"},"sessionTarget":"isolated","wakeMode":"now","payload":{"kind":"agentTurn","message":"water the plants"},"state":{}}', '{"nextRunAtMs":1796461200000}', 1, 1),
    ('/x/cron/jobs.json', 'job-a', 'ping', 1, 'systemEvent', '{"id":"job-a","name":"ping","enabled":true,"createdAtMs":1,"updatedAtMs":1,"schedule":{"kind":"every","everyMs":60000},"sessionTarget":"main","wakeMode":"next-heartbeat","payload":{"kind":"systemEvent","text":"ping"}}', '{}', 0, 1))");
}

TEST(OpenClawSqlite, ReadsSessionsTranscriptsWithAZstdRowAndAuthProfiles) {
  SqliteHome home;
  fill(home);
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_TRUE(state) << state.error().message;
  ASSERT_EQ(state->sessions.size(), 2u);
  EXPECT_EQ(state->sessions["agent:main:subagent:x1"]["spawnedBy"], "agent:main:main");
  const auto& entry = state->sessions["agent:main:main"];
  EXPECT_EQ(entry["sessionId"], "s-1");
  EXPECT_EQ(entry["label"], "daily");
  EXPECT_EQ(entry["thinkingLevel"], "low");
  EXPECT_EQ(entry["inputTokens"], 12);
  EXPECT_FALSE(entry.contains("spawnedBy"));
  ASSERT_EQ(state->transcripts.size(), 1u);
  const auto& t = state->transcripts[0];
  EXPECT_EQ(t.events, 3u);
  EXPECT_EQ(t.messages, 2u);
  EXPECT_EQ(t.compressed, 1u);
  auto contents = store::parse_transcript(t.jsonl);
  EXPECT_TRUE(contents.warnings.empty());
  EXPECT_EQ(contents.version, 3);  // OpenClaw's v4 header, written as pi's v3
  ASSERT_EQ(contents.entries.size(), 2u);
  EXPECT_EQ(contents.entries[1].parent_id, "e1");
  EXPECT_THAT(contents.entries[1].raw.dump(), HasSubstr(kLong));
  ASSERT_TRUE(state->auth_profiles);
  EXPECT_EQ(state->auth_profile_count, 1u);
  EXPECT_EQ((*state->auth_profiles)["usageStats"]["openai:default"]["cooldownUntil"], 99999999999999);
  EXPECT_EQ(state->archived_transcripts, 1u);
  EXPECT_EQ(state->cold_transcripts, 0u);

  auto jobs = sqlite_state::read_cron_jobs(home.state_db());
  ASSERT_TRUE(jobs) << jobs.error().message;
  ASSERT_TRUE(*jobs);
  ASSERT_EQ((*jobs)->size(), 2u);
  EXPECT_EQ((**jobs)[0]["id"], "job-a");  // sort_order
  EXPECT_EQ((**jobs)[1]["state"]["nextRunAtMs"], 1796461200000);
}

TEST(OpenClawSqlite, ACorruptZstdRowIsAnErrorNamingTheTableAndRow) {
  SqliteHome home;
  fill(home);
  {
    Sql a(home.agent_db());
    a.exec("UPDATE transcript_events SET event_zstd = X'28B52FFD0000DEADBEEF' WHERE seq = 2");
  }
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().code, "SQLITE_INVALID");
  EXPECT_THAT(state.error().message, HasSubstr("transcript_events"));
  EXPECT_THAT(state.error().message, HasSubstr("session_id=s-1 seq=2"));
  auto wrong = sqlite_state::zstd_decode(std::string("abc"), 3, "here");
  EXPECT_FALSE(wrong);
}

TEST(OpenClawSqlite, ASessionIdThatIsNotAFileNameIsRefused) {
  SqliteHome home;
  fill(home);
  {
    Sql a(home.agent_db());
    a.event("../../escape", 0, R"({"type":"session","version":4,"id":"x"})", false);
  }
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_FALSE(state);
  EXPECT_THAT(state.error().message, HasSubstr("session_id is not a file name"));
}

std::string slurp_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ImportOptions options_for(const SqliteHome& home, bool dry_run) {
  ImportOptions o;
  o.source = home.source();
  o.target = home.target();
  o.dry_run = dry_run;
  o.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  o.now_ms = 1796455099598;
  return o;
}

TEST(OpenClawSqlite, ImportCountsWritesAndVerifiesWithoutTouchingTheSource) {
  SqliteHome home;
  fill(home);
  const std::string before = slurp_bytes(home.agent_db());
  fs::create_directories(home.source() / "workspace" / "memory");
  std::ofstream(home.source() / "workspace" / "MEMORY.md") << "# Memory\n";
  std::ofstream(home.source() / "workspace" / "memory" / "2026-12-05.md") << "- likes tea\n";

  auto dry = run_import(options_for(home, true));
  ASSERT_EQ(dry.exit_code, kExitOk) << (dry.error ? dry.error->message : "");
  EXPECT_EQ(dry.report.counts.at("sessions"), 2u);
  EXPECT_EQ(dry.report.counts.at("transcripts"), 1u);
  EXPECT_EQ(dry.report.counts.at("messages"), 2u);
  EXPECT_EQ(dry.report.counts.at("cron jobs"), 2u);
  EXPECT_EQ(dry.report.counts.at("auth profiles"), 1u);
  EXPECT_EQ(dry.report.counts.at("memory files"), 2u);
  EXPECT_THAT(to_text(dry), HasSubstr("1 archived transcript(s) of reset or deleted sessions are not imported"));
  EXPECT_THAT(to_text(dry), HasSubstr("cron jobs 2"));
  EXPECT_FALSE(fs::exists(home.target() / "agents"));

  auto out = run_import(options_for(home, false));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_TRUE(out.report.written);
  store::SessionIndex index(home.target() / "agents/main/sessions/sessions.json", SystemClock::instance());
  ASSERT_TRUE(index.load());
  EXPECT_EQ(index.size(), 2u);
  auto transcript = store::read_transcript(home.target() / "agents/main/sessions/s-1.jsonl");
  ASSERT_TRUE(transcript);
  EXPECT_EQ(transcript->entries.size(), 2u);
  automation::CronStore cron(home.target() / "cron", "");
  ASSERT_TRUE(cron.load());
  ASSERT_EQ(cron.jobs().size(), 2u);
  ASSERT_NE(cron.find("job-b"), nullptr);
  EXPECT_EQ(cron.find("job-b")->raw["schedule"]["expr"], "0 9 * * *");
  EXPECT_TRUE(fs::exists(home.target() / "agents/main/agent/auth-profiles.json"));
  EXPECT_EQ(fs::status(home.target() / "agents/main/agent/auth-profiles.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(slurp_bytes(home.target() / "workspace" / "memory" / "2026-12-05.md"), "- likes tea\n");
  EXPECT_EQ(slurp_bytes(home.agent_db()), before);  // read-only on the source
}

TEST(OpenClawSqlite, ACorruptRowFailsTheImportAndWritesNothing) {
  SqliteHome home;
  fill(home);
  {
    Sql s(home.state_db());
    s.exec("UPDATE cron_jobs SET job_json = '{not json' WHERE job_id = 'job-b'");
  }
  auto out = run_import(options_for(home, false));
  ASSERT_NE(out.exit_code, kExitOk);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "SQLITE_INVALID");
  EXPECT_THAT(out.error->message, HasSubstr("cron_jobs"));
  EXPECT_THAT(out.error->message, HasSubstr("job_id=job-b"));
  EXPECT_FALSE(fs::exists(home.target() / "agents"));
  EXPECT_FALSE(fs::exists(home.target() / "cron"));
}

TEST(OpenClawSqlite, WhatPincerWouldReadDifferentlyFailsTheImportBeforeInstalling) {
  SqliteHome home;
  fill(home);
  {
    Sql a(home.agent_db());  // an event repeating an id: Pincer's transcript reader would not keep both
    a.event("s-1", 3, R"({"type":"message","id":"e1","parentId":"e2","timestamp":"2026-12-05T07:18:29.000Z","message":{"role":"user","content":"again"}})", false);
  }
  auto dry = run_import(options_for(home, true));  // a dry run stages to a temporary dir and reads back too
  ASSERT_EQ(dry.exit_code, kExitFailed);
  ASSERT_TRUE(dry.error);
  EXPECT_EQ(dry.error->code, "IMPORT_MISMATCH");
  auto out = run_import(options_for(home, false));
  ASSERT_EQ(out.exit_code, kExitFailed);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "IMPORT_MISMATCH");
  EXPECT_THAT(out.error->message, HasSubstr("s-1.jsonl"));
  EXPECT_THAT(out.error->message, HasSubstr("nothing was imported"));
  EXPECT_FALSE(out.report.written);
  EXPECT_FALSE(fs::exists(home.target() / "agents"));
  EXPECT_FALSE(fs::exists(home.target() / "cron"));
  EXPECT_FALSE(fs::exists(home.target() / "workspace"));
}

TEST(OpenClawSqlite, RowsStillInTheWriteAheadLogAreRead) {
  SqliteHome home;
  fill(home);
  Sql live(home.agent_db());  // stays open: its last rows are only in openclaw-agent.sqlite-wal
  live.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0");
  live.event("s-1", 3, R"({"type":"message","id":"e3","parentId":"e2","timestamp":"2026-12-05T07:18:29.000Z","message":{"role":"user","content":"in the wal"}})", false);
  ASSERT_TRUE(fs::exists(home.agent_db().string() + "-wal"));
  const std::string wal = slurp_bytes(home.agent_db().string() + "-wal");
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_TRUE(state) << state.error().message;
  ASSERT_EQ(state->transcripts.size(), 1u);
  EXPECT_EQ(state->transcripts[0].messages, 3u);
  EXPECT_THAT(state->transcripts[0].jsonl, HasSubstr("in the wal"));
  EXPECT_EQ(slurp_bytes(home.agent_db().string() + "-wal"), wal);  // the source's log untouched
}

TEST(OpenClawSqlite, TheSharedAuthStoreServesAgentsWithoutTheirOwn) {
  SqliteHome home;
  fill(home);
  {
    Sql a(home.agent_db());
    a.exec("DELETE FROM auth_profile_store; DELETE FROM auth_profile_state");
    Sql s(home.state_db());  // as `openclaw models auth paste-api-key` writes it in 2026.9
    s.exec(R"(INSERT INTO config_machine_state VALUES
      ('auth.sharedStore', '{"location":"state-db"}', 1),
      ('authProfiles.store', '{"version":1,"profiles":{"openai:manual":{"type":"api_key","provider":"openai","key":"sk-shared"},"anthropic:manual":{"type":"api_key","provider":"anthropic","key":"sk-ant"}}}', 1),
      ('authProfiles.state', '{"lastGood":{"openai":"openai:manual"}}', 1))");
  }
  auto shared = sqlite_state::read_shared_auth(home.state_db());
  ASSERT_TRUE(shared) << shared.error().message;
  ASSERT_TRUE(*shared);
  EXPECT_EQ((**shared)["lastGood"]["openai"], "openai:manual");
  auto out = run_import(options_for(home, false));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_EQ(out.report.counts.at("auth profiles"), 2u);
  const json written = json::parse(slurp_bytes(home.target() / "agents/main/agent/auth-profiles.json"));
  EXPECT_EQ(written["profiles"]["openai:manual"]["key"], "sk-shared");
  EXPECT_EQ(written["lastGood"]["openai"], "openai:manual");
}

}  // namespace
}  // namespace pincer::cli::openclaw

namespace pincer::cli::openclaw {
namespace {

// OpenClaw's cold archive of `session`: the header record, then one "event" record per event
// (seq from 0), zstd-compressed.
std::string cold_archive(const std::string& session, const std::vector<std::string>& events) {
  std::string jsonl = json{{"kind", "header"}, {"version", 1}, {"sessionId", session}, {"generation", "g1"}}.dump() + "\n";
  for (std::size_t i = 0; i < events.size(); ++i) {
    jsonl += json{{"kind", "event"}, {"row", {{"seq", i}, {"event_json", events[i]}, {"created_at", 1}}}}.dump() + "\n";
    jsonl += json{{"kind", "identity"}, {"row", {{"event_id", "x" + std::to_string(i)}, {"seq", i}}}}.dump() + "\n";
  }
  std::string frame(ZSTD_compressBound(jsonl.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), jsonl.data(), jsonl.size(), 3));
  return frame;
}

const std::string kHeader = R"({"type":"session","version":4,"id":"c-1","timestamp":"2026-11-01T07:18:26.474Z","cwd":"/w"})";
const std::string kUser = R"({"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-01T07:18:27.000Z","message":{"role":"user","content":"cold hello"}})";
const std::string kAssistant = R"({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-01T07:18:28.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}})";

TEST(OpenClawSqliteCold, EventsInTheDatabasesArchiveJoinTheRowsStillInTranscriptEvents) {
  SqliteHome home;
  {
    Sql a(home.agent_db());
    a.exec(kAgentSchema);
    a.cold("c-1", cold_archive("c-1", {kHeader, kUser}), 2, "sqlite");
    a.event("c-1", 2, kAssistant, false);
  }
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_TRUE(state) << state.error().message;
  ASSERT_EQ(state->transcripts.size(), 1u);
  const auto& t = state->transcripts[0];
  EXPECT_EQ(t.events, 3u);
  EXPECT_EQ(t.messages, 2u);
  EXPECT_EQ(t.cold, 2u);
  EXPECT_EQ(state->cold_transcripts, 1u);
  auto contents = store::parse_transcript(t.jsonl);
  EXPECT_TRUE(contents.warnings.empty());
  ASSERT_EQ(contents.entries.size(), 2u);
  EXPECT_EQ(contents.entries[1].parent_id, "u1");
}

TEST(OpenClawSqliteCold, AFileArchiveIsReadFromSessionsColdAndCheckedAgainstItsRow) {
  SqliteHome home;
  const std::string archive = cold_archive("c-1", {kHeader, kUser, kAssistant});
  {
    Sql a(home.agent_db());
    a.exec(kAgentSchema);
    a.cold("c-1", archive, 3, "file");
  }
  const fs::path file = sqlite_state::cold_archive_path(home.agent_db(), ids::sha256_hex(archive) + ".jsonl.zst");
  EXPECT_EQ(file.parent_path(), home.source() / "agents" / "main" / "sessions" / "cold");
  auto missing = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "IO_ERROR");
  EXPECT_THAT(missing.error().message, HasSubstr("session_transcript_cold_archives, row session_id=c-1"));

  fs::create_directories(file.parent_path());
  std::string tampered = archive;
  tampered[tampered.size() / 2] ^= 0x01;
  std::ofstream(file, std::ios::binary) << tampered;
  auto bad = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "SQLITE_INVALID");
  EXPECT_THAT(bad.error().message, HasSubstr("does not match its recorded size and SHA-256"));

  std::ofstream(file, std::ios::binary | std::ios::trunc) << archive;
  auto good = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_TRUE(good) << good.error().message;
  ASSERT_EQ(good->transcripts.size(), 1u);
  EXPECT_EQ(good->transcripts[0].cold, 3u);
  EXPECT_EQ(good->transcripts[0].messages, 2u);
}

TEST(OpenClawSqliteCold, AnArchiveThatDisagreesWithItsRowIsRefused) {
  struct Case {
    std::string archive;
    int events;
    const char* error;
  };
  const std::string ok = cold_archive("c-1", {kHeader, kUser});
  std::string truncated = ok.substr(0, ok.size() - 4);
  for (const Case& c : {Case{ok, 3, "holds 2 event(s), the row records 3"},
                        Case{cold_archive("other", {kHeader, kUser}), 2, "belongs to session other"},
                        Case{truncated, 2, "truncated"}}) {
    SqliteHome home;
    {
      Sql a(home.agent_db());
      a.exec(kAgentSchema);
      a.cold("c-1", c.archive, c.events, "sqlite");
    }
    auto state = sqlite_state::read_agent_db(home.agent_db());
    ASSERT_FALSE(state) << c.error;
    EXPECT_EQ(state.error().code, "SQLITE_INVALID");
    EXPECT_THAT(state.error().message, HasSubstr(c.error));
  }
}

TEST(OpenClawSqliteCold, ASeqInBothPlacesMustAgree) {
  SqliteHome home;
  {
    Sql a(home.agent_db());
    a.exec(kAgentSchema);
    a.cold("c-1", cold_archive("c-1", {kHeader, kUser}), 2, "sqlite");
    a.event("c-1", 1, kAssistant, false);
  }
  auto state = sqlite_state::read_agent_db(home.agent_db());
  ASSERT_FALSE(state);
  EXPECT_THAT(state.error().message, HasSubstr("differs from the same seq in the cold archive"));
}

}  // namespace
}  // namespace pincer::cli::openclaw
