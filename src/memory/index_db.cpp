#include "memory/index_db.h"

#include <sqlite3.h>

#include <system_error>

namespace pincer::memory {

Stmt::Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); }
Stmt::~Stmt() { sqlite3_finalize(st_); }
Stmt& Stmt::bind(int i, const std::string& v) {
  sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(st_, i, v);
  return *this;
}
Stmt& Stmt::bind_blob(int i, const void* data, int bytes) {
  sqlite3_bind_blob(st_, i, data, bytes, SQLITE_TRANSIENT);
  return *this;
}
bool Stmt::step() {
  if (!st_) return false;
  rc_ = sqlite3_step(st_);
  return rc_ == SQLITE_ROW;
}
int64_t Stmt::int_at(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::double_at(int col) const { return sqlite3_column_double(st_, col); }
std::string Stmt::text_at(int col) const {
  const auto* p = sqlite3_column_text(st_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st_, col)))
           : std::string();
}
const void* Stmt::blob_at(int col, int& bytes) const {
  bytes = sqlite3_column_bytes(st_, col);
  return sqlite3_column_blob(st_, col);
}
void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

namespace {

constexpr const char* kSchema = R"(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, hash TEXT NOT NULL, mtime INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_tri USING fts5(text, content='chunks', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO chunks_tri(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE IF NOT EXISTS session_files(path TEXT PRIMARY KEY, inode INTEGER NOT NULL, size INTEGER NOT NULL,
  offset INTEGER NOT NULL, lines INTEGER NOT NULL, turns INTEGER NOT NULL, tail_hash TEXT NOT NULL,
  session_key TEXT NOT NULL, session_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS session_chunks(chunk_id INTEGER PRIMARY KEY, byte_start INTEGER NOT NULL,
  turns_before INTEGER NOT NULL, turn_start INTEGER NOT NULL, turn_end INTEGER NOT NULL, ts INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS chunks_ad_sessions AFTER DELETE ON chunks WHEN old.source = 'sessions' BEGIN
  DELETE FROM session_chunks WHERE chunk_id = old.id;
END;
CREATE TABLE IF NOT EXISTS embedding_cache(provider TEXT NOT NULL, model TEXT NOT NULL, hash TEXT NOT NULL,
  dims INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY(provider, model, hash));
)";

/// Opens and checks; nullopt-like empty message on success, else why it is unusable.
std::string try_open(const std::filesystem::path& path, sqlite3** out) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return why.empty() ? "cannot open" : why;
  }
  sqlite3_busy_timeout(db, 5000);
  std::string problem;
  {
    Stmt check(db, "PRAGMA quick_check");
    if (!check.ok()) {
      problem = sqlite3_errmsg(db);
    } else if (check.step()) {
      const std::string verdict = check.text_at(0);
      if (verdict != "ok") problem = "integrity check: " + verdict;
    } else if (check.rc() != SQLITE_DONE) {
      problem = sqlite3_errmsg(db);
    }
  }
  if (problem.empty()) {
    char* err = nullptr;
    if (sqlite3_exec(db, kSchema, nullptr, nullptr, &err) != SQLITE_OK) {
      problem = err ? err : "schema";
      sqlite3_free(err);
    }
  }
  if (!problem.empty()) {
    sqlite3_close(db);
    return problem;
  }
  *out = db;
  return {};
}

}  // namespace

Result<std::unique_ptr<IndexDb>> IndexDb::open(const std::filesystem::path& path, std::string* rebuilt_reason) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  sqlite3* db = nullptr;
  std::string problem = try_open(path, &db);
  if (!problem.empty()) {
    // The index is derived data: drop it and start again from the Markdown files.
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix, ec);
    if (rebuilt_reason) *rebuilt_reason = problem;
    std::string again = try_open(path, &db);
    if (!again.empty()) {
      return Error{"MEMORY_INDEX_OPEN", "cannot open the memory index " + path.string() + ": " + again};
    }
  }
  return std::unique_ptr<IndexDb>(new IndexDb(db));
}

IndexDb::~IndexDb() { sqlite3_close(db_); }

Status IndexDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "error";
    sqlite3_free(err);
    return Error{"MEMORY_INDEX_SQL", "memory index: " + sql.substr(0, 40) + ": " + msg};
  }
  return Ok{};
}

std::string IndexDb::meta(const std::string& key) {
  Stmt s(db_, "SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  return s.step() ? s.text_at(0) : std::string();
}

Status IndexDb::set_meta(const std::string& key, const std::string& value) {
  Stmt s(db_, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  s.bind(1, key).bind(2, value);
  s.step();
  if (s.rc() != SQLITE_DONE) return Error{"MEMORY_INDEX_SQL", "memory index: meta: " + last_error()};
  return Ok{};
}

std::string IndexDb::last_error() const { return sqlite3_errmsg(db_); }

}  // namespace pincer::memory
